package io.github.jakartainbox.bench;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Where the machine's CPU goes during a measurement: /proc sampled every 250 ms, per process grouped as the mail and
 * scale benchmarks' parts (their Liberty servers, the mail benchmark's GreenMail, PostgreSQL, the Kafka broker, this
 * JVM) and the rest.
 */
final class Cpu {

    private static final double TICKS = 100; // USER_HZ (getconf CLK_TCK)
    private static final String SMTP_PORT = System.getenv().getOrDefault("SMTP_PORT", "3626");
    private static final long SELF = ProcessHandle.current().pid();

    private record Snapshot(Instant at, long busy, Map<Long, String> group, Map<Long, Long> ticks) {
    }

    /** Cores used per part over a window, and by the whole machine. */
    record Use(Map<String, Double> parts, double busy, double cores) {
        String describe() {
            StringBuilder b = new StringBuilder();
            double known = 0;
            for (Map.Entry<String, Double> e : parts.entrySet()) {
                known += e.getValue();
                if (e.getValue() >= 0.005) {
                    b.append(String.format("%s %.2f, ", e.getKey(), e.getValue()));
                }
            }
            return b.append(String.format("other processes %.2f; busy %.2f", Math.max(0, busy - known), busy))
                    .toString();
        }

        String busyText() {
            return String.format("%.2f of %.0f cores", busy, cores);
        }

        /** One sentence: whether the cores were the bound, and who used them most. */
        String bound() {
            Map.Entry<String, Double> top = parts.entrySet().stream().max(Map.Entry.comparingByValue()).orElse(null);
            String largest = top == null ? "" : String.format("; the largest share %s (%.2f cores)", top.getKey(),
                    top.getValue());
            return busy >= 0.9 * cores
                    ? "the cores were saturated, so CPU bounds it" + largest
                    : "the cores were not saturated: each thread waits on one mail at a time (SMTP round trips, the "
                    + "commit)" + largest;
        }
    }

    private final List<Snapshot> snapshots = new ArrayList<>();
    private final Thread thread;
    private volatile boolean running = true;

    private Cpu() {
        thread = new Thread(() -> {
            while (running) {
                take();
                try {
                    Thread.sleep(250);
                } catch (InterruptedException e) {
                    return;
                }
            }
        }, "cpu-sampler");
        thread.setDaemon(true);
    }

    static Cpu start() {
        Cpu cpu = new Cpu();
        cpu.take();
        cpu.thread.start();
        return cpu;
    }

    /** Stops sampling; returns the use between the last sample at or before {@code from} and the first at or after
     *  {@code to}. */
    Use stop(Instant from, Instant to) throws InterruptedException {
        running = false;
        thread.interrupt();
        thread.join();
        take();
        List<Snapshot> all;
        synchronized (snapshots) {
            all = new ArrayList<>(snapshots);
        }
        Snapshot a = all.get(0);
        Snapshot b = all.get(all.size() - 1);
        for (Snapshot s : all) {
            if (!s.at().isAfter(from)) {
                a = s;
            }
        }
        for (int i = all.size() - 1; i >= 0; i--) {
            if (!all.get(i).at().isBefore(to)) {
                b = all.get(i);
            }
        }
        double seconds = Duration.between(a.at(), b.at()).toNanos() / 1e9;
        Map<String, Double> parts = new LinkedHashMap<>();
        for (String name : List.of("Liberty", "GreenMail", "PostgreSQL", "Kafka broker", "benchmark JVM")) {
            parts.put(name, 0.0);
        }
        for (Map.Entry<Long, Long> e : b.ticks().entrySet()) {
            Long before = a.ticks().get(e.getKey());
            String group = b.group().get(e.getKey());
            if (before != null && group != null) {
                parts.merge(group, (e.getValue() - before) / TICKS / seconds, Double::sum);
            }
        }
        return new Use(parts, (b.busy() - a.busy()) / TICKS / seconds, Runtime.getRuntime().availableProcessors());
    }

    private void take() {
        Map<Long, String> group = new HashMap<>();
        Map<Long, Long> ticks = new HashMap<>();
        long busy = 0;
        try {
            String[] f = Files.readAllLines(Path.of("/proc/stat")).get(0).trim().split("\\s+");
            // user nice system idle iowait irq softirq steal: all but idle and iowait
            busy = Long.parseLong(f[1]) + Long.parseLong(f[2]) + Long.parseLong(f[3]) + Long.parseLong(f[6])
                    + Long.parseLong(f[7]) + Long.parseLong(f[8]);
        } catch (IOException | RuntimeException e) {
            // left at 0
        }
        try (DirectoryStream<Path> procs = Files.newDirectoryStream(Path.of("/proc"), "[0-9]*")) {
            for (Path p : procs) {
                try {
                    long pid = Long.parseLong(p.getFileName().toString());
                    String name = part(pid, p);
                    if (name == null) {
                        continue;
                    }
                    String stat = Files.readString(p.resolve("stat"));
                    String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
                    // fields 14 and 15 (utime, stime), counted from the state, field 3
                    ticks.put(pid, Long.parseLong(f[11]) + Long.parseLong(f[12]));
                    group.put(pid, name);
                } catch (IOException | RuntimeException e) {
                    // gone
                }
            }
        } catch (IOException e) {
            // no /proc: nothing per part
        }
        synchronized (snapshots) {
            snapshots.add(new Snapshot(Instant.now(), busy, group, ticks));
        }
    }

    private static String part(long pid, Path p) throws IOException {
        if (pid == SELF) {
            return "benchmark JVM";
        }
        String comm = Files.readString(p.resolve("comm")).trim();
        if (comm.equals("postgres")) {
            return "PostgreSQL";
        }
        if (!comm.equals("java")) {
            return null;
        }
        String cmd = Files.readString(p.resolve("cmdline")).replace('\0', ' ').trim();
        if (cmd.endsWith("ws-server.jar mailbench") || cmd.endsWith("ws-server.jar scale-a")
                || cmd.endsWith("ws-server.jar scale-b") || cmd.endsWith("ws-server.jar share-bench")) {
            return "Liberty";
        }
        if (cmd.contains("-Dgreenmail.smtp.port=" + SMTP_PORT + " ")) {
            return "GreenMail";
        }
        if (cmd.contains(" kafka.Kafka ")) {
            return "Kafka broker";
        }
        return null;
    }
}
