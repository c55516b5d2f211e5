package io.github.jakartainbox.inbox.claim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.jakartainbox.billing.SampleEvents.Event;
import io.github.jakartainbox.billing.SampleEvents;
import io.github.jakartainbox.testing.Db;
import io.github.jakartainbox.testing.Deployments;
import io.github.jakartainbox.testing.probes.ProbeConsumer;
import io.github.jakartainbox.testing.probes.ProbeEjb;
import jakarta.ejb.EJBException;
import jakarta.enterprise.inject.spi.CDI;
import jakarta.transaction.Status;
import jakarta.transaction.UserTransaction;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import javax.naming.InitialContext;
import javax.sql.DataSource;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.shrinkwrap.api.spec.WebArchive;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The claim inside the container-managed transaction, on Liberty and PostgreSQL, with the probe consumers called
 * directly (no broker): races, rollbacks, retries, dead letters, a caller's transaction, an EJB.
 */
@ExtendWith(ArquillianExtension.class)
class InboxClaimIT {

    private final Db db = Db.lazy();
    private final ExecutorService threads = Executors.newFixedThreadPool(2);

    @Deployment
    static WebArchive deployment() {
        return Deployments.billingWithProbes();
    }

    @AfterEach
    void stopThreads() {
        threads.shutdownNow();
    }

    private static ProbeConsumer probe() {
        return CDI.current().select(ProbeConsumer.class).get();
    }

    private static Event newEvent() {
        return SampleEvents.event(UUID.randomUUID().toString(), "claim-" + UUID.randomUUID(), "42.00", "EUR");
    }

    private long invoices(Event e) {
        return db.number("SELECT count(*) FROM invoice WHERE order_id = ?", e.orderId());
    }

    private long inboxRows(String consumer, Event e) {
        return db.number("SELECT count(*) FROM inbox WHERE consumer = ? AND event_id = ?", consumer, e.eventId());
    }

    private long deadLetters(String consumer, Event e) {
        return db.number("SELECT count(*) FROM inbox_dead_letter WHERE consumer = ? AND event_id = ?", consumer,
                e.eventId());
    }

    @Test
    void secondDeliveryOfAnEventIsSkipped() throws Exception {
        Event e = newEvent();
        probe().process(e.json());
        probe().process(e.json());
        assertEquals(1, ProbeConsumer.CALLS.get(e.orderId()).get(), "method body runs once");
        assertEquals(1, invoices(e));
        assertEquals(1, inboxRows("probe", e));
    }

    @Test
    void uuidEventIdsDifferingOnlyInCaseAreOneEvent() throws Exception {
        String id = UUID.randomUUID().toString();
        String orderId = "claim-case-" + id;
        probe().process(SampleEvents.event(id, orderId, "1.00", "EUR").json());
        probe().process(SampleEvents.event(id.toUpperCase(), orderId, "1.00", "EUR").json());
        assertEquals(1, db.number("SELECT count(*) FROM invoice WHERE order_id = ?", orderId));
        assertEquals(1, db.number("SELECT count(*) FROM inbox WHERE consumer = 'probe' AND event_id = ?", id));
    }

    @Test
    void eventIdFromAnApplicationBeanDeduplicates() throws Exception {
        String id = UUID.randomUUID().toString();
        String orderId = "claim-bean-" + id;
        String json = "{\"meta\":{\"id\":\"" + id + "\"},\"event_id\":\"ignored\",\"order_id\":\"" + orderId
                + "\",\"customer_email\":\"b@example.com\",\"amount\":\"3.00\",\"currency\":\"EUR\"}";
        probe().processWithBeanId(json);
        probe().processWithBeanId(json);
        assertEquals(1, db.number("SELECT count(*) FROM invoice WHERE order_id = ?", orderId));
        assertEquals(1, db.number("SELECT count(*) FROM inbox WHERE consumer = 'probe-bean' AND event_id = ?", id));

        String withoutId = json.replace("\"meta\":{\"id\":\"" + id + "\"},", "").replace(orderId, orderId + "-no-meta");
        probe().processWithBeanId(withoutId);
        assertEquals(0, db.number("SELECT count(*) FROM invoice WHERE order_id = ?", orderId + "-no-meta"));
        String error = db.text("SELECT error FROM " + Db.DEAD_LETTERS + " WHERE consumer = 'probe-bean' AND payload = ?",
                withoutId);
        assertTrue(error.contains("No event id: EventIdExtractor bean 'nested-meta-id'"), error);
    }

