package io.github.jakartainbox.inbox.tracing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.jakartainbox.billing.SampleEvents;
import io.github.jakartainbox.testing.Db;
import io.github.jakartainbox.testing.Deployments;
import io.github.jakartainbox.testing.MemorySpans;
import io.github.jakartainbox.testing.TestEnv;
import io.github.jakartainbox.testing.probes.TracingProbeConsumer;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.sdk.trace.data.EventData;
import io.opentelemetry.sdk.trace.data.SpanData;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.shrinkwrap.api.spec.WebArchive;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Tracing on the real Liberty with mpTelemetry-2.0: records sent to Kafka with a W3C {@code traceparent} header (the
 * test plays the producer and makes its trace and span ids) are consumed by the test consumer "probe-trace"
 * ({@link TracingProbeConsumer}: {@code Message<String>}, a topic of this build, event id in header {@code ce_id}).
 * The application-level OpenTelemetry SDK exports to {@link MemorySpans}, read here in the server. Spans are found by the producer's trace
 * id, so records of other tests or runs cannot be mistaken for these.
 */
@ExtendWith(ArquillianExtension.class)
class TracingIT {

    /** The topic and group of channel probe-trace: new at each build (test server.xml, it.run.id). */
    private static final String RUN_ID = System.getenv().getOrDefault("IT_RUN_ID", "local");
    private static final String TOPIC = "it.probe.trace." + RUN_ID;
    private static final String GROUP = "it-probe-trace-" + RUN_ID;
    private static final String CONSUMER = "probe-trace";
    private static final Duration WAIT = Duration.ofSeconds(90);
    private final Db db = Db.lazy();

    @Deployment
    static WebArchive deployment() {
        return Deployments.billingWithProbes();
    }

    /** The producer's span, as a W3C trace context header names it (version 00, sampled). */
    private record ProducerSpan(String traceId, String spanId) {
        static ProducerSpan random() {
            HexFormat hex = HexFormat.of();
            byte[] trace = new byte[16];
            byte[] span = new byte[8];
            ThreadLocalRandom.current().nextBytes(trace);
            ThreadLocalRandom.current().nextBytes(span);
            trace[0] |= 1; // never all zero (invalid)
            span[0] |= 1;
            return new ProducerSpan(hex.formatHex(trace), hex.formatHex(span));
        }

        String traceparent() {
            return "00-" + traceId + "-" + spanId + "-01";
        }
    }

    private RecordMetadata send(String eventId, String orderId, String amount, ProducerSpan parent) throws Exception {
        String json = SampleEvents.event(eventId, orderId, amount, "EUR").json();
        ProducerRecord<String, String> record = new ProducerRecord<>(TOPIC, orderId, json);
        record.headers().add("ce_id", eventId.getBytes(StandardCharsets.UTF_8));
        if (parent != null) {
            record.headers().add("traceparent", parent.traceparent().getBytes(StandardCharsets.UTF_8));
        }
        try (KafkaProducer<String, String> producer = SampleEvents.producer(TestEnv.BOOTSTRAP)) {
            return producer.send(record).get();
        }
    }

    /** @return the one span of the consumer in the producer's trace */
    private static SpanData spanOf(ProducerSpan producer) throws InterruptedException {
        List<SpanData> spans = MemorySpans.await(s -> s.getTraceId().equals(producer.traceId())
                && s.getName().equals(CONSUMER), 1, WAIT);
        assertEquals(1, spans.size(), "one " + CONSUMER + " span in trace " + producer.traceId() + ": " + spans);
        return spans.get(0);
    }

    private static String text(SpanData span, String key) {
        return span.getAttributes().get(AttributeKey.stringKey(key));
    }

    private static Long number(SpanData span, String key) {
        return span.getAttributes().get(AttributeKey.longKey(key));
    }

