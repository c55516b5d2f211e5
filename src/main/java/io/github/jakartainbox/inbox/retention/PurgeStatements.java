package io.github.jakartainbox.inbox.retention;

import io.github.jakartainbox.inbox.eventid.EventMonths;
import io.github.jakartainbox.inbox.failure.Failures;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;

/**
 * The SQL of the retention purge, each method one short unit of work on the given connection (the caller owns the
 * transaction). Used by {@link InboxPurge} inside JTA transactions and by the purge benchmark over plain JDBC.
 */
final class PurgeStatements {

    /** Distinct consumers by skip scan over the primary key: one index probe per consumer, not a table scan. */
    static final String CONSUMERS_SQL = "WITH RECURSIVE c(consumer) AS ("
            + "SELECT min(consumer) FROM inbox UNION ALL "
            + "SELECT (SELECT min(i.consumer) FROM inbox i WHERE i.consumer > c.consumer) FROM c WHERE c.consumer IS NOT NULL"
            + ") SELECT consumer FROM c WHERE consumer IS NOT NULL";

    /** One batch: rows locked by nobody else (SKIP LOCKED), so a second purger or a consumer never waits on it. */
    static final String DELETE_BATCH_SQL = "DELETE FROM inbox WHERE ctid = ANY (ARRAY("
            + "SELECT ctid FROM inbox WHERE consumer = ? AND processed_at < now() - make_interval(secs => ?) "
            + "LIMIT ? FOR UPDATE SKIP LOCKED))";

    static final String ACQUIRE_SQL = "UPDATE inbox_purge_state SET owner = ?, "
            + "leased_until = now() + make_interval(secs => ?), last_started_at = now() "
            + "WHERE id = 'inbox' AND (leased_until IS NULL OR leased_until < now())";

    static final String RENEW_SQL = "UPDATE inbox_purge_state SET leased_until = now() + make_interval(secs => ?) "
            + "WHERE id = 'inbox' AND owner = ?";

    static final String SUCCEEDED_SQL = "UPDATE inbox_purge_state SET owner = NULL, leased_until = NULL, "
            + "last_finished_at = now(), last_deleted = ?, total_deleted = total_deleted + ?, "
            + "total_batches = total_batches + ?, last_error = NULL, last_error_at = NULL "
            + "WHERE id = 'inbox' AND owner = ?";

    static final String FAILED_SQL = "UPDATE inbox_purge_state SET owner = NULL, leased_until = NULL, "
            + "total_deleted = total_deleted + ?, total_batches = total_batches + ?, last_error = ?, "
            + "last_error_at = now() WHERE id = 'inbox' AND owner = ?";

    /**
     * Plans each of the transaction's statements for the parameters and the table size of that execution. A
     * server-prepared statement (pgjdbc prepares one after {@code prepareThreshold}, 5, uses on a connection, and
     * Liberty's pool keeps connections and their statements) otherwise switches to a generic plan that it keeps
     * until the table is analyzed again (PostgreSQL docs, "PREPARE", Notes, and {@code plan_cache_mode}). A purge
     * that ran a few times on a small inbox then kept a plan made for a few rows: in CI, with autovacuum off, the
     * batch's DELETE scanned the whole table and compared every row with the batch's 5,000 row ids, 20 s a batch
     * once a million rows had come. Costs one round trip per batch.
     */
    static final String CUSTOM_PLANS_SQL = "SET LOCAL plan_cache_mode = force_custom_plan";

    static final String PARTITIONS_SQL = "SELECT c.relname FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid "
            + "WHERE i.inhparent = 'inbox'::regclass";

    private PurgeStatements() {
    }

    static List<String> consumers(Connection connection) throws SQLException {
        List<String> consumers = new ArrayList<>();
        try (Statement statement = connection.createStatement(); ResultSet rs = statement.executeQuery(CONSUMERS_SQL)) {
            while (rs.next()) {
                consumers.add(rs.getString(1));
            }
        }
        return consumers;
    }

    /**
     * Makes the rest of the caller's transaction plan every statement for its own execution
     * ({@link #CUSTOM_PLANS_SQL}). Must run in a transaction ({@code SET LOCAL}).
     */
    static void customPlans(Connection connection) throws SQLException {
        try (Statement statement = connection.createStatement()) {
            statement.execute(CUSTOM_PLANS_SQL);
        }
    }