    @Test
    void racingDuplicateWaitsForTheFirstAndSkipsWhenItCommits() throws Exception {
        Event e = newEvent();
        CountDownLatch release = new CountDownLatch(1);
        CountDownLatch inside = new CountDownLatch(1);
        ProbeConsumer.HOLD.put(e.orderId(), release);
        ProbeConsumer.INSIDE.put(e.orderId(), inside);
        Future<?> first = threads.submit(() -> {
            probe().process(e.json());
            return null;
        });
        assertTrue(inside.await(20, TimeUnit.SECONDS), "first delivery entered the method");
        Future<?> second = threads.submit(() -> {
            probe().process(e.json());
            return null;
        });
        // the second claim meets the first's uncommitted inbox row and waits on it
        assertThrows(TimeoutException.class, () -> second.get(1, TimeUnit.SECONDS));
        assertEquals(1, ProbeConsumer.CALLS.get(e.orderId()).get());
        release.countDown();
        first.get(20, TimeUnit.SECONDS);
        second.get(20, TimeUnit.SECONDS);
        assertEquals(1, ProbeConsumer.CALLS.get(e.orderId()).get(), "the second delivery was skipped");
        assertEquals(1, invoices(e));
        assertEquals(1, inboxRows("probe", e));
    }

    @Test
    void racingDuplicateProcessesWhenTheFirstRollsBack() throws Exception {
        Event e = newEvent();
        CountDownLatch release = new CountDownLatch(1);
        CountDownLatch inside = new CountDownLatch(1);
        ProbeConsumer.HOLD.put(e.orderId(), release);
        ProbeConsumer.INSIDE.put(e.orderId(), inside);
        ProbeConsumer.FAIL_FIRST.put(e.orderId(), 1);
        Future<?> first = threads.submit(() -> {
            probe().processOnce(e.json());
            return null;
        });
        assertTrue(inside.await(20, TimeUnit.SECONDS));
        ProbeConsumer.HOLD.remove(e.orderId());
        Future<?> second = threads.submit(() -> {
            probe().processOnce(e.json());
            return null;
        });
        assertThrows(TimeoutException.class, () -> second.get(1, TimeUnit.SECONDS));
        release.countDown();
        first.get(20, TimeUnit.SECONDS);
        second.get(20, TimeUnit.SECONDS);
        assertEquals(2, ProbeConsumer.CALLS.get(e.orderId()).get(), "the second delivery processed the event");
        assertEquals(1, invoices(e), "the first delivery's invoice rolled back");
        assertEquals(1, inboxRows("probe-single", e));
    }

    @Test
    void failedAttemptRollsBackAndTheRetrySucceeds() throws Exception {
        Event e = newEvent();
        ProbeConsumer.FAIL_FIRST.put(e.orderId(), 1);
        probe().process(e.json());
        assertEquals(2, ProbeConsumer.CALLS.get(e.orderId()).get(), "one failed attempt, one retry");
        assertEquals(1, invoices(e), "the failed attempt's invoice rolled back");
        assertEquals(1, inboxRows("probe", e));
        assertEquals(0, deadLetters("probe", e));
    }

    @Test
    void eventFailingEveryAttemptIsDeadLetteredWithNothingCommitted() throws Exception {
        Event e = newEvent();
        ProbeConsumer.FAIL_FIRST.put(e.orderId(), Integer.MAX_VALUE);
        probe().process(e.json()); // returns normally: the inbox owns the failure
        assertEquals(3, ProbeConsumer.CALLS.get(e.orderId()).get(), "inbox.retry.max-attempts default is 3");
        assertEquals(0, invoices(e));
        assertEquals(0, inboxRows("probe", e), "a failed event is not marked processed");
        assertEquals(3, db.number("SELECT attempts FROM inbox_dead_letter WHERE consumer = 'probe' AND event_id = ?",
                e.eventId()));
        String error = db.text("SELECT error FROM inbox_dead_letter WHERE consumer = 'probe' AND event_id = ?",
                e.eventId());
        assertTrue(error.contains("injected failure"), error);
        assertEquals(e.json(), db.text("SELECT payload FROM " + Db.DEAD_LETTERS + " WHERE consumer = 'probe' "
                + "AND event_id = ?", e.eventId()));

        // re-driven after the fault is fixed: processed once
        ProbeConsumer.FAIL_FIRST.remove(e.orderId());
        probe().process(e.json());
        assertEquals(1, invoices(e));
        assertEquals(1, inboxRows("probe", e));
    }

    @Test
    void unprocessableEventIsDeadLetteredWithoutRetries() throws Exception {
        String id = UUID.randomUUID().toString();
        String orderId = "claim-bad-amount-" + id;
        probe().process(SampleEvents.event(id, orderId, "12,50", "EUR").json());
        assertNull(ProbeConsumer.CALLS.get(orderId), "rejected while parsing, before the counter");
        assertEquals(1, db.number("SELECT attempts FROM inbox_dead_letter WHERE consumer = 'probe' AND event_id = ?",
                id), "UnprocessableEventException is not retried");
        String error = db.text("SELECT error FROM inbox_dead_letter WHERE consumer = 'probe' AND event_id = ?", id);
        assertTrue(error.contains("amount"), error);
    }