    /** The messaging attributes every delivery span of a Kafka record carries, and its place in the trace. */
    private static void assertDelivery(SpanData span, ProducerSpan producer, RecordMetadata sent, String eventId,
                                       String key) {
        assertEquals(CONSUMER, span.getName(), "named after the consumer");
        assertEquals(SpanKind.CONSUMER, span.getKind());
        assertEquals(producer.traceId(), span.getTraceId(), "continues the producer's trace");
        assertEquals(producer.spanId(), span.getParentSpanId(), "child of the producer's span");
        assertTrue(span.getParentSpanContext().isRemote(), "the parent came from the record's header");
        assertEquals("io.github.jakartainbox.inbox", span.getInstrumentationScopeInfo().getName());
        assertEquals("kafka", text(span, "messaging.system"));
        assertEquals(TOPIC, text(span, "messaging.destination.name"));
        assertEquals(String.valueOf(sent.partition()), text(span, "messaging.destination.partition.id"));
        assertEquals(sent.offset(), number(span, "messaging.kafka.offset"));
        assertEquals(key, text(span, "messaging.kafka.message.key"));
        assertEquals(GROUP, text(span, "messaging.consumer.group.name"), "group.id of channel probe-trace");
        assertEquals("process", text(span, "messaging.operation.type"));
        assertEquals(CONSUMER, text(span, "inbox.consumer"));
        assertEquals(eventId, text(span, "inbox.event_id"));
        assertTrue(span.hasEnded());
    }

    @Test
    void newEventDuplicateAndReusedIdEachGetASpanInTheirProducersTrace() throws Exception {
        String run = "trace-" + UUID.randomUUID();
        String eventId = UUID.randomUUID().toString();
        ProducerSpan first = ProducerSpan.random();
        ProducerSpan again = ProducerSpan.random();
        ProducerSpan reused = ProducerSpan.random();
        RecordMetadata firstSent = send(eventId, run, "10.00", first);
        RecordMetadata againSent = send(eventId, run, "10.00", again); // the same bytes: a duplicate
        RecordMetadata reusedSent = send(eventId, run, "99.00", reused); // the id reused for other bytes

        SpanData processed = spanOf(first);
        assertDelivery(processed, first, firstSent, eventId, run);
        assertEquals("processed", text(processed, "inbox.outcome"));
        assertEquals(StatusCode.UNSET, processed.getStatus().getStatusCode());
        assertNull(number(processed, "inbox.retries"), "no retry");

        SpanData duplicate = spanOf(again);
        assertDelivery(duplicate, again, againSent, eventId, run);
        assertEquals("duplicate", text(duplicate, "inbox.outcome"));
        assertEquals(StatusCode.UNSET, duplicate.getStatus().getStatusCode(), "a duplicate is no error");

        SpanData mismatch = spanOf(reused);
        assertDelivery(mismatch, reused, reusedSent, eventId, run);
        assertEquals("fingerprint-mismatch", text(mismatch, "inbox.outcome"));
        assertEquals(StatusCode.ERROR, mismatch.getStatus().getStatusCode(), "reported, not silently skipped");

        // the invoice's outbox row carries the trace context of the processing span: the mailer's record continues it
        String traceparent = db.text("SELECT headers->>'traceparent' FROM outbox WHERE payload::jsonb ->> 'order_id' = ?",
                run);
        assertEquals("00-" + first.traceId() + "-" + processed.getSpanId() + "-01", traceparent,
                "the outbox row written during the delivery holds the delivery span as parent");
    }

