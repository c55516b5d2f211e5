package io.github.jakartainbox.billing.order;

import io.github.jakartainbox.billing.SampleEvents;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.jakartainbox.billing.SampleEvents.Event;
import io.github.jakartainbox.testing.Db;
import io.github.jakartainbox.testing.Deployments;
import io.github.jakartainbox.testing.TestEnv;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.UUID;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.shrinkwrap.api.spec.WebArchive;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Bad input on the real topic: each bad record ends as a dead letter with a clear reason and a log line, never
 * as a stopped channel or a half-written invoice; the same event id with another payload is reported. Each test
 * ends with a good "marker" event of the same key (same partition, after the bad ones), so once both consumers
 * processed it every record before it has been handled.
 */
@ExtendWith(ArquillianExtension.class)
class BadInputIT {

    private static final String BOOTSTRAP = TestEnv.BOOTSTRAP;
    private static final String TOPIC = TestEnv.ORDERS_TOPIC;
    private static final Duration WAIT = Duration.ofSeconds(90);
    private static final int LARGE_VALUE = 5 * 1024 * 1024;
    private final Db db = Db.lazy();

    @Deployment
    static WebArchive deployment() {
        return Deployments.billingWithProbes();
    }

    private static KafkaProducer<String, byte[]> producer() {
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, BOOTSTRAP);
        p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.MAX_REQUEST_SIZE_CONFIG, 2 * LARGE_VALUE);
        return new KafkaProducer<>(p);
    }

    private static byte[] utf8(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    private static String order(String eventId, String orderId, String amount, String currency) {
        return "{\"event_id\":\"" + eventId + "\",\"order_id\":\"" + orderId + "\",\"customer_email\":\"x@example.com\","
                + "\"amount\":" + amount + ",\"currency\":\"" + currency + "\"}";
    }

    /** Sends a good event with the same key after the others and waits until both consumers processed it. */
    private void markerAfter(KafkaProducer<String, byte[]> producer, String key) throws Exception {
        String id = UUID.randomUUID().toString();
        producer.send(new ProducerRecord<>(TOPIC, key, utf8(order(id, key + "-marker", "\"1.00\"", "EUR")))).get();
        assertEquals(2, db.await(WAIT, n -> n == 2, "SELECT count(*) FROM inbox WHERE event_id = ?", id),
                "the marker after the bad records was processed by billing and analytics: the channels go on");
    }

    private String error(String consumer, String eventId) {
        return db.text("SELECT error FROM inbox_dead_letter WHERE consumer = ? AND event_id = ?", consumer, eventId);
    }

    private static String messagesLog() throws Exception {
        // the test runs inside the server, whose working directory is its output directory
        return Files.readString(Path.of("logs", "messages.log"), StandardCharsets.UTF_8);
    }

    // one row per bad record and consumer however often it comes (schema V7): the same bytes count on the row
    private static final String TOMBSTONES = "SELECT coalesce(sum(deliveries), 0) FROM " + Db.DEAD_LETTERS + " WHERE consumer = 'billing' "
            + "AND payload IS NULL AND payload_bytes IS NULL AND error LIKE '%the payload is null%'";
    private static final String EMPTY = "SELECT coalesce(sum(deliveries), 0) FROM " + Db.DEAD_LETTERS + " WHERE consumer = 'billing' "
            + "AND payload = '' AND error LIKE '%the payload is empty%'";

    @Test
    void eachBadRecordIsDeadLetteredWithItsReasonAndALogLine() throws Exception {
        long tombstonesBefore = db.number(TOMBSTONES);
        long emptyBefore = db.number(EMPTY);
        String run = "bad-" + UUID.randomUUID();
        String malformed = UUID.randomUUID().toString();
        String amountType = UUID.randomUUID().toString();
        String currency = UUID.randomUUID().toString();
        String large = UUID.randomUUID().toString();
        String oddHeaders = UUID.randomUUID().toString();
        byte[] nonUtf8 = utf8("{\"event_id\":\"" + UUID.randomUUID() + "\",\"order_id\":\"" + run
                + "-latin1\",\"customer_email\":\"j_rg@example.com\",\"amount\":\"1.00\",\"currency\":\"EUR\"}");
        nonUtf8[new String(nonUtf8, StandardCharsets.UTF_8).indexOf("j_rg") + 1] = (byte) 0xf6; // ISO-8859-1, not UTF-8
        String largeValue = "{\"event_id\":\"" + large + "\",\"order_id\":\"" + run + "-large\",\"pad\":\""
                + "x".repeat(LARGE_VALUE) + "\"}";
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, BOOTSTRAP))) {
            admin.incrementalAlterConfigs(Map.of(new ConfigResource(ConfigResource.Type.TOPIC, TOPIC), List.of(
                    new AlterConfigOp(new ConfigEntry(TopicConfig.MAX_MESSAGE_BYTES_CONFIG,
                            Integer.toString(2 * LARGE_VALUE)), AlterConfigOp.OpType.SET)))).all().get();
        }
        try (KafkaProducer<String, byte[]> producer = producer()) {
            producer.send(new ProducerRecord<>(TOPIC, run, utf8("{\"event_id\":\"" + malformed + "\",\"order_id\":\""
                    + run + "-malformed\",\"amount\":")));
            producer.send(new ProducerRecord<>(TOPIC, run, utf8(order(UUID.randomUUID().toString(), run + "-trailing",
                    "\"1.00\"", "EUR") + " }}} not json")));
            producer.send(new ProducerRecord<>(TOPIC, run, utf8(order(amountType, run + "-amount", "12.5", "EUR"))));
            producer.send(new ProducerRecord<>(TOPIC, run, utf8(order(currency, run + "-currency", "\"1.00\"", "XYZ"))));
            producer.send(new ProducerRecord<>(TOPIC, run, new byte[0]));
            producer.send(new ProducerRecord<>(TOPIC, run, null)); // a tombstone
            producer.send(new ProducerRecord<>(TOPIC, run, utf8(largeValue)));
            producer.send(new ProducerRecord<>(TOPIC, run, nonUtf8));
            ProducerRecord<String, byte[]> odd = new ProducerRecord<>(TOPIC, run,
                    utf8(order(oddHeaders, run + "-odd-headers", "\"3.00\"", "EUR")));
            odd.headers().add("x-odd", new byte[] {0, (byte) 0xff, (byte) 0xc3, 0x28, '\n'});
            odd.headers().add("x-null", null);
            odd.headers().add("\u0000\u00ff", utf8("name with odd characters"));
            producer.send(odd);
            markerAfter(producer, run);
        }

        assertEquals(0, db.number("SELECT count(*) FROM invoice WHERE order_id LIKE ? AND order_id <> ? AND order_id <> ?",
                run + "-%", run + "-marker", run + "-odd-headers"), "no invoice, not even half of one, for a bad record");
        assertEquals(1, db.number("SELECT count(*) FROM invoice WHERE order_id = ?", run + "-odd-headers"),
                "headers with odd bytes do not matter to a consumer that reads its id from the payload");

        for (String consumer : List.of("billing", "analytics")) {
            assertTrue(error(consumer, amountType).contains("field 'amount' must be a non-empty JSON string, got 12.5"),
                    error(consumer, amountType));
            assertTrue(error(consumer, currency).contains("currency 'XYZ' is not an ISO 4217 currency code"), error(consumer, currency));
            assertTrue(error(consumer, large).contains("is " + utf8(largeValue).length + " bytes, more than the 65536"),
                    error(consumer, large));
            assertEquals(utf8(largeValue).length, db.number("SELECT octet_length(payload) FROM " + Db.DEAD_LETTERS + " "
                    + "WHERE consumer = ? AND event_id = ?", consumer, large), "the large value is kept whole for re-drive");
        }
        // refused by both consumers, stored once (schema V14): before, each dead letter held its own copy
        assertEquals(1, db.number("SELECT count(DISTINCT payload_ref) FROM inbox_dead_letter WHERE event_id = ? "
                + "AND consumer IN ('billing', 'analytics')", large), "one payload shared by the two dead letters");
        assertEquals(1, db.number("SELECT count(*) FROM inbox_dead_letter_payload WHERE payload LIKE ?",
                "{\"event_id\":\"" + large + "\"%"), "the large value is stored once");
        // no event id can be read from these: dead-lettered without one, found by payload
        String malformedError = db.text("SELECT error FROM " + Db.DEAD_LETTERS + " WHERE consumer = 'billing' AND payload LIKE ?",
                "%" + malformed + "%");
        assertTrue(malformedError.contains("payload is not valid JSON"), malformedError);
        String trailingError = db.text("SELECT error FROM " + Db.DEAD_LETTERS + " WHERE consumer = 'billing' AND payload LIKE ?",
                "%" + run + "-trailing%");
        assertTrue(trailingError.contains("payload is not valid JSON"), trailingError);
        String nonUtf8Row = "SELECT %s FROM " + Db.DEAD_LETTERS + " WHERE consumer = 'billing' AND payload_bytes = decode(?, 'hex')";
        String hex = HexFormat.of().formatHex(nonUtf8);
        assertTrue(db.text(nonUtf8Row.formatted("error"), hex).contains("not valid UTF-8"),
                "the non-UTF-8 value is dead-lettered byte for byte, with its reason");
        assertNull(db.text(nonUtf8Row.formatted("payload"), hex), "no lossy text copy");
        assertEquals(tombstonesBefore + 1, db.number(TOMBSTONES), "the tombstone is dead-lettered, not dropped");
        assertEquals(emptyBefore + 1, db.number(EMPTY), "the empty value is dead-lettered, not dropped");

        String log = messagesLog();
        for (String id : List.of(amountType, currency, large)) {
            assertTrue(log.contains("INBOX0202E") && log.contains("event " + id + ": dead-lettered"),
                    "a log line names dead-lettered event " + id);
        }
        assertTrue(log.contains("INBOX0204E: Consumer billing: a delivery's event id is unusable"),
                "a log line for the record without a usable event id");
        assertTrue(log.contains("INBOX0226E: Consumer billing: a delivery without a usable event id was dead-lettered")
                        && log.contains("it cannot be re-driven"),
                "its dead letter's line says to discard it (INBOX0202E said to re-drive it, which is refused)");
        // a refusal the inbox handles (dead-lettered above) is not an FFDC incident: leaving the attempt's
        // @Transactional method, it would be recorded by Liberty (UOWManagerImpl.runUnderCurrentUOW), one FFDC1015I
        // line and file for the first such refusal
        List<String> incidents = log.lines().filter(line -> line.contains("FFDC1015I")
                && line.contains("runUnderCurrentUOW") && line.contains("UnprocessableEventException")).toList();
        assertEquals(List.of(), incidents, "no FFDC incident for a refusal the inbox dead-lettered");
    }

    @Test
    void sameEventIdWithAnotherPayloadIsReportedNotSilentlySkipped() throws Exception {
        String run = "reuse-" + UUID.randomUUID();
        String eventId = UUID.randomUUID().toString();
        Event first = SampleEvents.event(eventId, run + "-1", "10.00", "EUR");
        Event other = SampleEvents.event(eventId, run + "-2", "99.00", "EUR");
        Event third = SampleEvents.event(eventId, run + "-3", "55.00", "EUR");
        try (KafkaProducer<String, byte[]> producer = producer()) {
            producer.send(new ProducerRecord<>(TOPIC, run, utf8(first.json())));
            producer.send(new ProducerRecord<>(TOPIC, run, utf8(first.json()))); // a plain duplicate: same bytes
            producer.send(new ProducerRecord<>(TOPIC, run, utf8(other.json()))); // the id reused for another order
            producer.send(new ProducerRecord<>(TOPIC, run, utf8(third.json()))); // and for a third one
            producer.send(new ProducerRecord<>(TOPIC, run, utf8(other.json()))); // the second one delivered again
            markerAfter(producer, run);
        }
        assertEquals(new BigDecimal("10.00"), new BigDecimal(db.text("SELECT amount FROM invoice WHERE event_id = ?",
                eventId)), "the first payload was processed");
        assertEquals(1, db.number("SELECT count(*) FROM invoice WHERE event_id = ?", eventId), "and only it");
        for (String consumer : List.of("billing", "analytics")) {
            String reason = error(consumer, eventId);
            assertTrue(reason.contains("was already processed by consumer " + consumer + " with a different payload"),
                    reason);
            // each conflicting payload keeps a row of its own (until schema V9 the third overwrote the second, which
            // was then stored nowhere); a payload delivered again counts on its row
            assertEquals(List.of(other.json() + " 2", third.json() + " 1"), db.texts("SELECT payload || ' ' || "
                    + "deliveries FROM " + Db.DEAD_LETTERS + " WHERE consumer = ? AND event_id = ? ORDER BY id", consumer,
                    eventId), "the dead letters hold the conflicting payloads, not the processed one");
            assertEquals(32, db.number("SELECT octet_length(payload_sha256) FROM inbox WHERE consumer = ? AND event_id = ?",
                    consumer, eventId), "the inbox row keeps the processed payload's SHA-256");
        }
        assertTrue(messagesLog().contains("INBOX0102E: Consumer billing: event " + eventId
                + " arrived again with a different payload"), "a log line reports the reused id");
    }
}
