package io.github.jakartainbox.outbox;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.eclipse.microprofile.config.ConfigProvider;

/**
 * What an operator sees of the outbox and does with it: the figures, the rows that fail, and for such a row
 * "retry now" or "give up" (as with dead letters). Each call is its own statement in auto-commit mode: call it
 * outside a transaction, or accept that it joins yours.
 */
@ApplicationScoped
public class OutboxOperations {

    /** The outcome of an operator's action on a row. */
    public enum Outcome {
        /** done */
        DONE,
        /** no such row */
        NOT_FOUND,
        /** the row was delivered or given up already */
        NOT_PENDING
    }

    private static final String FIGURES_SQL = "SELECT count(*), coalesce(extract(epoch FROM now() - min(created_at)), 0), "
            + "count(*) FILTER (WHERE attempts >= ?), (SELECT total_delivered FROM outbox_relay_state WHERE id = 'outbox') "
            + "FROM outbox WHERE delivered_at IS NULL AND given_up_at IS NULL";

    private static final String FAILING_SQL = "SELECT id, event_id, topic, record_key, attempts, last_error, created_at, "
            + "last_failed_at, next_attempt_at FROM outbox WHERE delivered_at IS NULL AND given_up_at IS NULL "
            + "AND attempts > 0 ORDER BY id LIMIT ?";

    private static final String RETRY_SQL = "UPDATE outbox SET attempts = 0, next_attempt_at = NULL, resolved_by = ? "
            + "WHERE id = ? AND delivered_at IS NULL AND given_up_at IS NULL RETURNING event_id";

    private static final String GIVE_UP_SQL = "UPDATE outbox SET given_up_at = now(), resolved_by = ? "
            + "WHERE id = ? AND delivered_at IS NULL AND given_up_at IS NULL RETURNING event_id";

    @Inject
    OutboxDatabase database;
    @Inject
    OutboxRelay relay;

    /**
     * @return the figures now
     * @throws OutboxException when the database cannot be read
     */
    public OutboxFigures figures() {
        int failingAfter = OutboxConfig.FAILING_AFTER.get(ConfigProvider.getConfig());
        try (Connection connection = database.dataSource().getConnection();
             PreparedStatement select = connection.prepareStatement(FIGURES_SQL)) {
            select.setInt(1, failingAfter);
            try (ResultSet rs = select.executeQuery()) {
                rs.next();
                return new OutboxFigures(rs.getLong(1), Duration.ofMillis(Math.round(rs.getDouble(2) * 1000)),
                        rs.getLong(4), rs.getLong(3));
            }
        } catch (SQLException e) {
            throw new OutboxException("the outbox figures cannot be read: " + e.getMessage(), e);
        }
    }

    /**
     * @param limit the most rows returned, oldest first
     * @return pending rows that failed at least once
     * @throws OutboxException when the database cannot be read
     */
    public List<FailingRow> failing(int limit) {
        List<FailingRow> rows = new ArrayList<>();
        try (Connection connection = database.dataSource().getConnection();
             PreparedStatement select = connection.prepareStatement(FAILING_SQL)) {
            select.setInt(1, limit);
            try (ResultSet rs = select.executeQuery()) {
                while (rs.next()) {
                    rows.add(new FailingRow(rs.getLong(1), rs.getObject(2, UUID.class), rs.getString(3),
                            rs.getString(4), rs.getInt(5), rs.getString(6), rs.getObject(7, OffsetDateTime.class),
                            rs.getObject(8, OffsetDateTime.class), rs.getObject(9, OffsetDateTime.class)));
                }
            }
        } catch (SQLException e) {
            throw new OutboxException("the failing outbox rows cannot be read: " + e.getMessage(), e);
        }
        return rows;
    }

    /**
     * Sends a pending row again now, its failure count reset.
     *
     * @param id the row id
     * @param by who asks (recorded in {@code resolved_by})
     * @return the outcome
     * @throws OutboxException when the database cannot be written
     */
    public Outcome retry(long id, String by) {
        Outcome outcome = update(RETRY_SQL, id, by, "retried");
        if (outcome == Outcome.DONE) {
            relay.wake();
        }
        return outcome;
    }

    /**
     * Gives a pending row up: it is never sent, and later rows of its key no longer wait behind it.
     *
     * @param id the row id
     * @param by who decides (recorded in {@code resolved_by})
     * @return the outcome
     * @throws OutboxException when the database cannot be written
     */
    public Outcome giveUp(long id, String by) {
        Outcome outcome = update(GIVE_UP_SQL, id, by, "given up");
        if (outcome == Outcome.DONE) {
            relay.wake();
        }
        return outcome;
    }

    private Outcome update(String sql, long id, String by, String what) {
        try (Connection connection = database.dataSource().getConnection();
             PreparedStatement update = connection.prepareStatement(sql)) {
            update.setString(1, by);
            update.setLong(2, id);
            try (ResultSet rs = update.executeQuery()) {
                if (rs.next()) {
                    OutboxMessage.OUTBOX0205I.log(String.valueOf(id), rs.getString(1), what, by);
                    return Outcome.DONE;
                }
            }
            try (PreparedStatement exists = connection.prepareStatement("SELECT 1 FROM outbox WHERE id = ?")) {
                exists.setLong(1, id);
                try (ResultSet rs = exists.executeQuery()) {
                    return rs.next() ? Outcome.NOT_PENDING : Outcome.NOT_FOUND;
                }
            }
        } catch (SQLException e) {
            throw new OutboxException("outbox row " + id + " could not be " + what + ": " + e.getMessage(), e);
        }
    }
}
