package io.github.jakartainbox.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * A PostgreSQL cluster of a test's own, made by {@code initdb} in a directory and run by {@code pg_ctl} on
 * 127.0.0.1 (trust authentication, user {@code postgres}), for tests that must restart, kill, replicate or reconfigure
 * a server without disturbing the machine's PostgreSQL on 5432 (the fault suite, the XA tests). The binaries are
 * those of the directory a system property names, else the newest {@code /usr/lib/postgresql/N/bin} (Debian's
 * layout). PostgreSQL refuses to run as root: as root, its commands run as user {@code postgres} ({@code runuser}),
 * which then owns the directory. Every command's output goes to {@code commands.log} in the home directory.
 */
public final class LocalPostgres {

    private static final Duration TIMEOUT = Duration.ofSeconds(90);
    private static final Map<String, String> LOCALE = Map.of("LC_ALL", "C.UTF-8");

    private final Path bin;
    private final Path home;
    private final Path data;
    private final Path log;
    private final boolean root = "root".equals(System.getProperty("user.name"));
    private int port;

    /**
     * @param home        the directory of the cluster's files (and of its standbys'), deleted by {@link #create}
     * @param directory   the data directory's name under {@code home}
     * @param port        the port to listen on
     * @param binProperty the system property that may name the directory of {@code initdb} and {@code pg_ctl}
     */
    public LocalPostgres(Path home, String directory, int port, String binProperty) {
        this(home.toAbsolutePath(), directory, port, binaries(binProperty));
    }

    /** @return another cluster in the same home directory, for a standby made by {@link #baseBackup} */
    public LocalPostgres sibling(String directory, int port) {
        return new LocalPostgres(home, directory, port, bin);
    }

    private LocalPostgres(Path home, String directory, int port, Path bin) {
        this.bin = bin;
        this.home = home;
        this.data = home.resolve(directory);
        this.log = home.resolve("commands.log");
        this.port = port;
    }

    /** @return the port it listens on */
    public int port() {
        return port;
    }

    /** @return its data directory */
    public Path data() {
        return data;
    }

    /** @return the log of the commands run on it */
    public Path commandsLog() {
        return log;
    }

    /**
     * Stops what a crashed earlier run left in the data directory, deletes the home directory and makes a new
     * cluster there.
     *
     * @param whoNeedsThePort named in the error when another process listens on the port
     * @throws IllegalStateException when another process listens on the port, or a command fails
     */
    public void create(String whoNeedsThePort) throws IOException, InterruptedException {
        if (Files.exists(data.resolve("postmaster.pid"))) {
            run(pg("pg_ctl", "-D", data.toString(), "-m", "immediate", "stop"));
        }
        if (listening()) {
            throw new IllegalStateException("Port " + port + " is taken by another process; " + whoNeedsThePort
                    + " needs it for its own PostgreSQL");
        }
        TestFiles.deleteTree(home);
        Files.createDirectories(home);
        if (root) {
            check(List.of("chown", "postgres:", home.toString()));
        }
        check(pg("initdb", "-D", data.toString(), "-U", "postgres", "-A", "trust", "-E", "UTF8", "--no-sync"));
    }

    /**
     * Starts the server on {@link #port()} and waits until it accepts connections.
     *
     * @param settings server settings as {@code name=value} ({@code max_connections=100}), each passed as {@code -c}
     */
    public void start(String... settings) throws IOException, InterruptedException {
        StringBuilder options = new StringBuilder("-p " + port + " -c listen_addresses=127.0.0.1"
                + " -c unix_socket_directories=" + data);
        for (String setting : settings) {
            options.append(" -c ").append(setting);
        }
        check(pg("pg_ctl", "-D", data.toString(), "-l", data + ".log", "-w", "-t", "60", "-o", options.toString(),
                "start"));
    }

    /** Stops the server if it runs (fast shutdown: connections are closed, transactions roll back). */
    public void stop() throws IOException, InterruptedException {
        if (Files.exists(data.resolve("postmaster.pid"))) {
            run(pg("pg_ctl", "-D", data.toString(), "-m", "fast", "-w", "stop"));
        }
    }

