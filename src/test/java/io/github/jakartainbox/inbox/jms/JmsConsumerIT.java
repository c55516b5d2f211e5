package io.github.jakartainbox.inbox.jms;

import static io.github.jakartainbox.testing.Waiting.reached;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.jakartainbox.billing.SampleEvents.Event;
import io.github.jakartainbox.billing.SampleEvents;
import io.github.jakartainbox.inbox.InboxStatistics;
import io.github.jakartainbox.testing.Db;
import io.github.jakartainbox.testing.Deployments;
import io.github.jakartainbox.testing.Waiting;
import io.github.jakartainbox.testing.probes.JmsProbeConsumer;
import io.github.jakartainbox.testing.probes.JmsPropertyProbeConsumer;
import jakarta.enterprise.inject.spi.CDI;
import jakarta.jms.ConnectionFactory;
import jakarta.jms.JMSContext;
import jakarta.jms.Queue;
import jakarta.jms.QueueBrowser;
import jakarta.jms.TextMessage;
import java.time.Duration;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import javax.naming.InitialContext;
import org.awaitility.core.ConditionFactory;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.shrinkwrap.api.spec.WebArchive;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * {@code @Idempotent} message-driven beans on Liberty's embedded messaging engine and PostgreSQL, in-container: the
 * example's {@code BillingJmsConsumer} (consumer {@code billing-jms}, queue {@code orders.confirmed}) and the probes
 * {@link JmsProbeConsumer} ({@code probe-jms}, 3 attempts) and {@link JmsPropertyProbeConsumer}
 * ({@code probe-jms-property}, event id from JMS property {@code order_event}). Messages are sent through the
 * server's connection factory {@code jms/billing}; queues are read with a browser.
 */
@ExtendWith(ArquillianExtension.class)
class JmsConsumerIT {

    private static final String BILLING_QUEUE = "jms/orders.confirmed";
    private static final String PROBE_QUEUE = "jms/it.probe.jms";
    private static final String PROPERTY_QUEUE = "jms/it.probe.jms.property";
    private static final Duration WAIT = Duration.ofSeconds(60);

    private final Db db = Db.lazy();

    @Deployment
    static WebArchive deployment() {
        return Deployments.billingWithProbes();
    }

    private static Event newEvent(String prefix) {
        return SampleEvents.event(UUID.randomUUID().toString(), prefix + "-" + UUID.randomUUID(), "42.00", "EUR");
    }

    private static <T> T lookup(String name, Class<T> type) throws Exception {
        return type.cast(new InitialContext().lookup(name));
    }

    /** Sends one persistent text message with the given string, int and long properties. */
    private static String send(String queue, String text, Map<String, Object> properties) throws Exception {
        ConnectionFactory factory = lookup("jms/billing", ConnectionFactory.class);
        try (JMSContext context = factory.createContext()) {
            TextMessage message = context.createTextMessage(text);
            for (Map.Entry<String, Object> p : properties.entrySet()) {
                message.setObjectProperty(p.getKey(), p.getValue());
            }
            context.createProducer().send(lookup(queue, Queue.class), message);
            return message.getJMSMessageID();
        }
    }

    /** @return messages still on the queue (not consumed; a message in a delivery's transaction counts too) */
    private static int depth(String queue) throws Exception {
        ConnectionFactory factory = lookup("jms/billing", ConnectionFactory.class);
        try (JMSContext context = factory.createContext(); QueueBrowser browser = context.createBrowser(lookup(queue,
                Queue.class))) {
            return Collections.list(browser.getEnumeration()).size();
        }
    }

    private static void awaitEmpty(String queue) throws Exception {
        reached(poll(100), () -> depth(queue) == 0);
        assertEquals(0, depth(queue), "every message on " + queue + " consumed");
    }

    /** @return a wait of {@link #WAIT} at most, reading every {@code millis} ms */
    private static ConditionFactory poll(long millis) {
        return Waiting.await().atMost(WAIT).pollInterval(Duration.ofMillis(millis));
    }

    private static long skipped(String consumer) throws Exception {
        return CDI.current().select(InboxStatistics.class).get().figures().stream()
                .filter(f -> f.consumer().equals(consumer)).mapToLong(InboxStatistics.ConsumerFigures::duplicatesSkipped)
                .sum();
    }

    private long invoices(Event e) {
        return db.number("SELECT count(*) FROM invoice WHERE order_id = ?", e.orderId());
    }

    private long inboxRows(String consumer, Event e) {
        return db.number("SELECT count(*) FROM inbox WHERE consumer = ? AND event_id = ?", consumer, e.eventId());
    }

    private long awaitInvoices(Event e, long expected) throws InterruptedException {
        return db.await(WAIT, n -> n >= expected, "SELECT count(*) FROM invoice WHERE order_id = ?", e.orderId());
    }

    private static List<JmsProbeConsumer.Call> calls(Event e) {
        return JmsProbeConsumer.CALLS.getOrDefault(e.orderId(), List.of());
    }

