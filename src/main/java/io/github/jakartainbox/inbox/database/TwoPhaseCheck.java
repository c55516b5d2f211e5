package io.github.jakartainbox.inbox.database;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;
import javax.sql.XADataSource;

/**
 * The start-up checks of the inbox datasource for two-phase commit (XA), run with the schema check before the first
 * claim, so that a misconfiguration fails the start with a message naming the setting instead of failing the first
 * message with an obscure error.
 *
 * <ul>
 *   <li>An XA datasource ({@code type="javax.sql.XADataSource"} in server.xml, PostgreSQL's
 *       {@code org.postgresql.xa.PGXADataSource}) needs {@code max_prepared_transactions > 0}: the transaction
 *       manager's prepare is PostgreSQL's {@code PREPARE TRANSACTION}, which fails while the setting is 0, its
 *       default (PostgreSQL documentation, "PREPARE TRANSACTION" and "max_prepared_transactions").</li>
 *   <li>The inbox's unique key must not be {@code DEFERRABLE}, in any mode: {@code INSERT ... ON CONFLICT} does not
 *       accept a deferrable constraint as its arbiter (PostgreSQL documentation, "INSERT", ON CONFLICT clause), and
 *       a violation checked at commit would surface at prepare time, after the business method ran, as a failed
 *       prepare and a rollback (a heuristic hazard for the other resources) instead of a duplicate skipped by the
 *       claim.</li>
 * </ul>
 */
final class TwoPhaseCheck {

    /** The inbox's unique and primary-key constraints that are deferrable. */
    static final String DEFERRABLE_SQL = "SELECT conname, pg_get_constraintdef(oid) FROM pg_constraint "
            + "WHERE conrelid = 'inbox'::regclass AND contype IN ('p', 'u') AND condeferrable ORDER BY conname";

    /**
     * A deferrable key of the inbox.
     *
     * @param name       its name
     * @param definition its definition as {@code pg_get_constraintdef} gives it, e.g.
     *                   {@code PRIMARY KEY (consumer, event_id) DEFERRABLE}
     */
    record Deferrable(String name, String definition) {

        /** @return the statement that makes it anew, immediate: PostgreSQL alters only a foreign key's deferrability */
        String fix() {
            String immediate = definition.replaceAll("(?i)\\s+(NOT\\s+)?DEFERRABLE.*$", "");
            return "ALTER TABLE inbox DROP CONSTRAINT " + name + ", ADD CONSTRAINT " + name + " " + immediate;
        }
    }

    private TwoPhaseCheck() {
    }

    /**
     * The decision, without a database.
     *
     * @param jndiName                the inbox datasource's JNDI name ({@code inbox.datasource})
     * @param xa                      whether the datasource is an XA datasource
     * @param maxPreparedTransactions PostgreSQL's {@code max_prepared_transactions} of that database's server
     * @param deferrable              the inbox's deferrable unique and primary-key constraints
     * @return the problems, each a catalogue message (INBOX0800E, INBOX0801E); empty when the datasource may serve
     */
    static List<String> problems(String jndiName, boolean xa, int maxPreparedTransactions, List<Deferrable> deferrable) {
        List<String> problems = new ArrayList<>();
        if (xa && maxPreparedTransactions <= 0) {
            problems.add(TwoPhaseMessage.INBOX0800E.format(jndiName,
                    String.valueOf(maxPreparedTransactions)));
        }
        for (Deferrable constraint : deferrable) {
            problems.add(TwoPhaseMessage.INBOX0801E.format(constraint.name(), jndiName, constraint.fix()));
        }
        return problems;
    }

    /**
     * @param dataSource the datasource as found in JNDI (on Liberty, the connection factory wrapping the driver's)
     * @return whether it wraps an {@link XADataSource}: Liberty answers {@code isWrapperFor} with the class of the
     *         driver's data source that its {@code type} attribute selected
     */
    static boolean isXa(DataSource dataSource) {
        try {
            return dataSource instanceof XADataSource || dataSource.isWrapperFor(XADataSource.class);
        } catch (SQLException e) {
            return false;
        }
    }

    /**
     * Reads the settings and runs {@link #problems}.
     *
     * @param dataSource the inbox datasource, its tables made
     * @param jndiName   its JNDI name
     * @return the problems found, empty when none
     * @throws SQLException when the database cannot be read
     */
    static List<String> check(DataSource dataSource, String jndiName) throws SQLException {
        boolean xa = isXa(dataSource);
        int maxPrepared;
        List<Deferrable> deferrable = new ArrayList<>();
        try (Connection connection = dataSource.getConnection(); Statement statement = connection.createStatement()) {
            try (ResultSet rs = statement.executeQuery("SELECT current_setting('max_prepared_transactions')::int")) {
                rs.next();
                maxPrepared = rs.getInt(1);
            }
            try (ResultSet rs = statement.executeQuery(DEFERRABLE_SQL)) {
                while (rs.next()) {
                    deferrable.add(new Deferrable(rs.getString(1), rs.getString(2)));
                }
            }
        }
        if (xa) {
            TwoPhaseMessage.INBOX0802I.log(jndiName, String.valueOf(maxPrepared));
        }
        return problems(jndiName, xa, maxPrepared, deferrable);
    }
}