    @Test
    void statementAfterADuplicateInTheSameTransactionSucceeds() throws Exception {
        Event e = newEvent();
        UserTransaction tx = (UserTransaction) new InitialContext().lookup("java:comp/UserTransaction");
        DataSource ds = (DataSource) new InitialContext().lookup("jdbc/billing");
        tx.begin();
        try {
            probe().process(e.json());
            probe().process(e.json()); // duplicate inside the same transaction
            assertEquals(Status.STATUS_ACTIVE, tx.getStatus(), "the duplicate did not mark the transaction rollback-only");
            try (Connection c = ds.getConnection();
                 PreparedStatement ps = c.prepareStatement("INSERT INTO inbox_dead_letter (consumer, event_id, "
                         + "error, attempts) VALUES ('probe-after-duplicate', ?, 'marker', 0)")) {
                ps.setString(1, e.eventId());
                assertEquals(1, ps.executeUpdate(), "a statement after the duplicate runs");
            }
            tx.commit();
        } catch (Exception | AssertionError failure) {
            if (tx.getStatus() != Status.STATUS_NO_TRANSACTION) {
                tx.rollback();
            }
            throw failure;
        }
        assertEquals(1, invoices(e));
        assertEquals(1, inboxRows("probe", e));
        assertEquals(1, deadLetters("probe-after-duplicate", e), "the later statement committed");
    }

    @Test
    void ejbBusinessMethodJoinsTheContainerTransaction() {
        ProbeEjb ejb = CDI.current().select(ProbeEjb.class).get();
        Event e = newEvent();
        assertThrows(EJBException.class, () -> ejb.process(e.json(), true));
        assertEquals(0, invoices(e), "container rolled back the invoice");
        assertEquals(0, inboxRows("probe-ejb", e), "and the inbox row");
        assertEquals("processed", ejb.process(e.json(), false));
        assertNull(ejb.process(e.json(), false), "duplicate skipped");
        assertEquals(1, invoices(e));
        assertEquals(1, inboxRows("probe-ejb", e));
    }

    @Test
    void unusableEventIdsAreDeadLetteredAndNeverCollapsed() throws Exception {
        String run = UUID.randomUUID().toString();
        String[] payloads = {
            "{\"order_id\":\"" + run + "-missing-1\",\"customer_email\":\"a@example.com\",\"amount\":\"1.00\",\"currency\":\"EUR\"}",
            "{\"order_id\":\"" + run + "-missing-2\",\"customer_email\":\"a@example.com\",\"amount\":\"1.00\",\"currency\":\"EUR\"}",
            "{\"event_id\":\"  \",\"order_id\":\"" + run + "-blank\",\"customer_email\":\"a@example.com\",\"amount\":\"1.00\",\"currency\":\"EUR\"}",
            "{\"event_id\":\"" + "x".repeat(300) + "\",\"order_id\":\"" + run + "-long\",\"customer_email\":\"a@example.com\",\"amount\":\"1.00\",\"currency\":\"EUR\"}",
            "{\"event_id\":42,\"order_id\":\"" + run + "-number\",\"customer_email\":\"a@example.com\",\"amount\":\"1.00\",\"currency\":\"EUR\"}",
            "{\"event_id\": \"" + run + "-padded \",\"order_id\":\"" + run + "-padded\",\"customer_email\":\"a@example.com\",\"amount\":\"1.00\",\"currency\":\"EUR\"}",
            "not json " + run,
        };
        for (String payload : payloads) {
            probe().process(payload);
        }
        assertEquals(0, db.number("SELECT count(*) FROM invoice WHERE order_id LIKE ?", run + "%"), "none processed");
        assertEquals(payloads.length, db.number("SELECT count(*) FROM " + Db.DEAD_LETTERS + " WHERE consumer = 'probe' "
                + "AND event_id IS NULL AND payload LIKE ?", "%" + run + "%"), "one dead letter each, none collapsed");
        assertEquals(0, db.number("SELECT count(*) FROM inbox WHERE consumer = 'probe' AND event_id LIKE ?",
                run + "%"));
        assertTrue(db.text("SELECT error FROM " + Db.DEAD_LETTERS + " WHERE consumer = 'probe' AND payload LIKE ?",
                "%" + run + "-missing-1%").contains("No event id"));
        assertTrue(db.text("SELECT error FROM " + Db.DEAD_LETTERS + " WHERE consumer = 'probe' AND payload LIKE ?",
                "%" + run + "-long%").contains("300 characters long, more than 128"));
        assertFalse(db.text("SELECT error FROM " + Db.DEAD_LETTERS + " WHERE consumer = 'probe' AND payload LIKE ?",
                "not json " + run).isBlank());
    }
}
