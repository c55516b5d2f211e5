package io.github.jakartainbox.billing.invoice;

import io.github.jakartainbox.billing.SampleEvents;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.jakartainbox.billing.SampleEvents.Event;
import io.github.jakartainbox.inbox.InboxStatistics;
import io.github.jakartainbox.testing.Db;
import io.github.jakartainbox.testing.Deployments;
import io.github.jakartainbox.testing.TestEnv;
import io.github.jakartainbox.testing.probes.KafkaProbeConsumer;
import io.github.jakartainbox.testkit.IdempotencyCheck;
import io.github.jakartainbox.testkit.InboxFigures;
import jakarta.enterprise.inject.spi.CDI;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import javax.naming.InitialContext;
import javax.sql.DataSource;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.shrinkwrap.api.spec.WebArchive;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The billing service on its real input: events through the Kafka broker into Liberty, rows in PostgreSQL.
 * Records of one key go to one partition in order, so once a later "marker" event is processed, every
 * delivery sent before it has been handled (processed or skipped).
 */
@ExtendWith(ArquillianExtension.class)
class BillingKafkaIT {

    private static final String BOOTSTRAP = TestEnv.BOOTSTRAP;
    private static final Duration WAIT = Duration.ofSeconds(90);
    private final Db db = Db.lazy();

    @Deployment
    static WebArchive deployment() {
        return Deployments.billingWithProbes().addAsLibrary(Deployments.testKit());
    }

    private static Event event(String orderId, String amount, String currency) {
        return SampleEvents.event(UUID.randomUUID().toString(), orderId, amount, currency);
    }

    private void send(String topic, List<Event> events) throws Exception {
        try (KafkaProducer<String, String> producer = SampleEvents.producer(BOOTSTRAP)) {
            SampleEvents.send(producer, topic, events);
        }
    }

    /** Sends a marker with the same key after the others and waits until both consumers processed it. */
    private void sendMarkerAndAwait(String key) throws Exception {
        Event marker = SampleEvents.event(UUID.randomUUID().toString(), key, "1.00", "EUR");
        send(TestEnv.ORDERS_TOPIC, List.of(marker));
        long rows = db.await(WAIT, n -> n == 2, "SELECT count(*) FROM inbox WHERE event_id = ?", marker.eventId());
        assertEquals(2, rows, "marker processed by billing and analytics");
    }

    private long invoices(String orderId) {
        return db.number("SELECT count(*) FROM invoice WHERE order_id = ?", orderId);
    }

    @Test
    void duplicateDeliveryCreatesOneInvoiceAndOneInboxRowPerConsumer() throws Exception {
        String orderId = "kafka-dup-" + UUID.randomUUID();
        Event e = event(orderId, "129.90", "EUR");
        send(TestEnv.ORDERS_TOPIC, List.of(e, e, e));
        sendMarkerAndAwait(orderId);
        assertEquals(1, invoices(orderId) - 1, "one invoice for the event (plus the marker's)");
        assertEquals(1, db.number("SELECT count(*) FROM inbox WHERE consumer = 'billing' AND event_id = ?", e.eventId()));
        assertEquals(1, db.number("SELECT count(*) FROM inbox WHERE consumer = 'analytics' AND event_id = ?",
                e.eventId()));
        assertEquals(new BigDecimal("129.90"), new BigDecimal(db.text("SELECT amount FROM invoice WHERE order_id = ? "
                + "AND event_id = ?", orderId, e.eventId())));
    }

    /** The test kit on the example's consumer, as an adopter would run it on theirs. */
    @Test
    void theBillingConsumerPassesTheTestKit() throws Exception {
        String orderId = "kafka-kit-" + UUID.randomUUID();
        Event e = event(orderId, "42.00", "EUR");
        try (KafkaProducer<String, String> producer = SampleEvents.producer(BOOTSTRAP)) {
            IdempotencyCheck.Result result = IdempotencyCheck.of("billing", e.eventId())
                    .delivery(() -> producer.send(new ProducerRecord<>(TestEnv.ORDERS_TOPIC, orderId, e.json())).get())
                    .state(() -> invoices(orderId))
                    .figures(InboxFigures.inContainer((DataSource) new InitialContext().lookup("jdbc/billing"),
                            CDI.current().select(InboxStatistics.class).get()))
                    .timeout(WAIT)
                    .run();
            assertEquals(1L, result.stateAfterOne(), "one invoice");
            assertTrue(result.duplicatesSkipped() >= 9, "9 duplicates skipped: " + result);
        }
    }