    /**
     * @param retention rows processed longer ago than this (by the database's clock) are deleted
     * @return the number of rows deleted, 0 when none of the consumer's rows is older
     */
    static int deleteBatch(Connection connection, String consumer, Duration retention, int batchSize)
            throws SQLException {
        try (PreparedStatement delete = connection.prepareStatement(DELETE_BATCH_SQL)) {
            delete.setString(1, consumer);
            delete.setDouble(2, retention.toMillis() / 1000.0);
            delete.setInt(3, batchSize);
            return delete.executeUpdate();
        }
    }

    /** @return whether this owner now holds the lease */
    static boolean acquire(Connection connection, String owner, Duration lease) throws SQLException {
        try (PreparedStatement update = connection.prepareStatement(ACQUIRE_SQL)) {
            update.setString(1, owner);
            update.setDouble(2, lease.toMillis() / 1000.0);
            return update.executeUpdate() == 1;
        }
    }

    /** @return whether this owner still holds the lease */
    static boolean renew(Connection connection, String owner, Duration lease) throws SQLException {
        try (PreparedStatement update = connection.prepareStatement(RENEW_SQL)) {
            update.setDouble(1, lease.toMillis() / 1000.0);
            update.setString(2, owner);
            return update.executeUpdate() == 1;
        }
    }

    static void release(Connection connection, String owner, long deleted, long batches, String error)
            throws SQLException {
        try (PreparedStatement update = connection.prepareStatement(error == null ? SUCCEEDED_SQL : FAILED_SQL)) {
            int i = 1;
            if (error == null) {
                update.setLong(i++, deleted);
            }
            update.setLong(i++, deleted);
            update.setLong(i++, batches);
            if (error != null) {
                update.setString(i++, Failures.storable(error));
            }
            update.setString(i, owner);
            update.executeUpdate();
        }
    }

    /** @return the months that have a partition, in order */
    static List<LocalDate> partitionMonths(Connection connection) throws SQLException {
        List<LocalDate> months = new ArrayList<>();
        try (Statement statement = connection.createStatement(); ResultSet rs = statement.executeQuery(PARTITIONS_SQL)) {
            while (rs.next()) {
                LocalDate month = EventMonths.monthOfPartition(rs.getString(1));
                if (month != null) {
                    months.add(month);
                }
            }
        }
        months.sort(null);
        return months;
    }

    /**
     * Creates a month's partition, waiting at most {@code lockTimeout} for the lock on the parent table.
     * Must run in a transaction (the lock timeout is {@code SET LOCAL}).
     */
    static void createPartition(Connection connection, LocalDate month, Duration lockTimeout) throws SQLException {
        try (Statement statement = connection.createStatement()) {
            statement.execute("SET LOCAL lock_timeout = " + lockTimeout.toMillis());
            // names and bounds come from a LocalDate, never from input
            statement.execute("CREATE TABLE IF NOT EXISTS " + EventMonths.partitionName(month)
                    + " PARTITION OF inbox FOR VALUES FROM ('" + month + "') TO ('" + month.plusMonths(1) + "')");
        }
    }

    /**
     * Detaches and drops a month's partition: every row in it goes at once, without a mass DELETE.
     * Must run in a transaction (the lock timeout is {@code SET LOCAL}).
     *
     * @return the number of rows the partition held (estimated from statistics)
     */
    static long dropPartition(Connection connection, LocalDate month, Duration lockTimeout) throws SQLException {
        String name = EventMonths.partitionName(month);
        long rows = 0;
        try (PreparedStatement estimate = connection.prepareStatement(
                "SELECT greatest(reltuples, 0)::bigint FROM pg_class WHERE relname = ?")) {
            estimate.setString(1, name);
            try (ResultSet rs = estimate.executeQuery()) {
                if (rs.next()) {
                    rows = rs.getLong(1);
                }
            }
        }
        try (Statement statement = connection.createStatement()) {
            // DDL takes no bind parameters: the name comes from a LocalDate (EventMonths.partitionName), never input
            statement.execute("SET LOCAL lock_timeout = " + lockTimeout.toMillis());
            statement.execute("ALTER TABLE inbox DETACH PARTITION " + name);
            statement.execute("DROP TABLE " + name);
        }
        return rows;
    }
}
