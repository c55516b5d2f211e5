package io.github.jakartainbox.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;

/** What machine a run was on, for the record printed with its figures. */
public final class Load {

    private Load() {
    }

    /** @return the 1, 5 and 15 minute load averages, as {@code uptime} prints them */
    public static String averages() {
        try {
            String[] fields = Files.readString(Path.of("/proc/loadavg")).trim().split("\\s+");
            return fields[0] + ", " + fields[1] + ", " + fields[2];
        } catch (IOException e) {
            return "unknown";
        }
    }

    /** @return cores, memory and Java of this machine */
    public static String machine() {
        long memKb = 0;
        try {
            for (String line : Files.readAllLines(Path.of("/proc/meminfo"))) {
                if (line.startsWith("MemTotal:")) {
                    memKb = Long.parseLong(line.replaceAll("\\D", ""));
                }
            }
        } catch (IOException e) {
            // left at 0
        }
        return String.format("%d cores (nproc), %.1f GiB RAM, Java %s (%s)", Runtime.getRuntime().availableProcessors(),
                memKb / 1024.0 / 1024.0, System.getProperty("java.version"), System.getProperty("java.vm.name"));
    }

    public static String now() {
        return ZonedDateTime.now().format(DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm z"));
    }
}