    @Test
    void billingAndAnalyticsEachProcessTheSameEventOnce() throws Exception {
        // CHF is used by this test only, so the day's CHF revenue moves by this event alone
        String revenue = "SELECT coalesce(sum(amount), 0) FROM daily_revenue WHERE day = (now() AT TIME ZONE 'UTC')::date "
                + "AND currency = 'CHF'";
        BigDecimal before = new BigDecimal(db.text(revenue));
        String orderId = "kafka-two-consumers-" + UUID.randomUUID();
        Event e = event(orderId, "10.25", "CHF");
        send(TestEnv.ORDERS_TOPIC, List.of(e, e));
        sendMarkerAndAwait(orderId);
        send(TestEnv.ORDERS_TOPIC, List.of(e)); // a late redelivery, after both consumers committed
        sendMarkerAndAwait(orderId);
        assertEquals(new BigDecimal("10.25"), new BigDecimal(db.text(revenue)).subtract(before),
                "analytics added the amount once");
        assertEquals(1, db.number("SELECT count(*) FROM invoice WHERE event_id = ?", e.eventId()), "billing once");
        assertEquals(2, db.number("SELECT count(*) FROM inbox WHERE event_id = ?", e.eventId()),
                "one inbox row per consumer");
    }

    @Test
    void invalidEventsAreDeadLetteredAndTheChannelGoesOn() throws Exception {
        String run = "kafka-bad-" + UUID.randomUUID();
        String emptyPayloads = "SELECT coalesce(sum(deliveries), 0) FROM " + Db.DEAD_LETTERS + " WHERE payload = '' "
                + "AND error LIKE '%payload is empty%'"; // one row per consumer, counting its deliveries (schema V7)
        long emptyBefore = db.number(emptyPayloads);
        String good = "{\"customer_email\":\"x@example.com\",\"amount\":\"1.00\",\"currency\":\"EUR\",";
        try (KafkaProducer<String, String> producer = SampleEvents.producer(BOOTSTRAP)) {
            producer.send(new ProducerRecord<>(TestEnv.ORDERS_TOPIC, run, good + "\"order_id\":\"" + run + "-missing\"}"));
            producer.send(new ProducerRecord<>(TestEnv.ORDERS_TOPIC, run,
                    good + "\"event_id\":\"\",\"order_id\":\"" + run + "-blank\"}"));
            producer.send(new ProducerRecord<>(TestEnv.ORDERS_TOPIC, run,
                    good + "\"event_id\":\"" + "y".repeat(500) + "\",\"order_id\":\"" + run + "-long\"}"));
            producer.send(new ProducerRecord<>(TestEnv.ORDERS_TOPIC, run, "{\"event_id\":\"" + UUID.randomUUID()
                    + "\",\"order_id\":\"" + run + "-amount\",\"customer_email\":\"x@example.com\","
                    + "\"amount\":12.5,\"currency\":\"EUR\"}"));
            producer.send(new ProducerRecord<>(TestEnv.ORDERS_TOPIC, run, "{not json " + run));
            // an escaped NUL reaches the error text: PostgreSQL text cannot hold it
            producer.send(new ProducerRecord<>(TestEnv.ORDERS_TOPIC, run, "{\"event_id\":\"" + UUID.randomUUID()
                    + "\",\"order_id\":\"" + run + "-nul\",\"customer_email\":\"\\u0000\",\"amount\":\"1.00\","
                    + "\"currency\":\"EUR\"}"));
            // nested deeper than the JSON parser's limit
            producer.send(new ProducerRecord<>(TestEnv.ORDERS_TOPIC, run, "{\"order_id\":\"" + run + "-deep\",\"a\":"
                    + "[".repeat(2000) + "]".repeat(2000) + "}"));
            // an exponent whose plain form would be a billion digits
            producer.send(new ProducerRecord<>(TestEnv.ORDERS_TOPIC, run, "{\"event_id\":\"" + UUID.randomUUID()
                    + "\",\"order_id\":\"" + run + "-exponent\",\"customer_email\":\"x@example.com\","
                    + "\"amount\":\"1e999999999\",\"currency\":\"EUR\"}"));
            producer.send(new ProducerRecord<>(TestEnv.ORDERS_TOPIC, run, ""));
            producer.flush();
        }
        sendMarkerAndAwait(run);
        assertEquals(0, db.number("SELECT count(*) FROM invoice WHERE order_id LIKE ?", run + "-%"), "nothing invoiced");
        for (String consumer : List.of("billing", "analytics")) {
            assertEquals(8, db.number("SELECT count(*) FROM " + Db.DEAD_LETTERS + " WHERE consumer = ? AND payload LIKE ?",
                    consumer, "%" + run + "%"), consumer + ": one dead letter per bad event");
        }
        String amountError = db.text("SELECT error FROM " + Db.DEAD_LETTERS + " WHERE consumer = 'billing' AND payload LIKE ?",
                "%" + run + "-amount%");
        assertTrue(amountError.contains("field 'amount' must be a non-empty JSON string"), amountError);
        assertEquals(emptyBefore + 2, db.number(emptyPayloads), "the empty payload is dead-lettered for both consumers");
    }

