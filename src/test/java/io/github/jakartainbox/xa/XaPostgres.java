package io.github.jakartainbox.xa;

import io.github.jakartainbox.it.TestFiles;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The XA tests' own PostgreSQL cluster, made fresh by {@code initdb} on 127.0.0.1:{@code port} (trust
 * authentication) with {@code max_prepared_transactions} above 0, which two-phase commit needs and which the
 * machine's shared PostgreSQL on 5432 does not allow (its settings must not change under other work). Its files live
 * under the build directory ({@code target/xa-postgres-<port>}), its binaries are those of {@code -Dxa.pg.bin}, else
 * the newest {@code /usr/lib/postgresql/N/bin}. PostgreSQL refuses to run as root: as root, its commands run as user
 * {@code postgres} ({@code runuser}), which then owns the directory. The same approach as the fault suite's
 * {@code PrivatePostgres}, on the XA tests' ports (25432-25439).
 */
public final class XaPostgres {

    private static final Duration TIMEOUT = Duration.ofSeconds(90);

    private final int port;
    private final Path bin = binaries();
    private final Path home;
    private final Path data;
    private final Path log;
    private final boolean root = "root".equals(System.getProperty("user.name"));

    /**
     * @param port the port to listen on (127.0.0.1)
     * @param home the directory for the cluster's files, deleted and made anew by {@link #start}
     */
    public XaPostgres(int port, Path home) {
        this.port = port;
        this.home = home.toAbsolutePath();
        this.data = this.home.resolve("data");
        this.log = this.home.resolve("commands.log");
    }

    /** @return the port */
    public int port() {
        return port;
    }

    /**
     * Stops what a crashed earlier run left, makes a new cluster and starts it.
     *
     * @param maxPreparedTransactions PostgreSQL's {@code max_prepared_transactions}
     */
    public void start(int maxPreparedTransactions) throws IOException, InterruptedException {
        if (Files.exists(data.resolve("postmaster.pid"))) {
            run(pg("pg_ctl", "-D", data.toString(), "-m", "immediate", "stop"));
        }
        if (listening()) {
            throw new IllegalStateException("Port " + port + " is taken by another process; the XA tests need it for "
                    + "their own PostgreSQL (-Dxa.pg.port=... chooses another)");
        }
        TestFiles.deleteTree(home);
        Files.createDirectories(home);
        if (root) {
            check(List.of("chown", "postgres:", home.toString()));
        }
        check(pg("initdb", "-D", data.toString(), "-U", "postgres", "-A", "trust", "-E", "UTF8", "--no-sync"));
        check(pg("pg_ctl", "-D", data.toString(), "-l", home.resolve("postgres.log").toString(), "-w", "-t", "60",
                "-o", "-p " + port + " -c listen_addresses=127.0.0.1 -c unix_socket_directories=" + data
                        + " -c max_connections=60 -c max_prepared_transactions=" + maxPreparedTransactions, "start"));
    }

    /** Stops the server if it runs (fast shutdown). */
    public void stop() throws IOException, InterruptedException {
        if (Files.exists(data.resolve("postmaster.pid"))) {
            run(pg("pg_ctl", "-D", data.toString(), "-m", "fast", "-w", "stop"));
        }
    }

    /** Creates a database afresh. */
    public void recreate(String database) throws SQLException {
        execute("postgres", "DROP DATABASE IF EXISTS " + database + " WITH (FORCE)", "CREATE DATABASE " + database);
    }

    /** @return a JDBC connection to one database of this cluster, user postgres */
    public Connection connect(String database) throws SQLException {
        return DriverManager.getConnection("jdbc:postgresql://127.0.0.1:" + port + "/" + database, "postgres", "");
    }

    /** Runs statements, each in its own autocommit transaction. */
    public void execute(String database, String... sql) throws SQLException {
        try (Connection c = connect(database); Statement s = c.createStatement()) {
            for (String statement : sql) {
                s.execute(statement);
            }
        }
    }

    /** @return the first column of the first row of a query that returns a number */
    public long number(String database, String sql) throws SQLException {
        try (Connection c = connect(database); Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
            rs.next();
            return rs.getLong(1);
        }
    }

    /** @return the first column of every row */
    public List<String> texts(String database, String sql) throws SQLException {
        List<String> rows = new ArrayList<>();
        try (Connection c = connect(database); Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
            while (rs.next()) {
                rows.add(rs.getString(1));
            }
        }
        return rows;
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
        int rc = run(command);
        if (rc != 0) {
            throw new IllegalStateException(String.join(" ", command) + " exited " + rc + "; see " + log);
        }
    }

    private int run(List<String> command) throws IOException, InterruptedException {
        Files.createDirectories(log.getParent());
        ProcessBuilder builder = new ProcessBuilder(command).directory(home.getParent().toFile())
                .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
        builder.environment().put("LC_ALL", "C.UTF-8");
        Process process = builder.start();
        if (!process.waitFor(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
            process.destroyForcibly();
            throw new IllegalStateException(String.join(" ", command) + " did not finish within " + TIMEOUT);
        }
        return process.exitValue();
    }

    private boolean listening() {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress("127.0.0.1", port), 500);
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    private static Path binaries() {
        return io.github.jakartainbox.testing.PostgresBinaries.find("xa.pg.bin");
    }
}
