package io.github.jakartainbox.inbox.deadletter;

import io.github.jakartainbox.inbox.database.InboxDatabase;
import io.github.jakartainbox.inbox.deadletter.internal.DeadLetterStore;
import io.github.jakartainbox.testing.TestDatabases;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.util.ArrayList;
import java.util.List;
import org.flywaydb.core.Flyway;
import org.junit.jupiter.api.Test;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * Schema V9 on PostgreSQL (database inbox_dead_letter_schema_it, made afresh): a dead letter with an event id is one
 * row per consumer, event id and payload, so a second payload under a dead-lettered event id keeps a row of its own
 * (until V8 it overwrote the first one's payload), and the rows written before V7 get their payload's hash.
 */
class DeadLetterSchemaIT {

    private static final String DB = "inbox_dead_letter_schema_it";

    private static Flyway flyway(PGSimpleDataSource db, String target) {
        return Flyway.configure(InboxDatabase.class.getClassLoader())
                .configuration(InboxDatabase.flyway(db, false).getConfiguration()).target(target).load();
    }

    private static byte[] sha256(byte[] bytes) throws Exception {
        return MessageDigest.getInstance("SHA-256").digest(bytes);
    }

    /** Runs the store's statement for an event with an id, as {@link DeadLetterStore} does. */
    private static void record(Connection c, String eventId, String payload) throws Exception {
        record(c, "billing", eventId, payload);
    }

    private static void record(Connection c, String consumer, String eventId, String payload) throws Exception {
        byte[] bytes = payload.getBytes(StandardCharsets.UTF_8);
        try (PreparedStatement insert = c.prepareStatement(DeadLetterStore.withHistory(DeadLetterStore.RECORD_SQL))) {
            insert.setBytes(1, sha256(bytes));
            insert.setString(2, payload);
            insert.setNull(3, Types.BINARY);
            insert.setString(4, consumer);
            insert.setString(5, eventId);
            insert.setString(6, "failed");
            insert.setInt(7, 1);
            insert.setBytes(8, sha256(bytes));
            insert.setInt(9, 1);
            insert.setString(10, "failed");
            insert.executeQuery().close();
        }
    }

    private static List<String> rows(Connection c, String eventId) throws SQLException {
        List<String> rows = new ArrayList<>();
        try (PreparedStatement select = c.prepareStatement("SELECT payload || ' ' || deliveries FROM inbox_dead_letter "
                + "LEFT JOIN inbox_dead_letter_payload USING (payload_ref) WHERE consumer = 'billing' AND event_id = ? ORDER BY id")) {
            select.setString(1, eventId);
            try (ResultSet rs = select.executeQuery()) {
                while (rs.next()) {
                    rows.add(rs.getString(1));
                }
            }
        }
        return rows;
    }

    @Test
    void eachPayloadUnderAnEventIdKeepsItsRowAndOldRowsGetTheirHash() throws Exception {
        PGSimpleDataSource db = TestDatabases.fresh(DB);
        flyway(db, "6").migrate(); // before V7: no payload_sha256 at all
        try (Connection c = db.getConnection(); var s = c.createStatement()) {
            s.execute("INSERT INTO inbox_dead_letter (consumer, event_id, payload, error, attempts) "
                    + "VALUES ('billing', 'text', '{\"a\":\"é\"}', 'e', 1), ('billing', 'none', NULL, 'e', 1), "
                    + "('billing', NULL, 'no id', 'e', 1), ('billing', NULL, 'no id', 'e', 1)");
            s.execute("INSERT INTO inbox_dead_letter (consumer, event_id, payload_bytes, error, attempts) "
                    + "VALUES ('billing', 'bytes', '\\xff00'::bytea, 'e', 1)");
        }
        flyway(db, "latest").migrate();
        try (Connection c = db.getConnection()) {
            assertArrayEquals(sha256("{\"a\":\"é\"}".getBytes(StandardCharsets.UTF_8)), hash(c, "text"));
            assertArrayEquals(sha256(new byte[] {(byte) 0xff, 0}), hash(c, "bytes"));
            assertArrayEquals(new byte[0], hash(c, "none"), "a row without a stored payload gets the empty hash");
            try (var s = c.createStatement(); ResultSet rs = s.executeQuery(
                    "SELECT count(*) FROM inbox_dead_letter WHERE event_id IS NULL AND payload_sha256 IS NULL")) {
                rs.next();
                assertEquals(2, rs.getInt(1), "rows without an event id are left as they are (two may be alike)");
            }

            record(c, "text", "{\"a\":\"é\"}"); // the old row's payload fails again: counted on it
            assertEquals(List.of("{\"a\":\"é\"} 2"), rows(c, "text"));

            String first = "{\"event_id\":\"e1\",\"amount\":\"1.00\"}";
            String second = "{\"event_id\":\"e1\",\"amount\":\"2.00\"}";
            String third = "{\"event_id\":\"e1\",\"amount\":\"3.00\"}";
            record(c, "e1", first);
            record(c, "e1", second);
            record(c, "e1", third);
            record(c, "e1", second);
            assertEquals(List.of(first + " 1", second + " 2", third + " 1"), rows(c, "e1"),
                    "each payload keeps its row; one delivered again counts on its own");
        }
    }

    /**
     * V14: a payload is stored once and shared. Rows written before it keep their payloads, text and bytes, those of
     * several consumers with the same bytes now share one; a row without a payload refers to none. After it the store
     * writes a 900 KB payload refused by two consumers once, in full.
     */
    @Test
    void version14StoresEachPayloadOnceAndMigratesTheRows() throws Exception {
        PGSimpleDataSource db = TestDatabases.fresh(DB);
        flyway(db, "12").migrate();
        String big = "{\"event_id\":\"big\",\"pad\":\"" + "x".repeat(900_000) + "\"}";
        try (Connection c = db.getConnection(); PreparedStatement insert = c.prepareStatement(
                "INSERT INTO inbox_dead_letter (consumer, event_id, payload, payload_bytes, error, attempts, "
                        + "payload_sha256) VALUES (?, ?, ?, ?, 'e', 1, ?)")) {
            Object[][] rows = {{"billing", "big", big, null}, {"analytics", "big", big, null},
                {"billing", "bytes", null, new byte[] {(byte) 0xff, 0}}, {"billing", "none", null, null}};
            for (Object[] row : rows) {
                insert.setString(1, (String) row[0]);
                insert.setString(2, (String) row[1]);
                insert.setString(3, (String) row[2]);
                insert.setBytes(4, (byte[]) row[3]);
                insert.setBytes(5, row[2] != null ? sha256(((String) row[2]).getBytes(StandardCharsets.UTF_8))
                        : row[3] != null ? sha256((byte[]) row[3]) : new byte[0]);
                insert.executeUpdate();
            }
        }
        flyway(db, "latest").migrate();
        try (Connection c = db.getConnection(); var s = c.createStatement()) {
            try (ResultSet rs = s.executeQuery("SELECT count(*), sum(octet_length(payload)) "
                    + "FROM inbox_dead_letter_payload WHERE payload IS NOT NULL")) {
                rs.next();
                assertEquals(1, rs.getInt(1), "the two consumers' rows of the big record share one payload");
                assertEquals(big.length(), rs.getLong(2), "nothing of it is cut");
            }
            try (ResultSet rs = s.executeQuery("SELECT consumer || '/' || event_id || ' ' || coalesce(octet_length("
                    + "payload)::text, encode(payload_bytes, 'hex'), 'none') FROM inbox_dead_letter "
                    + "LEFT JOIN inbox_dead_letter_payload USING (payload_ref) ORDER BY id")) {
                List<String> rows = new ArrayList<>();
                while (rs.next()) {
                    rows.add(rs.getString(1));
                }
                assertEquals(List.of("billing/big " + big.length(), "analytics/big " + big.length(), "billing/bytes ff00",
                        "billing/none none"), rows);
            }
            String other = big.replace("\"big\"", "\"big2\"");
            record(c, "billing", "big2", other);
            record(c, "analytics", "big2", other);
            record(c, "billing", "big2", other); // delivered again: counted on its row
            try (ResultSet rs = s.executeQuery("SELECT (SELECT count(*) FROM inbox_dead_letter WHERE event_id = 'big2'), "
                    + "(SELECT count(*) FROM inbox_dead_letter_payload WHERE payload LIKE '{\"event_id\":\"big2\"%'), "
                    + "(SELECT octet_length(payload) FROM inbox_dead_letter_payload WHERE payload LIKE "
                    + "'{\"event_id\":\"big2\"%')")) {
                rs.next();
                assertEquals(2, rs.getInt(1), "one dead letter per consumer");
                assertEquals(1, rs.getInt(2), "one payload for both");
                assertEquals(other.length(), rs.getLong(3), "stored whole");
            }
        }
    }

    /**
     * V10: a re-drive claim's columns, and the failure key the groups are made of: the message id at the start of the
     * error, else the exception class there, else "other" (PostgreSQL's regular expressions, as run by the groups).
     */
    @Test
    void version10AddsTheReDriveClaimAndTheFailureKeyNamesTheFailure() throws Exception {
        PGSimpleDataSource db = TestDatabases.fresh(DB);
        flyway(db, "latest").migrate();
        try (Connection c = db.getConnection()) {
            try (var s = c.createStatement()) {
                s.execute("SELECT redrive_claimed_at, redrive_claimed_by FROM inbox_dead_letter WHERE false");
            }
            String[][] cases = {
                {"BILLING0130E: amount ...", "BILLING0130E"},
                {"INBOX0208E: the database refused ...; caused by org.postgresql.util.PSQLException: x", "INBOX0208E"},
                {"payload not stored (INBOX0208E: too long)", "INBOX0208E"},
                {"java.lang.IllegalStateException: boom", "java.lang.IllegalStateException"},
                {"java.lang.NullPointerException", "java.lang.NullPointerException"},
                {"payload not stored (java.lang.RuntimeException: x)", "java.lang.RuntimeException"},
                {"simulated failure", "other"},
                {"BILLING0130E is mentioned, not leading: x", "other"}};
            for (String[] c2 : cases) {
                try (PreparedStatement key = c.prepareStatement("SELECT " + InboxDeadLetters.FAILURE_KEY
                        + " FROM (VALUES (?::text)) AS t(error)")) {
                    key.setString(1, c2[0]);
                    try (ResultSet rs = key.executeQuery()) {
                        rs.next();
                        assertEquals(c2[1], rs.getString(1), c2[0]);
                    }
                }
            }
        }
    }

    private static byte[] hash(Connection c, String eventId) throws SQLException {
        try (PreparedStatement select = c.prepareStatement(
                "SELECT payload_sha256 FROM inbox_dead_letter WHERE consumer = 'billing' AND event_id = ?")) {
            select.setString(1, eventId);
            try (ResultSet rs = select.executeQuery()) {
                rs.next();
                return rs.getBytes(1);
            }
        }
    }
}