    /**
     * Ends the server as a crash does: {@code kill -9} of the postmaster and every process it started, then waits
     * until the port is free; what it did not send to a standby is gone with it. Its files are deleted.
     */
    public void kill() throws IOException, InterruptedException {
        String pid = Files.readAllLines(data.resolve("postmaster.pid")).get(0).trim();
        run(List.of("pkill", "-9", "-P", pid));
        run(List.of("kill", "-9", pid));
        // the port still taken after TIMEOUT is no error here: the next start on it fails and says so
        Waiting.lastValue(Waiting.await().atMost(TIMEOUT).pollInterval(Duration.ofMillis(100)), this::listening,
                listening -> !listening);
        TestFiles.deleteTree(data);
    }

    /**
     * Copies this running cluster into {@code standby}'s data directory as a streaming standby of it
     * ({@code pg_basebackup -R}); the copy's socket lock files are removed, so that it can start.
     */
    public void baseBackup(LocalPostgres standby) throws IOException, InterruptedException {
        TestFiles.deleteTree(standby.data);
        check(pg("pg_basebackup", "-h", "127.0.0.1", "-p", String.valueOf(port), "-U", "postgres",
                "-D", standby.data.toString(), "-R", "-X", "stream", "--no-sync", "-c", "fast"));
        standby.dropSocketLocks();
    }

    /** Socket lock files a copy of a running cluster's directory brings along (its sockets live there). */
    private void dropSocketLocks() throws IOException {
        try (Stream<Path> files = Files.list(data)) {
            for (Path file : files.filter(f -> f.getFileName().toString().startsWith(".s.PGSQL.")).toList()) {
                Files.deleteIfExists(file);
            }
        }
    }

    /**
     * Turns this stopped standby into a server of its own on {@code port}: it no longer streams from a primary and
     * replays only the WAL it has. {@link #start} then runs it as a read-only hot standby until {@link #promote}.
     */
    public void detach(int port) throws IOException {
        Path auto = data.resolve("postgresql.auto.conf");
        List<String> settings = Files.readAllLines(auto).stream()
                .filter(line -> !line.startsWith("primary_conninfo")).toList();
        Files.write(auto, settings);
        dropSocketLocks();
        this.port = port;
    }

    /** Promotes this standby ({@code pg_ctl promote}) and waits until it accepts writes. */
    public void promote() throws IOException, InterruptedException {
        check(pg("pg_ctl", "-D", data.toString(), "-w", "-t", "60", "promote"));
    }

    /** @return whether something accepts connections on the port */
    public boolean listening() {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress("127.0.0.1", port), 500);
            return true;
        } catch (IOException e) {
            return false;
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

    private void check(List<String> command) throws IOException, InterruptedException {
        Commands.check(command, home.getParent(), LOCALE, log, TIMEOUT);
    }

    private int run(List<String> command) throws IOException, InterruptedException {
        return Commands.run(command, home.getParent(), LOCALE, log, TIMEOUT);
    }

    /**
     * @param property the system property that names the directory, when set (e.g. {@code faults.pg.bin})
     * @return that directory, or the {@code bin} directory of the newest server under {@code /usr/lib/postgresql}
     * @throws IllegalStateException when there is none, naming the package to install and the property to set
     */
    static Path binaries(String property) {
        String configured = System.getProperty(property);
        if (configured != null) {
            return Path.of(configured);
        }
        try (Stream<Path> versions = Files.list(Path.of("/usr/lib/postgresql"))) {
            return versions.filter(v -> Files.isExecutable(v.resolve("bin/initdb")))
                    .max(Comparator.comparingInt(v -> Integer.parseInt(v.getFileName().toString().replaceAll("\\D", "0"))))
                    .map(v -> v.resolve("bin"))
                    .orElseThrow(() -> new IllegalStateException("No PostgreSQL server binaries in /usr/lib/postgresql; "
                            + "install the postgresql package or set -D" + property
                            + "=<directory of initdb and pg_ctl>"));
        } catch (IOException e) {
            throw new UncheckedIOException("No /usr/lib/postgresql; set -D" + property
                    + "=<directory of initdb and pg_ctl>", e);
        }
    }
}
