package io.github.jakartainbox.testing;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.LongPredicate;
import javax.naming.InitialContext;
import javax.naming.NamingException;
import javax.sql.DataSource;

/**
 * Reads the billing database in tests: through the server's datasource in-container, over JDBC outside (the
 * machine's PostgreSQL on 127.0.0.1:5432, or another instance on 127.0.0.1, such as the fault suite's own).
 */
public final class Db {

    /** A connection factory. */
    @FunctionalInterface
    public interface Connector {
        Connection connect() throws SQLException;
    }

    private final Connector connector;

    private Db(Connector connector) {
        this.connector = connector;
    }

    /** @return the server's {@code jdbc/billing} datasource (in-container tests) */
    public static Db inContainer() {
        try {
            DataSource ds = (DataSource) new InitialContext().lookup("jdbc/billing");
            return new Db(ds::getConnection);
        } catch (NamingException e) {
            throw new IllegalStateException(e);
        }
    }

    /** @return the tests' connection to database {@code postgres} in the server ({@code jdbc/it-admin}, in-container) */
    public static Db adminInContainer() {
        return new Db(() -> {
            try {
                return ((DataSource) new InitialContext().lookup("jdbc/it-admin")).getConnection();
            } catch (NamingException e) {
                throw new SQLException("jdbc/it-admin is not in the tests' server.xml", e);
            }
        });
    }

    /**
     * @return the server's datasource, looked up at first use: Arquillian also builds test instances on the
     *         client side, where there is no JNDI
     */
    public static Db lazy() {
        return new Db(() -> inContainer().connector.connect());
    }

    /** @return plain JDBC to 127.0.0.1:5432/$DB_NAME (default billing), as the server uses (client tests) */
    public static Db overJdbc() {
        return overJdbc(System.getenv().getOrDefault("DB_NAME", "billing"));
    }

    /** @return plain JDBC to 127.0.0.1:5432/{@code database} */
    public static Db overJdbc(String database) {
        return overJdbc(5432, database);
    }

    /** @return plain JDBC to 127.0.0.1:{@code port}/{@code database}, user postgres (trust auth) */
    public static Db overJdbc(int port, String database) {
        String url = "jdbc:postgresql://127.0.0.1:" + port + "/" + database;
        return new Db(() -> DriverManager.getConnection(url, "postgres", ""));
    }

    /** Drops and creates a database (client tests that need a fresh one). */
    public static void recreate(String database) throws SQLException {
        recreate(5432, database);
    }

    /** Drops and creates a database on the PostgreSQL at 127.0.0.1:{@code port}. */
    public static void recreate(int port, String database) throws SQLException {
        try (Connection c = overJdbc(port, "postgres").connector.connect();
             java.sql.Statement s = c.createStatement()) {
            s.execute("DROP DATABASE IF EXISTS " + database + " WITH (FORCE)");
            s.execute("CREATE DATABASE " + database);
        }
    }

    /** Reads a query's result. */
    @FunctionalInterface
    private interface Reader<T> {
        T read(ResultSet rs) throws SQLException;
    }

    /**
     * @param sql    a query whose first column of the first row is a number
     * @param params bind parameters
     * @return that number
     */
    public long number(String sql, Object... params) {
        return query(sql, params, rs -> {
            rs.next();
            return rs.getLong(1);
        });
    }

    /** The dead letters with their payloads (schema V14: each payload stored once, shared), for a query's FROM. */
    public static final String DEAD_LETTERS = "inbox_dead_letter LEFT JOIN inbox_dead_letter_payload USING (payload_ref)";
    /** {@link #DEAD_LETTERS} with the dead letters as {@code d}. */
    public static final String DEAD_LETTERS_D = "inbox_dead_letter d LEFT JOIN inbox_dead_letter_payload USING (payload_ref)";

    /**
     * Stores a dead letter's payload text as the inbox does (schema V14: once, keyed by the SHA-256 of its UTF-8), for a
     * test that writes dead letters itself: bind the answer as {@code decode(?, 'hex')} for {@code payload_ref}.
     *
     * @param payload the payload text
     * @return the payload's key, in hex
     */
    public String deadLetterPayload(String payload) {
        return text("WITH p AS (INSERT INTO inbox_dead_letter_payload (payload_ref, payload) "
                + "VALUES (sha256(convert_to(?, 'UTF8')), ?) ON CONFLICT (payload_ref) DO NOTHING) "
                + "SELECT encode(sha256(convert_to(?, 'UTF8')), 'hex')", payload, payload, payload);
    }

    /** @return the first column of the first row as text, {@code null} when there is no row */
    public String text(String sql, Object... params) {
        return query(sql, params, rs -> rs.next() ? rs.getString(1) : null);
    }

    /** @return the first column of every row, as text */
    public List<String> texts(String sql, Object... params) {
        return query(sql, params, rs -> {
            List<String> values = new ArrayList<>();
            while (rs.next()) {
                values.add(rs.getString(1));
            }
            return values;
        });
    }

    /**
     * Runs a statement that returns no rows (DDL, {@code ALTER DATABASE}...).
     *
     * @param sql the statement
     */
    public void execute(String sql) {
        try (Connection c = connector.connect(); java.sql.Statement s = c.createStatement()) {
            s.execute(sql);
        } catch (SQLException e) {
            throw new IllegalStateException(sql, e);
        }
    }

    private <T> T query(String sql, Object[] params, Reader<T> reader) {
        try (Connection c = connector.connect(); PreparedStatement ps = c.prepareStatement(sql)) {
            for (int i = 0; i < params.length; i++) {
                ps.setObject(i + 1, params[i]);
            }
            try (ResultSet rs = ps.executeQuery()) {
                return reader.read(rs);
            }
        } catch (SQLException e) {
            throw new IllegalStateException(sql, e);
        }
    }

    /**
     * Polls a count until it meets the condition or the timeout passes; the caller asserts on the returned value.
     *
     * @return the last value read
     */
    public long await(Duration timeout, LongPredicate done, String sql, Object... params) throws InterruptedException {
        return Waiting.lastValue(Waiting.await().atMost(timeout).pollInterval(Duration.ofMillis(100)),
                () -> number(sql, params), done::test);
    }
}