    @Test
    void theExampleConsumerInvoicesAnOrderOnceWhenItIsSentTwice() throws Exception {
        Event e = newEvent("jms-twice");
        send(BILLING_QUEUE, e.json(), Map.of());
        assertEquals(1, awaitInvoices(e, 1));
        long skippedBefore = skipped("billing-jms");
        send(BILLING_QUEUE, e.json(), Map.of());
        awaitEmpty(BILLING_QUEUE);
        reached(poll(100), () -> skipped("billing-jms") != skippedBefore);
        assertEquals(skippedBefore + 1, skipped("billing-jms"), "the second message is skipped as a duplicate");
        assertEquals(1, invoices(e), "one invoice");
        assertEquals(1, inboxRows("billing-jms", e));
        assertEquals(0, inboxRows("billing", e), "the Kafka consumer's inbox is another consumer's");
    }

    /**
     * Message A (event E) is delivered, claims E, creates its invoice and fails after 3 s, so its transaction rolls
     * back and the engine redelivers A (JMSRedelivered). Meanwhile B, a resend of E by the producer (same body),
     * is delivered to a second bean instance: its claim waits on A's uncommitted row, gets E once A rolled back,
     * and commits. A's redelivery then finds E committed and is consumed without calling the method.
     */
    @Test
    void aRedeliveryAfterRollbackIsSkippedOnceTheEventCommitted() throws Exception {
        Event e = newEvent("jms-redelivery");
        long skippedBefore = skipped("probe-jms");
        send(PROBE_QUEUE, e.json(), Map.of("probe_fail", 1, "probe_hold_ms", 3000L));
        reached(poll(20), () -> !calls(e).isEmpty());
        assertEquals(1, calls(e).size(), "A's first delivery is in the method");
        send(PROBE_QUEUE, e.json(), Map.of()); // B, while A holds the claim
        awaitEmpty(PROBE_QUEUE);
        reached(poll(100), () -> skipped("probe-jms") != skippedBefore); // asserted below
        Thread.sleep(1000); // nothing marks a call that should not come (A's redelivery): one would come by now
        List<JmsProbeConsumer.Call> calls = calls(e);
        assertEquals(2, calls.size(), "A's first delivery (rolled back) and B, never A's redelivery: " + calls);
        assertFalse(calls.get(0).redelivered());
        assertEquals(1, calls.get(0).deliveryCount());
        assertFalse(calls.get(1).messageId().equals(calls.get(0).messageId()), "the second call is B: " + calls);
        assertEquals(skippedBefore + 1, skipped("probe-jms"), "A's redelivery was skipped as a duplicate");
        assertEquals(1, invoices(e), "one invoice: A's was rolled back");
        assertEquals(1, inboxRows("probe-jms", e));
        assertEquals(0, db.number("SELECT count(*) FROM inbox_dead_letter WHERE consumer = 'probe-jms' AND event_id = ?",
                e.eventId()));
    }

    @Test
    void racingDuplicatesOnSeveralBeanInstancesGiveOneInvoice() throws Exception {
        Event e = newEvent("jms-race");
        long skippedBefore = skipped("billing-jms");
        int copies = 20;
        ExecutorService senders = Executors.newFixedThreadPool(4);
        try {
            CountDownLatch start = new CountDownLatch(1);
            List<Future<String>> sent = new java.util.ArrayList<>();
            for (int i = 0; i < copies; i++) {
                sent.add(senders.submit(() -> {
                    start.await();
                    return send(BILLING_QUEUE, e.json(), Map.of());
                }));
            }
            start.countDown();
            for (Future<String> f : sent) {
                assertNotNull(f.get(30, TimeUnit.SECONDS));
            }
        } finally {
            senders.shutdownNow();
        }
        awaitEmpty(BILLING_QUEUE);
        reached(poll(100), () -> skipped("billing-jms") >= skippedBefore + copies - 1);
        assertEquals(skippedBefore + copies - 1, skipped("billing-jms"), "all copies but one skipped");
        assertEquals(1, invoices(e), "one invoice for " + copies + " racing copies");
        assertEquals(1, inboxRows("billing-jms", e));
    }

    @Test
    void aFailingMessageIsRedeliveredThenDeadLetteredAndConsumed() throws Exception {
        Event e = newEvent("jms-fail");
        send(PROBE_QUEUE, e.json(), Map.of("probe_fail", 1000));
        long rows = db.await(WAIT, n -> n > 0,
                "SELECT count(*) FROM inbox_dead_letter WHERE consumer = 'probe-jms' AND event_id = ?", e.eventId());
        assertEquals(1, rows, "dead-lettered");
        awaitEmpty(PROBE_QUEUE);
        Thread.sleep(1000); // no further delivery may reach the method: one that did would have come by now
        List<JmsProbeConsumer.Call> calls = calls(e);
        assertEquals(3, calls.size(), "retry.max-attempts=3 deliveries reached the method: " + calls);
        for (int i = 0; i < 3; i++) {
            assertEquals(i + 1, calls.get(i).deliveryCount(), "JMSXDeliveryCount of call " + i);
            assertEquals(i > 0, calls.get(i).redelivered(), "JMSRedelivered of call " + i);
        }
        String error = db.text("SELECT error FROM inbox_dead_letter WHERE consumer = 'probe-jms' AND event_id = ?",
                e.eventId());
        assertTrue(error.contains("injected probe failure on delivery 3"), error);
        assertEquals(3, db.number("SELECT attempts FROM inbox_dead_letter WHERE consumer = 'probe-jms' AND event_id = ?",
                e.eventId()));
        assertEquals(e.json(), db.text("SELECT payload FROM " + Db.DEAD_LETTERS + " WHERE consumer = 'probe-jms' "
                + "AND event_id = ?", e.eventId()), "the body is kept for a re-drive");
        assertEquals(0, invoices(e), "every attempt rolled back");
        assertEquals(0, inboxRows("probe-jms", e));
    }