    @Test
    void deadLetterSpanShowsEachRetryAndTheDeadLetter() throws Exception {
        String run = "trace-" + UUID.randomUUID() + "-poison"; // probe-trace fails every attempt for "-poison"
        String eventId = UUID.randomUUID().toString();
        ProducerSpan parent = ProducerSpan.random();
        RecordMetadata sent = send(eventId, run, "5.00", parent);

        SpanData span = spanOf(parent);
        assertDelivery(span, parent, sent, eventId, run);
        assertEquals("dead-lettered", text(span, "inbox.outcome"));
        assertEquals(StatusCode.ERROR, span.getStatus().getStatusCode());
        assertTrue(span.getStatus().getDescription().startsWith("dead-lettered: "), span.getStatus().toString());
        assertFalse(text(span, "error.type").isBlank(), "error.type names the failure");
        // retry.max-attempts 3 (server.xml default): attempts 1 and 2 are retried, attempt 3 is dead-lettered
        List<EventData> retries = span.getEvents().stream().filter(e -> e.getName().equals("inbox.retry")).toList();
        assertEquals(List.of(1L, 2L), retries.stream().map(e -> e.getAttributes()
                .get(AttributeKey.longKey("inbox.attempt"))).toList(), "one event per retried attempt");
        assertEquals(2L, number(span, "inbox.retries"));
        assertTrue(retries.get(0).getAttributes().get(AttributeKey.stringKey("exception.message"))
                .contains("poison order " + run), "the retry event says why: " + retries.get(0));
        assertEquals(1, db.number("SELECT count(*) FROM inbox_dead_letter WHERE consumer = ? AND event_id = ?",
                CONSUMER, eventId), "and it is a dead letter");
    }

    /**
     * The example's chain: an order with the producer's traceparent is billed (span "billing") and counted (span
     * "analytics"), both children of the producer's span; the invoice's outbox row carries the billing span, so the
     * mailer's delivery of {@code invoices.issued} (span "mailer") is its child, in the same trace. Needs the tests'
     * SMTP server (bin/test starts it) for the mailer to finish.
     */
    @Test
    void orderInvoiceAndMailAreOneTrace() throws Exception {
        ProducerSpan producer = ProducerSpan.random();
        String orderId = "trace-chain-" + UUID.randomUUID();
        SampleEvents.Event order = SampleEvents.event(UUID.randomUUID().toString(), orderId, "42.00", "EUR");
        ProducerRecord<String, String> record = new ProducerRecord<>(TestEnv.ORDERS_TOPIC, orderId, order.json());
        record.headers().add("traceparent", producer.traceparent().getBytes(StandardCharsets.UTF_8));
        try (KafkaProducer<String, String> kafka = SampleEvents.producer(TestEnv.BOOTSTRAP)) {
            kafka.send(record).get();
        }
        List<SpanData> spans = MemorySpans.await(s -> s.getTraceId().equals(producer.traceId())
                && List.of("billing", "analytics", "mailer").contains(s.getName()), 3, WAIT);
        assertEquals(3, spans.size(), "billing, analytics and mailer in the producer's trace: " + spans);
        SpanData billing = spans.stream().filter(s -> s.getName().equals("billing")).findFirst().orElseThrow();
        SpanData analytics = spans.stream().filter(s -> s.getName().equals("analytics")).findFirst().orElseThrow();
        SpanData mailer = spans.stream().filter(s -> s.getName().equals("mailer")).findFirst().orElseThrow();
        assertEquals(producer.spanId(), billing.getParentSpanId());
        assertEquals(producer.spanId(), analytics.getParentSpanId());
        assertEquals(order.eventId(), text(billing, "inbox.event_id"));
        assertEquals(TestEnv.ORDERS_TOPIC, text(billing, "messaging.destination.name"));
        assertEquals("processed", text(billing, "inbox.outcome"));
        assertEquals("processed", text(analytics, "inbox.outcome"));
        assertEquals(billing.getSpanId(), mailer.getParentSpanId(), "the mail continues the billing delivery");
        assertEquals(TestEnv.INVOICES_TOPIC, text(mailer, "messaging.destination.name"));
        assertEquals("processed", text(mailer, "inbox.outcome"));
    }

    @Test
    void recordWithoutTraceparentStartsANewTrace() throws Exception {
        String run = "trace-" + UUID.randomUUID();
        String eventId = UUID.randomUUID().toString();
        send(eventId, run, "1.00", null);
        List<SpanData> spans = MemorySpans.await(s -> CONSUMER.equals(s.getName())
                && eventId.equals(text(s, "inbox.event_id")), 1, WAIT);
        assertEquals(1, spans.size(), spans.toString());
        assertFalse(spans.get(0).getParentSpanContext().isValid(), "a root span: no producer context to continue");
        assertEquals("processed", text(spans.get(0), "inbox.outcome"));
    }
}
