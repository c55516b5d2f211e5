package io.github.jakartainbox.inbox.retention;

import io.github.jakartainbox.inbox.database.InboxDatabase;
import io.github.jakartainbox.testing.TestDatabases;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * The purge's batch on a real PostgreSQL (database inbox_purge_statements_it, made afresh): the batch's DELETE is
 * planned for each execution, so a plan made while the inbox was small is not kept once it has grown. Kept on a
 * pooled connection with autovacuum off (nothing analyzes the table again), such a plan scans the whole table for
 * every batch: 20 s a batch at a million rows.
 *
 * <p>Whether PostgreSQL prefers the generic plan after five custom ones depends on its cost estimates for the data at
 * hand; in Liberty it did, on this small table it may not. So the connections here take the generic plan whenever
 * PostgreSQL would reuse one ({@code SET plan_cache_mode = force_generic_plan} for the session), which is the case
 * the purge must survive.
 */
class PurgeStatementsIT {

    private static final String DB = "inbox_purge_statements_it";
    private static final Duration RETENTION = Duration.ofDays(14);
    private static PGSimpleDataSource db;

    @BeforeAll
    static void inbox() throws SQLException {
        db = TestDatabases.fresh(DB);
        InboxDatabase.flyway(db, false).migrate();
    }

    private static void seedExpired(Connection c, String consumer, int count) throws SQLException {
        try (PreparedStatement insert = c.prepareStatement("INSERT INTO inbox (consumer, event_id, processed_at) "
                + "SELECT ?, 'e-' || g, now() - interval '30 days' FROM generate_series(1, ?) g")) {
            insert.setString(1, consumer);
            insert.setInt(2, count);
            insert.executeUpdate();
        }
    }

    /** One batch in its own transaction, as {@link InboxPurge} runs it; {@code customPlans} as the fix does. */
    private static int batch(Connection c, String consumer, int size, boolean customPlans) throws SQLException {
        c.setAutoCommit(false);
        try {
            if (customPlans) {
                PurgeStatements.customPlans(c);
            }
            int deleted = PurgeStatements.deleteBatch(c, consumer, RETENTION, size);
            c.commit();
            return deleted;
        } finally {
            c.setAutoCommit(true);
        }
    }

    /** A connection on which PostgreSQL reuses a generic plan once a statement is prepared, as a pooled one does. */
    private static Connection preferringGenericPlans() throws SQLException {
        Connection c = db.getConnection();
        try (var s = c.createStatement()) {
            s.execute("SET plan_cache_mode = force_generic_plan");
        }
        return c;
    }

    /** @return {generic plans, custom plans} of this connection's server-prepared batch DELETE */
    private static long[] plans(Connection c) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("SELECT generic_plans, custom_plans FROM pg_prepared_statements "
                + "WHERE statement LIKE 'DELETE FROM inbox WHERE ctid%'");
             ResultSet rs = ps.executeQuery()) {
            assertTrue(rs.next(), "the batch DELETE is server-prepared on this connection (pgjdbc prepareThreshold)");
            return new long[] {rs.getLong(1), rs.getLong(2)};
        }
    }

    @Test
    void theBatchIsPlannedForEachExecutionNotFromACachedGenericPlan() throws SQLException {
        try (Connection fixed = preferringGenericPlans(); Connection control = preferringGenericPlans()) {
            seedExpired(fixed, "small", 300);
            for (int i = 0; i < 15; i++) {
                assertEquals(10, batch(fixed, "small", 10, true));
                assertEquals(10, batch(control, "small", 10, false));
            }
            long[] control15 = plans(control);
            assertTrue(control15[0] > 0, "control: without the purge's SET LOCAL the batch runs from a generic plan "
                    + "(else this test no longer shows anything): generic " + control15[0] + ", custom " + control15[1]);
            long[] fixed15 = plans(fixed);
            assertEquals(0, fixed15[0], "generic plans of the purge's batch");
            assertTrue(fixed15[1] >= 10, "custom plans of the purge's batch: " + fixed15[1]);
        }
    }

    @Test
    void aBatchPlannedOnASmallInboxStillPurgesItOnceItHasGrown() throws SQLException {
        try (Connection c = preferringGenericPlans()) {
            seedExpired(c, "growing", 100);
            for (int i = 0; i < 10; i++) {
                batch(c, "growing", 10, true);
            }
            seedExpired(c, "growing", 200_000);
            int batches = 0;
            long deleted = 0;
            int last;
            do {
                last = batch(c, "growing", 5_000, true);
                deleted += last;
                batches++;
            } while (last == 5_000);
            assertEquals(200_000, deleted);
            assertEquals(41, batches, "40 full batches and the empty one that ends the run");
            try (PreparedStatement ps = c.prepareStatement("SELECT count(*) FROM inbox WHERE consumer = 'growing'");
                 ResultSet rs = ps.executeQuery()) {
                rs.next();
                assertEquals(0, rs.getLong(1));
            }
        }
    }
}
