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
    private final Path data;
    private final Path log = home.resolve("commands.log");
    private final boolean root = "root".equals(System.getProperty("user.name"));
    /** The port it listens on: {@link #PORT}, or a standby's until it is promoted in the primary's place. */
    private int port = PORT;

    /** The suite's primary, in {@code <dir>/data}. */
    PrivatePostgres() {
        this.data = home.resolve("data");
    }

    private PrivatePostgres(String directory, int port) {
        this.data = home.resolve(directory);
        this.port = port;
    }

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
        return Db.overJdbc(port, database);
    }

    private void up() throws IOException, InterruptedException {
        Commands.check(pg("pg_ctl", "-D", data.toString(), "-l", data + ".log", "-w",
                "-t", "60", "-o", "-p " + port + " -c listen_addresses=127.0.0.1 -c unix_socket_directories="
                        + data + " -c max_connections=100", "start"), home, Map.of(), log, TIMEOUT);
    }

    /**
     * Makes a streaming standby of this cluster ({@code pg_basebackup -R}, asynchronous unless {@link
     * #synchronousStandby}) in {@code <dir>/<directory>} and starts it on {@code port}.
     *
     * @return the standby, running
     */
    PrivatePostgres standby(String directory, int port) throws IOException, InterruptedException {
        PrivatePostgres standby = new PrivatePostgres(directory, port);
        TestFiles.deleteTree(standby.data);
        Commands.check(pg("pg_basebackup", "-h", "127.0.0.1", "-p", String.valueOf(this.port), "-U", "postgres",
                "-D", standby.data.toString(), "-R", "-X", "stream", "--no-sync", "-c", "fast"), home, Map.of(), log,
                TIMEOUT);
        standby.dropSocketLocks();
        standby.up();
        return standby;
    }

    /**
     * Makes every commit wait until a standby has it ({@code synchronous_standby_names = '*'},
     * {@code synchronous_commit = on}), or no longer.
     */
    void synchronousStandby(boolean on) {
        Db db = db("postgres");
        db.execute("ALTER SYSTEM SET synchronous_standby_names = '" + (on ? "*" : "") + "'");
        db.execute("ALTER SYSTEM SET synchronous_commit = on");
        db.execute("SELECT pg_reload_conf()");
    }

    /**
     * Ends the server as a crash does: {@code kill -9} of the postmaster and every process it started; what it did
     * not send to a standby is gone with it. Its files are deleted.
     */
    void kill() throws IOException, InterruptedException {
        String pid = Files.readAllLines(data.resolve("postmaster.pid")).get(0).trim();
        Commands.run(List.of("pkill", "-9", "-P", pid), home, Map.of(), log, TIMEOUT);
        Commands.run(List.of("kill", "-9", pid), home, Map.of(), log, TIMEOUT);
        long end = System.nanoTime() + TIMEOUT.toNanos();
        while (listeningOn(port) && System.nanoTime() < end) {
            Thread.sleep(100);
        }
        TestFiles.deleteTree(data);
    }

    /**
     * Promotes this standby in the place of a primary that is gone: stopped if it runs, started on {@link #PORT}
     * with no primary to stream from (it replays the WAL it has), left there as a read-only hot standby for {@code
     * readOnly}, then {@code pg_ctl promote}. The read-only time is what clients see when the primary's address
     * reaches a replica before the failover manager promotes it: connections work, every write fails with SQLState
     * 25006.
     *
     * @param readOnly how long the standby serves read-only on {@link #PORT} before its promotion
     */
    void promoteInPlaceOfPrimary(java.time.Duration readOnly) throws IOException, InterruptedException {
        stop();
        Path auto = data.resolve("postgresql.auto.conf");
        List<String> settings = Files.readAllLines(auto).stream()
                .filter(line -> !line.startsWith("primary_conninfo")).toList();
        Files.write(auto, settings);
        port = PORT;
        dropSocketLocks();
        up();
        Thread.sleep(readOnly.toMillis());
        Commands.check(pg("pg_ctl", "-D", data.toString(), "-w", "-t", "60", "promote"), home, Map.of(), log,
                TIMEOUT);
    }

    /** Socket lock files a copy of a running cluster's directory brings along (its sockets live there). */
    private void dropSocketLocks() throws IOException {
        try (var files = Files.list(data)) {
            for (Path file : files.filter(f -> f.getFileName().toString().startsWith(".s.PGSQL.")).toList()) {
                Files.deleteIfExists(file);
            }
        }
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
        return listeningOn(PORT);
    }

    private static boolean listeningOn(int port) {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress("127.0.0.1", port), 500);
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    private static Path binaries() {
        return io.github.jakartainbox.testing.PostgresBinaries.find("faults.pg.bin");
    }
}
