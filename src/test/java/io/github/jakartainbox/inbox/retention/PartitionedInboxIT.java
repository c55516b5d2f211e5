package io.github.jakartainbox.inbox.retention;

import io.github.jakartainbox.inbox.UnprocessableEventException;
import io.github.jakartainbox.inbox.incoming.Delivery;
import io.github.jakartainbox.inbox.claim.InboxClaim;
import io.github.jakartainbox.inbox.database.InboxDatabase;
import io.github.jakartainbox.inbox.eventid.EventMonths;
import io.github.jakartainbox.inbox.eventid.EventTimeSource;
import io.github.jakartainbox.testing.TestDatabases;
import io.github.jakartainbox.testing.UuidV7;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * Partitioned mode on a real PostgreSQL (database inbox_partitioned_it, made afresh): the migration from plain
 * mode keeps the rows, a redelivery across a month boundary is still a duplicate, expired months are dropped and
 * the next ones created, with the library's own statements.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class PartitionedInboxIT {

    private static final String DB = "inbox_partitioned_it";
    private static PGSimpleDataSource dataSource;
    private static final Instant NOW = Instant.now();
    private static final LocalDate THIS_MONTH = EventMonths.monthOf(NOW);
    private static final String OLD_V7 = UuidV7.at(NOW.minus(Duration.ofDays(200)));
    private static final String OLD_V4 = UUID.randomUUID().toString();

    @BeforeAll
    static void plainInboxWithRows() throws SQLException {
        dataSource = TestDatabases.fresh(DB);
        InboxDatabase.flyway(dataSource, false).migrate();
        update("INSERT INTO inbox (consumer, event_id, processed_at) VALUES ('billing', ?, now() - interval '200 days'),"
                + " ('billing', ?, now() - interval '3 days'), ('analytics', 'order-42', now())", OLD_V7, OLD_V4);
    }


    private static int update(String sql, Object... params) throws SQLException {
        try (Connection c = dataSource.getConnection(); PreparedStatement ps = c.prepareStatement(sql)) {
            for (int i = 0; i < params.length; i++) {
                ps.setObject(i + 1, params[i]);
            }
            return ps.executeUpdate();
        }
    }

    private static String text(String sql, Object... params) throws SQLException {
        try (Connection c = dataSource.getConnection(); PreparedStatement ps = c.prepareStatement(sql)) {
            for (int i = 0; i < params.length; i++) {
                ps.setObject(i + 1, params[i]);
            }
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? rs.getString(1) : null;
            }
        }
    }

    /** The library's claim statement, in autocommit. */
    private static int claim(String consumer, String eventId, LocalDate month) throws SQLException {
        try (Connection c = dataSource.getConnection()) {
            return InboxClaim.insert(c, consumer, eventId, null, month) ? 1 : 0;
        }
    }

    /** Runs statements in one transaction, as InboxPurge does inside JTA. */
    private static <T> T inTransaction(PurgeStatementsWork<T> work) throws SQLException {
        try (Connection c = dataSource.getConnection()) {
            c.setAutoCommit(false);
            T result = work.on(c);
            c.commit();
            return result;
        }
    }

    @FunctionalInterface
    interface PurgeStatementsWork<T> {
        T on(Connection c) throws SQLException;
    }

    @Test
    @Order(1)
    void migrationToMonthlyPartitionsKeepsExistingRows() throws SQLException {
        InboxDatabase.flyway(dataSource, true).migrate();
        assertEquals("p", text("SELECT relkind FROM pg_class WHERE relname = 'inbox'"), "inbox is partitioned");
        assertEquals("3", text("SELECT count(*) FROM inbox"));
        assertEquals(EventMonths.monthOf(EventMonths.uuidV7Time(OLD_V7)).toString(),
                text("SELECT event_month FROM inbox WHERE event_id = ?", OLD_V7), "a UUIDv7 row goes to its event's month");
        assertEquals(EventMonths.monthOf(NOW.minus(Duration.ofDays(3))).toString(),
                text("SELECT event_month FROM inbox WHERE event_id = ?", OLD_V4),
                "other rows go to the month they were processed in");
        assertEquals(0, claim("billing", OLD_V7, EventMonths.monthOf(EventMonths.uuidV7Time(OLD_V7))),
                "a migrated event is still a duplicate");
        for (int i = 0; i <= 3; i++) {
            assertTrue(PurgeStatementsMonths.existing(dataSource).contains(THIS_MONTH.plusMonths(i)));
        }
    }

    @Test
    @Order(2)
    void eventRedeliveredAcrossTheMonthBoundaryIsProcessedOnce() throws SQLException {
        LocalDate previous = THIS_MONTH.minusMonths(1);
        inTransaction(c -> {
            PurgeStatements.createPartition(c, previous, Duration.ofSeconds(2));
            return null;
        });
        Instant lastSecond = THIS_MONTH.atStartOfDay().toInstant(ZoneOffset.UTC).minusSeconds(1);
        String eventId = UuidV7.at(lastSecond);
        EventTimeSource fromId = new EventTimeSource(null);
        Delivery delivery = new Delivery("{}", null, -1);

        // first delivery at 23:59:59 on the last day of the month, second at 00:00:01 on the next
        assertEquals(1, claim("billing", eventId, fromId.month(delivery, eventId)), "first delivery claims");
        assertEquals(0, claim("billing", eventId, fromId.month(delivery, eventId)), "redelivery is a duplicate");
        assertEquals("1", text("SELECT count(*) FROM inbox WHERE event_id = ?", eventId));

        // the trap this design avoids: keyed by the month of processing, the redelivery would be a new row
        assertEquals(1, claim("trap", eventId, previous));
        assertEquals(1, claim("trap", eventId, EventMonths.monthOf(lastSecond.plusSeconds(2))),
                "processing-time partitioning lets the duplicate through");

        // an event-time field gives the same month on every delivery too
        EventTimeSource fromField = new EventTimeSource("occurred_at");
        Delivery withTime = new Delivery("{\"occurred_at\":\"" + lastSecond + "\"}", null, -1);
        assertEquals(previous, fromField.month(withTime, "order-77"));
        assertThrows(UnprocessableEventException.class, () -> fromId.month(delivery, UUID.randomUUID().toString()),
                "a UUIDv4 without an event-time field cannot be placed");
    }

    @Test
    @Order(3)
    void expiredMonthsAreDroppedWholeAndTheNextMonthsCreatedAhead() throws SQLException {
        List<LocalDate> existing = PurgeStatementsMonths.existing(dataSource);
        Duration retention = Duration.ofDays(14);
        List<LocalDate> toDrop = InboxPurge.monthsToDrop(existing, NOW, retention);
        assertTrue(toDrop.contains(EventMonths.monthOf(EventMonths.uuidV7Time(OLD_V7))), "the 200-day-old month goes");
        assertFalse(toDrop.contains(THIS_MONTH));
        for (LocalDate month : toDrop) {
            inTransaction(c -> PurgeStatements.dropPartition(c, month, Duration.ofSeconds(2)));
        }
        List<LocalDate> toCreate = InboxPurge.monthsToCreate(PurgeStatementsMonths.existing(dataSource), NOW, 5);
        assertEquals(List.of(THIS_MONTH.plusMonths(4), THIS_MONTH.plusMonths(5)), toCreate,
                "the migration made months 0 to 3 ahead");
        for (LocalDate month : toCreate) {
            inTransaction(c -> {
                PurgeStatements.createPartition(c, month, Duration.ofSeconds(2));
                return null;
            });
        }
        List<LocalDate> after = PurgeStatementsMonths.existing(dataSource);
        for (LocalDate month : toDrop) {
            assertFalse(after.contains(month), month + " dropped");
            assertEquals("0", text("SELECT count(*) FROM pg_class WHERE relname = ?", EventMonths.partitionName(month)));
        }
        for (int i = 0; i <= 5; i++) {
            assertTrue(after.contains(THIS_MONTH.plusMonths(i)), THIS_MONTH.plusMonths(i) + " exists ahead of time");
        }
        assertEquals("0", text("SELECT count(*) FROM inbox WHERE event_id = ?", OLD_V7), "its rows went with it");
        assertEquals("1", text("SELECT count(*) FROM inbox WHERE event_id = 'order-42'"), "this month's rows stay");

        // an event of a dropped month has no partition: PostgreSQL refuses it (the library dead-letters it)
        SQLException refused = assertThrows(SQLException.class,
                () -> claim("billing", OLD_V7, EventMonths.monthOf(EventMonths.uuidV7Time(OLD_V7))));
        assertEquals("23514", refused.getSQLState());
    }

    /** Reads the existing partition months with the library's statement. */
    private static final class PurgeStatementsMonths {
        static List<LocalDate> existing(PGSimpleDataSource ds) throws SQLException {
            try (Connection c = ds.getConnection()) {
                return PurgeStatements.partitionMonths(c);
            }
        }
    }
}
