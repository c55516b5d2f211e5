package io.github.jakartainbox.inbox.deadletter.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.github.jakartainbox.inbox.database.InboxDatabase;
import io.github.jakartainbox.testing.TestDatabases;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * The purge of resolved dead letters on a real PostgreSQL (database inbox_dead_letter_purge_it, made afresh for each
 * test, schema by the library's migrations): what goes after the retention, with its history and payload, and what
 * stays: open rows, younger ones, rows a key's sequence refers to, payloads other rows share.
 */
class DeadLetterPurgeTaskIT {

    private static final String DB = "inbox_dead_letter_purge_it";
    private static final Duration RETENTION = Duration.ofDays(30);
    private PGSimpleDataSource db;

    @BeforeEach
    void inbox() throws SQLException {
        db = TestDatabases.fresh(DB);
        InboxDatabase.flyway(db, false).migrate();
    }

    /** Stores {@code payload} once (as the inbox does) and a dead letter of it, resolved {@code resolved} ago. */
    private long deadLetter(Connection c, String payload, String resolvedColumn, String age) throws SQLException {
        byte[] ref = DeadLetterStore.sha256(payload.getBytes(StandardCharsets.UTF_8));
        try (PreparedStatement p = c.prepareStatement("INSERT INTO inbox_dead_letter_payload (payload_ref, payload) "
                + "VALUES (?, ?) ON CONFLICT DO NOTHING")) {
            p.setBytes(1, ref);
            p.setString(2, payload);
            p.executeUpdate();
        }
        String resolved = resolvedColumn == null ? "" : ", " + resolvedColumn;
        try (PreparedStatement d = c.prepareStatement("INSERT INTO inbox_dead_letter (consumer, event_id, payload_ref, "
                + "payload_sha256, error, attempts" + resolved + ") VALUES ('billing', gen_random_uuid()::text, ?, ?, "
                + "'boom', 3" + (resolvedColumn == null ? "" : ", now() - CAST(? AS interval)") + ") RETURNING id")) {
            d.setBytes(1, ref);
            d.setBytes(2, ref);
            if (resolvedColumn != null) {
                d.setString(3, age);
            }
            try (ResultSet rs = d.executeQuery()) {
                rs.next();
                long id = rs.getLong(1);
                execute(c, "INSERT INTO inbox_dead_letter_history (dead_letter_id, kind, attempts, error) "
                        + "VALUES (" + id + ", 'failed', 3, 'boom')");
                return id;
            }
        }
    }

    private static void execute(Connection c, String sql) throws SQLException {
        try (PreparedStatement s = c.prepareStatement(sql)) {
            s.executeUpdate();
        }
    }

    private static long count(Connection c, String sql) throws SQLException {
        try (PreparedStatement s = c.prepareStatement(sql); ResultSet rs = s.executeQuery()) {
            rs.next();
            return rs.getLong(1);
        }
    }

    private static List<Long> ids(Connection c) throws SQLException {
        List<Long> ids = new ArrayList<>();
        try (PreparedStatement s = c.prepareStatement("SELECT id FROM inbox_dead_letter ORDER BY id");
             ResultSet rs = s.executeQuery()) {
            while (rs.next()) {
                ids.add(rs.getLong(1));
            }
        }
        return ids;
    }

    @Test
    void resolvedRowsOlderThanTheRetentionGoWithTheirHistoryAndPayloadTheOthersStay() throws SQLException {
        try (Connection c = db.getConnection()) {
            long redriven = deadLetter(c, "{\"a\":1}", "redriven_at", "31 days");
            long discarded = deadLetter(c, "{\"b\":2}", "discarded_at", "40 days");
            long young = deadLetter(c, "{\"c\":3}", "redriven_at", "29 days");
            long open = deadLetter(c, "{\"d\":4}", null, null);
            execute(c, "UPDATE inbox_dead_letter SET first_failed_at = now() - interval '90 days', "
                    + "last_failed_at = now() - interval '90 days' WHERE id = " + open);
            // a payload shared by an old resolved row and an open one: the open one keeps it
            long sharedOld = deadLetter(c, "{\"e\":5}", "discarded_at", "60 days");
            long sharedOpen = deadLetter(c, "{\"e\":5}", null, null);

            assertEquals(3, DeadLetterPurgeTask.deleteBatch(c, RETENTION, 100), "three rows past the retention");
            assertEquals(List.of(young, open, sharedOpen), ids(c), "deleted " + redriven + ", " + discarded + ", "
                    + sharedOld);
            assertEquals(3, count(c, "SELECT count(*) FROM inbox_dead_letter_history"), "their history went with them");
            assertEquals(3, count(c, "SELECT count(*) FROM inbox_dead_letter_payload"),
                    "payloads c, d and the shared e stay; a and b went");
            assertEquals(0, count(c, "SELECT count(*) FROM inbox_dead_letter d LEFT JOIN inbox_dead_letter_payload p "
                    + "USING (payload_ref) WHERE p.payload_ref IS NULL"), "every remaining row has its payload");
            assertEquals(0, DeadLetterPurgeTask.deleteBatch(c, RETENTION, 100), "nothing more to delete");
        }
    }

    @Test
    void rowsAndPayloadsThatAKeysSequenceRefersToStay() throws SQLException {
        try (Connection c = db.getConnection()) {
            long head = deadLetter(c, "{\"head\":1}", "discarded_at", "40 days");
            long parkedHead = deadLetter(c, "{\"parked-head\":1}", "discarded_at", "40 days");
            long sharesParked = deadLetter(c, "{\"parked\":1}", "discarded_at", "40 days");
            long sequence = count(c, "INSERT INTO inbox_key_sequence (consumer, record_key, head_dead_letter_id) "
                    + "VALUES ('billing', 'order-1', " + head + ") RETURNING id");
            execute(c, "INSERT INTO inbox_parked (sequence_id, dead_letter_id, topic, kafka_partition, kafka_offset, "
                    + "payload_ref) SELECT " + sequence + ", id, 'orders', 0, 1, payload_ref FROM inbox_dead_letter "
                    + "WHERE id = " + parkedHead);
            execute(c, "INSERT INTO inbox_parked (sequence_id, topic, kafka_partition, kafka_offset, payload_ref) "
                    + "SELECT " + sequence + ", 'orders', 0, 2, payload_ref FROM inbox_dead_letter WHERE id = "
                    + sharesParked);

            assertEquals(1, DeadLetterPurgeTask.deleteBatch(c, RETENTION, 100), "only the row no sequence names");
            assertEquals(List.of(head, parkedHead), ids(c));
            assertEquals(3, count(c, "SELECT count(*) FROM inbox_dead_letter_payload"),
                    "the payload of the deleted row stays: a parked record holds it");
        }
    }

    @Test
    void aBatchDeletesAtMostItsSize() throws SQLException {
        try (Connection c = db.getConnection()) {
            for (int i = 0; i < 5; i++) {
                deadLetter(c, "{\"n\":" + i + "}", "redriven_at", "31 days");
            }
            assertEquals(2, DeadLetterPurgeTask.deleteBatch(c, RETENTION, 2));
            assertEquals(2, DeadLetterPurgeTask.deleteBatch(c, RETENTION, 2));
            assertEquals(1, DeadLetterPurgeTask.deleteBatch(c, RETENTION, 2));
            assertEquals(0, count(c, "SELECT count(*) FROM inbox_dead_letter_payload"));
        }
    }
}
