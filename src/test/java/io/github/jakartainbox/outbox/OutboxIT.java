package io.github.jakartainbox.outbox;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.jakartainbox.testing.Db;
import io.github.jakartainbox.testing.Deployments;
import io.github.jakartainbox.testing.TopicReader;
import jakarta.enterprise.inject.spi.CDI;
import jakarta.transaction.UserTransaction;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import javax.naming.InitialContext;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.shrinkwrap.api.spec.WebArchive;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** The outbox and its relay on Liberty, PostgreSQL and Kafka: what commits is published, what rolls back is not. */
@ExtendWith(ArquillianExtension.class)
class OutboxIT {

    private static final Duration WAIT = Duration.ofSeconds(60);
    private final Db db = Db.lazy();

    @Deployment
    static WebArchive deployment() {
        return Deployments.billingWithProbes();
    }

    private static Outbox outbox() {
        return CDI.current().select(Outbox.class).get();
    }

    private static UserTransaction tx() throws Exception {
        return (UserTransaction) new InitialContext().lookup("java:comp/UserTransaction");
    }

    @Test
    void committedRowIsPublishedOnceWithItsEventIdInHeaderAndPayloadAndMarkedDelivered() throws Exception {
        String topic = "outbox-it-" + UUID.randomUUID();
        UserTransaction tx = tx();
        tx.begin();
        UUID eventId = outbox().record(topic, "k1", id -> "{\"event_id\":\"" + id + "\",\"n\":1}", Map.of("origin", "it"));
        tx.commit();
        assertEquals(7, eventId.version(), "a UUIDv7");
        assertEquals(1, db.await(WAIT, n -> n == 1, "SELECT count(*) FROM outbox WHERE event_id = ? "
                + "AND delivered_at IS NOT NULL", eventId), "marked delivered after the broker's acknowledgement");
        List<TopicReader.Rec> records = TopicReader.read(topic, r -> true);
        assertEquals(1, records.size(), "published once");
        assertEquals(eventId.toString(), records.get(0).eventIdHeader());
        assertEquals("k1", records.get(0).key());
        assertTrue(records.get(0).value().contains(eventId.toString()), records.get(0).value());
    }

    @Test
    void rolledBackTransactionLeavesNoRowAndPublishesNothing() throws Exception {
        String topic = "outbox-it-" + UUID.randomUUID();
        UserTransaction tx = tx();
        tx.begin();
        UUID eventId = outbox().record(topic, "k1", id -> "{\"event_id\":\"" + id + "\"}");
        tx.rollback();
        // a later committed row of another topic is delivered: the relay has run since
        tx.begin();
        UUID later = outbox().record(topic + "-later", "k1", id -> "{}");
        tx.commit();
        db.await(WAIT, n -> n == 1, "SELECT count(*) FROM outbox WHERE event_id = ? AND delivered_at IS NOT NULL", later);
        assertEquals(0, db.number("SELECT count(*) FROM outbox WHERE event_id = ?", eventId));
        assertEquals(0, db.number("SELECT count(*) FROM outbox WHERE topic = ?", topic));
    }

    @Test
    void rowsOfOneTransactionAreWrittenAtItsCommitInTheOrderRecorded() throws Exception {
        String topic = "outbox-it-" + UUID.randomUUID();
        UserTransaction tx = tx();
        tx.begin();
        List<UUID> recorded = new java.util.ArrayList<>();
        for (int i = 0; i < 5; i++) {
            recorded.add(outbox().record(topic, "k" + i, id -> "{}"));
        }
        // written just before the commit, in one batch: not in the table yet, even for this transaction
        assertEquals(0, db.number("SELECT count(*) FROM outbox WHERE topic = ?", topic));
        tx.commit();
        List<String> byId = db.texts("SELECT event_id::text FROM outbox WHERE topic = ? ORDER BY id", topic);
        assertEquals(recorded.stream().map(UUID::toString).toList(), byId, "ids in the order recorded");
    }

