package io.github.jakartainbox.outbox;

import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

/** The relay's SQL, each method one statement on a connection in auto-commit mode. */
final class RelayStatements {

    /** One row as the relay reads it. {@code due}: its backoff (if any) has passed. */
    record Row(long id, UUID eventId, String topic, String key, String payload, String headersJson, int attempts,
               boolean due) {
    }

    /** Takes the lease when free or expired, or renews it for its owner. */
    static final String LEASE_SQL = "UPDATE outbox_relay_state SET owner = ?, "
            + "leased_until = now() + make_interval(secs => ?) "
            + "WHERE id = 'outbox' AND (owner IS NULL OR owner = ? OR leased_until < now())";

    static final String RELEASE_SQL = "UPDATE outbox_relay_state SET owner = NULL, leased_until = NULL "
            + "WHERE id = 'outbox' AND owner = ?";

    static final String PENDING_SQL = "SELECT id, event_id, topic, record_key, payload, headers::text, attempts, "
            + "(next_attempt_at IS NULL OR next_attempt_at <= now()) FROM outbox "
            + "WHERE delivered_at IS NULL AND given_up_at IS NULL ORDER BY id LIMIT ?";

    static final String DELIVERED_SQL = "WITH d AS (UPDATE outbox SET delivered_at = now() "
            + "WHERE id = ANY (?) AND delivered_at IS NULL RETURNING 1) "
            + "UPDATE outbox_relay_state SET total_delivered = total_delivered + (SELECT count(*) FROM d) "
            + "WHERE id = 'outbox'";

    static final String FAILED_SQL = "UPDATE outbox SET attempts = attempts + 1, last_error = ?, "
            + "last_failed_at = now(), next_attempt_at = now() + make_interval(secs => ?) WHERE id = ?";

    private RelayStatements() {
    }

    /** @return whether {@code owner} holds the lease now, for {@code lease} from now */
    static boolean lease(Connection connection, String owner, Duration lease) throws SQLException {
        try (PreparedStatement update = connection.prepareStatement(LEASE_SQL)) {
            update.setString(1, owner);
            update.setDouble(2, lease.toMillis() / 1000.0);
            update.setString(3, owner);
            return update.executeUpdate() == 1;
        }
    }

    static void release(Connection connection, String owner) throws SQLException {
        try (PreparedStatement update = connection.prepareStatement(RELEASE_SQL)) {
            update.setString(1, owner);
            update.executeUpdate();
        }
    }

    /** @return the first {@code limit} rows neither delivered nor given up, in id order */
    static List<Row> pending(Connection connection, int limit) throws SQLException {
        List<Row> rows = new ArrayList<>();
        try (PreparedStatement select = connection.prepareStatement(PENDING_SQL)) {
            select.setInt(1, limit);
            try (ResultSet rs = select.executeQuery()) {
                while (rs.next()) {
                    rows.add(new Row(rs.getLong(1), rs.getObject(2, UUID.class), rs.getString(3), rs.getString(4),
                            rs.getString(5), rs.getString(6), rs.getInt(7), rs.getBoolean(8)));
                }
            }
        }
        return rows;
    }

    static void delivered(Connection connection, List<Long> ids) throws SQLException {
        if (ids.isEmpty()) {
            return;
        }
        try (PreparedStatement update = connection.prepareStatement(DELIVERED_SQL)) {
            Array array = connection.createArrayOf("bigint", ids.toArray());
            update.setArray(1, array);
            update.executeUpdate();
        }
    }

    static void failed(Connection connection, long id, String error, Duration backoff) throws SQLException {
        try (PreparedStatement update = connection.prepareStatement(FAILED_SQL)) {
            update.setString(1, error == null ? null : error.replace('\0', '\uFFFD'));
            update.setDouble(2, backoff.toMillis() / 1000.0);
            update.setLong(3, id);
            update.executeUpdate();
        }
    }
}
