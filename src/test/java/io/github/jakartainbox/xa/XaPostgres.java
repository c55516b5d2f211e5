package io.github.jakartainbox.xa;

import io.github.jakartainbox.testing.LocalPostgres;
import java.io.IOException;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

/**
 * The XA tests' own PostgreSQL cluster, made fresh by {@code initdb} on 127.0.0.1:{@code port} (trust
 * authentication) with {@code max_prepared_transactions} above 0, which two-phase commit needs and which the
 * machine's shared PostgreSQL on 5432 does not allow (its settings must not change under other work). Its files live
 * under the build directory ({@code target/xa-postgres-<port>}), its binaries are those of {@code -Dxa.pg.bin} or the
 * machine's ({@link LocalPostgres}); the XA tests' ports are 25432-25439.
 */
public final class XaPostgres {

    private final LocalPostgres cluster;

    /**
     * @param port the port to listen on (127.0.0.1)
     * @param home the directory for the cluster's files, deleted and made anew by {@link #start}
     */
    public XaPostgres(int port, Path home) {
        this.cluster = new LocalPostgres(home, "data", port, "xa.pg.bin");
    }

    /** @return the port */
    public int port() {
        return cluster.port();
    }

    /**
     * Stops what a crashed earlier run left, makes a new cluster and starts it.
     *
     * @param maxPreparedTransactions PostgreSQL's {@code max_prepared_transactions}
     */
    public void start(int maxPreparedTransactions) throws IOException, InterruptedException {
        cluster.create("the XA tests (-Dxa.pg.port=... chooses another port)");
        cluster.start("max_connections=60", "max_prepared_transactions=" + maxPreparedTransactions);
    }

    /** Stops the server if it runs (fast shutdown). */
    public void stop() throws IOException, InterruptedException {
        cluster.stop();
    }

    /** Creates a database afresh. */
    public void recreate(String database) throws SQLException {
        execute("postgres", "DROP DATABASE IF EXISTS " + database + " WITH (FORCE)", "CREATE DATABASE " + database);
    }

    /** @return a JDBC connection to one database of this cluster, user postgres */
    public Connection connect(String database) throws SQLException {
        return DriverManager.getConnection("jdbc:postgresql://127.0.0.1:" + port() + "/" + database, "postgres", "");
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
}