    @Test
    void aBreachOfTheEventContractIsDeadLetteredWithItsReasonAndConsumed() throws Exception {
        Event bad = SampleEvents.event(UUID.randomUUID().toString(), "jms-contract-" + UUID.randomUUID(), "1e3", "EUR");
        send(BILLING_QUEUE, bad.json(), Map.of());
        assertEquals(1, db.await(WAIT, n -> n > 0, "SELECT count(*) FROM inbox_dead_letter WHERE consumer = "
                + "'billing-jms' AND event_id = ?", bad.eventId()));
        awaitEmpty(BILLING_QUEUE);
        String error = db.text("SELECT error FROM inbox_dead_letter WHERE consumer = 'billing-jms' AND event_id = ?",
                bad.eventId());
        assertTrue(error.contains("BILLING0106E"), error);
        assertEquals(0, invoices(bad));
    }

    @Test
    void badInputIsDeadLetteredWithAClearReasonAndConsumed() throws Exception {
        String run = UUID.randomUUID().toString();
        String noId = "{\"order_id\":\"jms-noid-" + run + "\",\"amount\":\"1.00\",\"currency\":\"EUR\"}";
        String malformed = "{\"event_id\":\"" + run + "\",\"order_id\":";
        send(BILLING_QUEUE, noId, Map.of());
        send(BILLING_QUEUE, malformed, Map.of());
        // the property probe: no order_event property at all, and one that is not a string
        Event withoutProperty = newEvent("jms-noprop");
        Event intProperty = newEvent("jms-intprop");
        Event good = newEvent("jms-prop");
        send(PROPERTY_QUEUE, withoutProperty.json(), Map.of("event_id", withoutProperty.eventId()));
        send(PROPERTY_QUEUE, intProperty.json(), Map.of("order_event", 42));
        send(PROPERTY_QUEUE, good.json(), Map.of("order_event", good.eventId(), "unrelated", "ignored"));

        assertEquals(1, db.await(WAIT, n -> n > 0, "SELECT count(*) FROM " + Db.DEAD_LETTERS + " WHERE consumer = "
                + "'billing-jms' AND event_id IS NULL AND payload = ?", noId));
        assertEquals(1, db.await(WAIT, n -> n > 0, "SELECT count(*) FROM " + Db.DEAD_LETTERS + " WHERE consumer = "
                + "'billing-jms' AND event_id IS NULL AND payload = ?", malformed));
        assertTrue(db.text("SELECT error FROM " + Db.DEAD_LETTERS + " WHERE consumer = 'billing-jms' AND payload = ?", noId)
                .contains("INBOX0210E: No event id: JSON field 'event_id' is missing"));
        assertTrue(db.text("SELECT error FROM " + Db.DEAD_LETTERS + " WHERE consumer = 'billing-jms' AND payload = ?",
                malformed).contains("INBOX0225E"));
        assertEquals(1, db.await(WAIT, n -> n > 0, "SELECT count(*) FROM " + Db.DEAD_LETTERS + " WHERE consumer = "
                + "'probe-jms-property' AND event_id IS NULL AND payload = ?", withoutProperty.json()));
        assertTrue(db.text("SELECT error FROM " + Db.DEAD_LETTERS + " WHERE consumer = 'probe-jms-property' AND payload = ?",
                withoutProperty.json()).contains("INBOX0210E: No event id: JMS property 'order_event' is missing"));
        assertEquals(1, db.await(WAIT, n -> n > 0, "SELECT count(*) FROM " + Db.DEAD_LETTERS + " WHERE consumer = "
                + "'probe-jms-property' AND event_id IS NULL AND payload = ?", intProperty.json()));
        String notString = db.text("SELECT error FROM " + Db.DEAD_LETTERS + " WHERE consumer = 'probe-jms-property' AND "
                + "payload = ?", intProperty.json());
        assertTrue(notString.contains("INBOX0702E") && notString.contains("order_event"), notString);

        assertEquals(1, awaitInvoices(good, 1), "a good message after them is processed (other properties ignored)");
        assertEquals(1, inboxRows("probe-jms-property", good));
        awaitEmpty(BILLING_QUEUE);
        awaitEmpty(PROPERTY_QUEUE);
        assertEquals(0, invoices(withoutProperty));
        assertEquals(0, invoices(intProperty));
        assertNull(db.text("SELECT event_id FROM inbox WHERE consumer = 'probe-jms-property' AND event_id = ?",
                withoutProperty.eventId()));
    }
}