    @Test
    void rowThatCannotBeWrittenFailsTheCommitAndRollsTheBusinessChangeBack() throws Exception {
        String topic = "outbox-it-refused-" + UUID.randomUUID();
        String orderId = "outbox-it-order-" + UUID.randomUUID();
        String constraint = "outbox_it_refused_" + Long.toHexString(System.nanoTime());
        // the database refuses this topic's rows, so the INSERT just before the commit fails
        db.execute("ALTER TABLE outbox ADD CONSTRAINT " + constraint + " CHECK (topic <> '" + topic + "') NOT VALID");
        try {
            UserTransaction tx = tx();
            tx.begin();
            try (java.sql.Connection c = ((javax.sql.DataSource) new InitialContext().lookup("jdbc/billing"))
                    .getConnection(); java.sql.Statement s = c.createStatement()) {
                s.executeUpdate("INSERT INTO order_status (order_id, status, amount, currency) VALUES ('" + orderId
                        + "', 'CONFIRMED', 1, 'EUR')");
            }
            outbox().record(topic, "k1", id -> "{}");
            assertThrows(jakarta.transaction.RollbackException.class, tx::commit);
        } finally {
            db.execute("ALTER TABLE outbox DROP CONSTRAINT " + constraint);
        }
        assertEquals(0, db.number("SELECT count(*) FROM order_status WHERE order_id = ?", orderId),
                "the business row rolled back with the outbox row");
        assertEquals(0, db.number("SELECT count(*) FROM outbox WHERE topic = ?", topic));
    }

    @Test
    void payloadOrHeaderWithU0000IsRefusedAtRecordNamingWhy() throws Exception {
        UserTransaction tx = tx();
        tx.begin();
        try {
            IllegalArgumentException payload = assertThrows(IllegalArgumentException.class,
                    () -> outbox().record("outbox-it-nul", "k", id -> "{\"a\":\"x\u0000y\"}"));
            assertTrue(payload.getMessage().contains("U+0000"), payload.getMessage());
            assertThrows(IllegalArgumentException.class,
                    () -> outbox().record("outbox-it-nul", "k", id -> "{}", Map.of("h", "a\u0000b")));
        } finally {
            tx.rollback();
        }
    }

    @Test
    void recordWithoutATransactionFailsNamingTheMethod() {
        IllegalStateException e = assertThrows(IllegalStateException.class,
                () -> outbox().record("outbox-it-none", "k", id -> "{}"));
        assertTrue(e.getMessage().contains("OUTBOX0001E") && e.getMessage().contains("Outbox.record(")
                && e.getMessage().contains("without an active JTA transaction"), e.getMessage());
    }

    /** A transaction that outlived its timeout gets OUTBOX0007E, not OUTBOX0001E ("without an active transaction"). */
    @Test
    void recordInATransactionThatTimedOutNamesTheTimeoutNotTheCaller() throws Exception {
        UserTransaction tx = tx();
        tx.setTransactionTimeout(1);
        tx.begin();
        try {
            Thread.sleep(2500); // the transaction outlives its 1 s timeout
            IllegalStateException e = assertThrows(IllegalStateException.class,
                    () -> outbox().record("outbox-it-timeout", "k", id -> "{}"));
            assertTrue(e.getMessage().contains("OUTBOX0007E") && e.getMessage().contains("timed out"), e.getMessage());
        } finally {
            tx.setTransactionTimeout(0);
            try {
                tx.rollback();
            } catch (Exception ended) {
                // the timeout may have ended it already
            }
        }
    }

    @Test
    void rowTheBrokerRefusesIsListedAsFailingAndAnOperatorCanGiveItUp() throws Exception {
        String badTopic = "outbox it bad " + UUID.randomUUID(); // spaces: not a legal topic name
        UserTransaction tx = tx();
        tx.begin();
        UUID eventId = outbox().record(badTopic, "k1", id -> "{}");
        tx.commit();
        assertEquals(1, db.await(WAIT, n -> n >= 1, "SELECT attempts FROM outbox WHERE event_id = ?", eventId) >= 1 ? 1 : 0,
                "the failed send is counted");
        OutboxOperations operations = CDI.current().select(OutboxOperations.class).get();
        FailingRow row = operations.failing(1000).stream().filter(r -> r.eventId().equals(eventId)).findFirst()
                .orElseThrow(() -> new AssertionError("the row is not listed as failing"));
        assertNotNull(row.lastError());
        assertTrue(row.lastError().contains("InvalidTopicException") || row.lastError().contains("topic"), row.lastError());
        assertEquals(OutboxOperations.Outcome.DONE, operations.giveUp(row.id(), "it"));
        assertEquals(OutboxOperations.Outcome.NOT_PENDING, operations.giveUp(row.id(), "it"));
        assertEquals(OutboxOperations.Outcome.NOT_FOUND, operations.retry(Long.MAX_VALUE, "it"));
        assertEquals(1, db.number("SELECT count(*) FROM outbox WHERE event_id = ? AND given_up_at IS NOT NULL "
                + "AND delivered_at IS NULL AND resolved_by = 'it'", eventId));
    }
}