    @Test
    void eventFailingEveryAttemptIsDeadLetteredAndTheNextOneIsProcessed() throws Exception {
        String run = "kafka-probe-" + UUID.randomUUID();
        String poisonId = UUID.randomUUID().toString();
        String nextId = UUID.randomUUID().toString();
        org.apache.kafka.clients.producer.RecordMetadata nextPosition;
        try (KafkaProducer<String, String> producer = SampleEvents.producer(BOOTSTRAP)) {
            ProducerRecord<String, String> poison = new ProducerRecord<>(TestEnv.PROBE_TOPIC, run,
                    SampleEvents.event("ignored", run + "-poison", "5.00", "EUR").json());
            poison.headers().add("ce_id", poisonId.getBytes(StandardCharsets.UTF_8));
            ProducerRecord<String, String> next = new ProducerRecord<>(TestEnv.PROBE_TOPIC, run,
                    SampleEvents.event("ignored", run + "-next", "5.00", "EUR").json());
            next.headers().add("ce_id", nextId.getBytes(StandardCharsets.UTF_8));
            ProducerRecord<String, String> noHeader = new ProducerRecord<>(TestEnv.PROBE_TOPIC, run,
                    SampleEvents.event("ignored", run + "-no-header", "5.00", "EUR").json());
            producer.send(poison);
            producer.send(noHeader);
            nextPosition = producer.send(next).get();
            producer.send(next); // duplicate by header id
            producer.flush();
        }
        assertEquals(1, db.await(WAIT, n -> n == 1, "SELECT count(*) FROM inbox WHERE consumer = 'probe-kafka' "
                + "AND event_id = ?", nextId), "the event after the poison one was processed");
        Thread.sleep(1000); // let the duplicate after it go through as well
        assertEquals(1, invoices(run + "-next"), "processed once, the duplicate skipped");
        assertEquals(TestEnv.PROBE_TOPIC + "/" + nextPosition.partition() + "@" + nextPosition.offset(),
                KafkaProbeConsumer.POSITIONS.get(run + "-next"),
                "the method read the record's topic, partition and offset through the message the inbox handed it");
        assertEquals(0, invoices(run + "-poison"), "every attempt rolled back");
        assertEquals(0, db.number("SELECT count(*) FROM inbox WHERE consumer = 'probe-kafka' AND event_id = ?", poisonId));
        assertEquals(3, db.number("SELECT attempts FROM inbox_dead_letter WHERE consumer = 'probe-kafka' "
                + "AND event_id = ?", poisonId), "dead-lettered after the 3 attempts");
        assertTrue(db.text("SELECT error FROM inbox_dead_letter WHERE consumer = 'probe-kafka' AND event_id = ?",
                poisonId).contains("poison order"));
        assertTrue(db.text("SELECT error FROM " + Db.DEAD_LETTERS + " WHERE consumer = 'probe-kafka' AND payload LIKE ?",
                "%" + run + "-no-header%").contains("Kafka header 'ce_id'"));
    }
}
