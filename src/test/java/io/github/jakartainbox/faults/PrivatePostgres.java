package io.github.jakartainbox.faults;

import io.github.jakartainbox.it.TestFiles;
import io.github.jakartainbox.it.Db;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The fault suite's own PostgreSQL cluster, made fresh by {@code initdb} for each suite run on 127.0.0.1:{@value
 * #PORT} (trust authentication), so that restarting it or killing its connections never disturbs the machine's
 * PostgreSQL on 5432. Its files live in {@code /var/tmp/jakarta-inbox-faults} ({@code -Dfaults.pg.dir}
 * overrides). The binaries are those of {@code -Dfaults.pg.bin}, else the newest {@code /usr/lib/postgresql/N/bin}
 * (Debian's layout). PostgreSQL refuses to run as root: as root, its commands run as user {@code postgres}
 * ({@code runuser}), which owns the directory.
 */
final class PrivatePostgres {

    static final int PORT = 15432;
    private static final Duration TIMEOUT = Duration.ofSeconds(90);

    private final Path bin = binaries();
    private final Path home = Path.of(System.getProperty("faults.pg.dir", "/var/tmp/jakarta-inbox-faults"));
    private final Path data = home.resolve("data");
    private final Path log = home.resolve("commands.log");
    private final boolean root = "root".equals(System.getProperty("user.name"));

    /** Stops what a crashed earlier run left, makes a new cluster and starts it. */
    void start() throws IOException, InterruptedException {
        if (Files.exists(data.resolve("postmaster.pid"))) {
            Commands.run(pg("pg_ctl", "-D", data.toString(), "-m", "immediate", "stop"), Path.of("/"), Map.of(),
                    Path.of("/dev/null"), TIMEOUT);
        }
        if (listening()) {
            throw new IllegalStateException("Port " + PORT + " is taken by another process; the fault suite needs "
                    + "it for its own PostgreSQL");
        }
        TestFiles.deleteTree(home);
        Files.createDirectories(home);
        if (root) {
            Commands.check(List.of("chown", "postgres:", home.toString()), home, Map.of(), Path.of("/dev/null"),
                    TIMEOUT);
        }
        Commands.check(pg("initdb", "-D", data.toString(), "-U", "postgres", "-A", "trust", "-E", "UTF8",
                "--no-sync"), home, Map.of("LC_ALL", "C.UTF-8"), log, TIMEOUT);
        up();
    }

    /** Stops the server and starts it again after {@code down}: every connection breaks, nothing answers meanwhile. */
    void restart(Duration down) throws IOException, InterruptedException {
        Commands.check(pg("pg_ctl", "-D", data.toString(), "-m", "fast", "-w", "stop"), home, Map.of(), log, TIMEOUT);
        Thread.sleep(down.toMillis());
        up();
    }

    /** Stops the server if it runs (fast shutdown: connections are closed, transactions roll back). */
    void stop() throws IOException, InterruptedException {
        if (Files.exists(data.resolve("postmaster.pid"))) {
            Commands.run(pg("pg_ctl", "-D", data.toString(), "-m", "fast", "-w", "stop"), home, Map.of(), log,
                    TIMEOUT);
        }
    }

    /**
     * Ends every connection to the database but the caller's, as {@code pg_terminate_backend} does to a service
     * whose connections an operator or a failover kills.
     *
     * @return how many were ended
     */
    long terminateConnections(String database) {
        return db("postgres").number("SELECT count(*) FILTER (WHERE pg_terminate_backend(pid)) FROM pg_stat_activity "
                + "WHERE datname = ? AND pid <> pg_backend_pid()", database);
    }

    /** Creates the database afresh. */
    void recreate(String database) throws SQLException {
        Db.recreate(PORT, database);
    }

    /** @return JDBC access to one database of this cluster */
    Db db(String database) {
        return Db.overJdbc(PORT, database);
    }

    private void up() throws IOException, InterruptedException {
        Commands.check(pg("pg_ctl", "-D", data.toString(), "-l", home.resolve("postgres.log").toString(), "-w",
                "-t", "60", "-o", "-p " + PORT + " -c listen_addresses=127.0.0.1 -c unix_socket_directories="
                        + data + " -c max_connections=100", "start"), home, Map.of(), log, TIMEOUT);
    }

    private List<String> pg(String program, String... arguments) {
        List<String> command = new ArrayList<>();
        if (root) {
            command.addAll(List.of("runuser", "-u", "postgres", "--"));
        }
        command.add(bin.resolve(program).toString());
        command.addAll(List.of(arguments));
        return command;
    }

    private static boolean listening() {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress("127.0.0.1", PORT), 500);
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    private static Path binaries() {
        return io.github.jakartainbox.testing.PostgresBinaries.find("faults.pg.bin");
    }
}
