package io.github.jakartainbox.outbox;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.github.jakartainbox.inbox.database.InboxDatabase;
import io.github.jakartainbox.testing.TestDatabases;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import org.flywaydb.core.Flyway;
import org.junit.jupiter.api.Test;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * The outbox's tables are the outbox jar's (database outbox_schema_it, made afresh for each test): the inbox's
 * migrations make none, the outbox's make them, and a database where an earlier build's inbox migration V8 made them
 * stays valid for both.
 */
class OutboxSchemaIT {

    private static final String DB = "outbox_schema_it";

    @Test
    void theInboxMakesNoOutboxTableAndTheOutboxMakesItsOwn() throws Exception {
        PGSimpleDataSource db = TestDatabases.fresh(DB);
        InboxDatabase.flyway(db, false).migrate();
        try (Connection c = db.getConnection(); Statement s = c.createStatement()) {
            assertNull(text(s, "SELECT to_regclass('outbox')::text"), "the inbox's migrations made table outbox");
            assertNull(text(s, "SELECT to_regclass('outbox_relay_state')::text"));
        }
        OutboxDatabase.flyway(db).migrate();
        try (Connection c = db.getConnection(); Statement s = c.createStatement()) {
            assertEquals("outbox", text(s, "SELECT to_regclass('outbox')::text"));
            assertEquals("outbox", text(s, "SELECT id FROM outbox_relay_state"));
            assertEquals("1", text(s, "SELECT string_agg(version, ',') FROM outbox_schema_history WHERE success "
                    + "AND version IS NOT NULL AND type = 'SQL'"));
        }
    }

    /**
     * A database of an earlier build: the inbox's history holds version 8, which made the outbox's tables and is no
     * longer shipped, and the outbox holds a row. Both Flyways migrate; the row and the relay's lease stay.
     */
    @Test
    void aDatabaseWhoseInboxMadeTheOutboxStaysValid() throws Exception {
        PGSimpleDataSource db = TestDatabases.fresh(DB);
        Flyway.configure(InboxDatabase.class.getClassLoader())
                .configuration(InboxDatabase.flyway(db, false).getConfiguration()).target("7").load().migrate();
        try (Connection c = db.getConnection(); Statement s = c.createStatement()) {
            // what the former V8__outbox.sql made, and its row in the inbox's history
            s.execute("CREATE TABLE outbox (id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, event_id uuid NOT NULL "
                    + "UNIQUE, topic text NOT NULL, record_key text, payload text NOT NULL, headers jsonb NOT NULL "
                    + "DEFAULT '{}', created_at timestamptz NOT NULL DEFAULT now(), delivered_at timestamptz, "
                    + "attempts integer NOT NULL DEFAULT 0, next_attempt_at timestamptz, last_error text, "
                    + "last_failed_at timestamptz, given_up_at timestamptz, resolved_by text)");
            s.execute("CREATE TABLE outbox_relay_state (id text PRIMARY KEY, owner text, leased_until timestamptz, "
                    + "total_delivered bigint NOT NULL DEFAULT 0)");
            s.execute("INSERT INTO outbox_relay_state (id, owner, total_delivered) VALUES ('outbox', 'server-a', 41)");
            s.execute("INSERT INTO outbox (event_id, topic, payload) VALUES (gen_random_uuid(), 'invoices.issued', "
                    + "'{}')");
            s.execute("INSERT INTO inbox_schema_history (installed_rank, version, description, type, script, "
                    + "checksum, installed_by, execution_time, success) SELECT max(installed_rank) + 1, '8', 'outbox', "
                    + "'SQL', 'V8__outbox.sql', 1234567, 'earlier build', 1, true FROM inbox_schema_history");
        }
        InboxDatabase.flyway(db, false).migrate();
        OutboxDatabase.flyway(db).migrate();
        try (Connection c = db.getConnection(); Statement s = c.createStatement()) {
            assertEquals("1", text(s, "SELECT count(*) FROM outbox"), "the row of the earlier build is kept");
            assertEquals("server-a 41", text(s, "SELECT owner || ' ' || total_delivered FROM outbox_relay_state"));
            assertEquals("1", text(s, "SELECT string_agg(version, ',') FROM outbox_schema_history WHERE success "
                    + "AND version IS NOT NULL AND type = 'SQL'"));
            assertEquals("inbox_kafka_offset", text(s, "SELECT to_regclass('inbox_kafka_offset')::text"),
                    "the inbox's later versions are applied past the one it no longer ships");
        }
        InboxDatabase.flyway(db, false).validate();
    }

    private static String text(Statement statement, String sql) throws SQLException {
        try (ResultSet rs = statement.executeQuery(sql)) {
            return rs.next() ? rs.getString(1) : null;
        }
    }
}
