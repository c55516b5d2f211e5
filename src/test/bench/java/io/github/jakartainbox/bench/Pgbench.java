package io.github.jakartainbox.bench;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * PostgreSQL's own transaction rate for a statement: {@code pgbench} with a custom script, no vacuum, prepared
 * statements (as the JDBC contenders use after their first executions), each statement its own transaction
 * (autocommit: one round trip per transaction).
 */
public final class Pgbench {

    private static final Pattern TPS = Pattern.compile("tps = ([0-9.]+) \\(without initial connection time\\)");

    private final String database;
    private final Path script;

    /**
     * @param database the database to run in
     * @param name     a file name for the script
     * @param script   the pgbench script
     */
    public Pgbench(String database, String name, String script) throws IOException {
        this.database = database;
        this.script = Files.createTempFile("bench-" + name, ".sql");
        this.script.toFile().deleteOnExit();
        Files.writeString(this.script, script);
    }

    public static boolean available() {
        try {
            return new ProcessBuilder("pgbench", "--version").redirectErrorStream(true).start().waitFor() == 0;
        } catch (IOException | InterruptedException e) {
            return false;
        }
    }

    /** @return transactions per second over {@code seconds}, without the connection time */
    public double run(int clients, int seconds) throws IOException, InterruptedException {
        List<String> command = List.of("pgbench", "-h", "127.0.0.1", "-p", "5432", "-U", "postgres", "-n",
                "-M", "prepared", "-c", Integer.toString(clients), "-j", Integer.toString(Math.min(clients, 2)),
                "-T", Integer.toString(seconds), "-f", script.toString(), database);
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        int exit = process.waitFor();
        Matcher tps = TPS.matcher(output);
        if (exit != 0 || !tps.find()) {
            throw new IOException("pgbench failed (exit " + exit + "): " + String.join(" ", command) + "\n" + output);
        }
        if (output.contains("number of failed transactions: ") && !output.contains("number of failed transactions: 0 ")) {
            throw new IOException("pgbench transactions failed:\n" + output);
        }
        return Double.parseDouble(tps.group(1));
    }
}
