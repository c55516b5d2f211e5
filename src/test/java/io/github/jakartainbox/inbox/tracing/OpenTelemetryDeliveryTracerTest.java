package io.github.jakartainbox.inbox.tracing;

import io.github.jakartainbox.inbox.spi.DeliverySpan;
import io.github.jakartainbox.inbox.spi.DeliveryOutcome;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.api.trace.TracerProvider;
import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.propagation.ContextPropagators;
import io.opentelemetry.sdk.common.CompletableResultCode;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import io.opentelemetry.sdk.trace.export.SpanExporter;
import java.nio.charset.StandardCharsets;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.eclipse.microprofile.reactive.messaging.Message;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The span of one delivery, with the OpenTelemetry SDK and a W3C trace context propagator (no server). */
class OpenTelemetryDeliveryTracerTest {

    static final String TRACE_ID = "4bf92f3577b34da6a3ce929d0e0e4736";
    static final String PARENT_ID = "00f067aa0ba902b7";

    private final List<SpanData> exported = new CopyOnWriteArrayList<>();
    private final SdkTracerProvider provider = SdkTracerProvider.builder()
            .addSpanProcessor(SimpleSpanProcessor.create(new SpanExporter() {
                @Override
                public CompletableResultCode export(Collection<SpanData> spans) {
                    exported.addAll(spans);
                    return CompletableResultCode.ofSuccess();
                }

                @Override
                public CompletableResultCode flush() {
                    return CompletableResultCode.ofSuccess();
                }

                @Override
                public CompletableResultCode shutdown() {
                    return CompletableResultCode.ofSuccess();
                }
            })).build();

    private final OpenTelemetry openTelemetry = new OpenTelemetry() {
        @Override
        public TracerProvider getTracerProvider() {
            return provider;
        }

        @Override
        public ContextPropagators getPropagators() {
            return ContextPropagators.create(W3CTraceContextPropagator.getInstance());
        }
    };

    @AfterEach
    void close() {
        provider.close();
    }

    /** A message of liberty-kafka: {@code unwrap(ConsumerRecord.class)} gives the record. */
    static Message<String> kafkaMessage(ConsumerRecord<String, String> record) {
        return new Message<>() {
            @Override
            public String getPayload() {
                return record.value();
            }

            @Override
            public <C> C unwrap(Class<C> unwrapType) {
                if (unwrapType == ConsumerRecord.class) {
                    return unwrapType.cast(record);
                }
                throw new IllegalArgumentException("cannot unwrap to " + unwrapType);
            }
        };
    }

    static ConsumerRecord<String, String> record(String traceparent) {
        ConsumerRecord<String, String> record = new ConsumerRecord<>("orders.confirmed", 2, 41L, "order-7", "{}");
        if (traceparent != null) {
            record.headers().add("traceparent", traceparent.getBytes(StandardCharsets.UTF_8));
        }
        return record;
    }

    private static String text(SpanData span, String key) {
        return span.getAttributes().get(AttributeKey.stringKey(key));
    }

    @Test
    void continuesTheProducersTraceAndCarriesTheMessagingAttributes() throws Exception {
        OpenTelemetryDeliveryTracer tracer = new OpenTelemetryDeliveryTracer(openTelemetry);
        DeliverySpan span = tracer.start("billing", Object.class.getMethod("toString"),
                kafkaMessage(record("00-" + TRACE_ID + "-" + PARENT_ID + "-01")));
        String current = Span.current().getSpanContext().getSpanId();
        span.eventId("e-1");
        span.retry(1, new IllegalStateException("first try"));
        span.outcome(DeliveryOutcome.PROCESSED, null);
        Map<String, String> headers = new TreeMap<>();
        tracer.injectCurrent(headers::put);
        span.end();

        assertFalse(Span.current().getSpanContext().isValid(), "the scope is closed at the end");
        assertEquals(1, exported.size());
        SpanData data = exported.get(0);
        assertEquals(current, data.getSpanId(), "the span was current while the delivery ran");
        assertEquals("billing", data.getName());
        assertEquals(TRACE_ID, data.getTraceId());
        assertEquals(PARENT_ID, data.getParentSpanId());
        assertEquals("kafka", text(data, "messaging.system"));
        assertEquals("orders.confirmed", text(data, "messaging.destination.name"));
        assertEquals("2", text(data, "messaging.destination.partition.id"));
        assertEquals(41L, data.getAttributes().get(AttributeKey.longKey("messaging.kafka.offset")));
        assertEquals("order-7", text(data, "messaging.kafka.message.key"));
        assertEquals("e-1", text(data, "inbox.event_id"));
        assertEquals("processed", text(data, "inbox.outcome"));
        assertEquals(1L, data.getAttributes().get(AttributeKey.longKey("inbox.retries")));
        assertEquals("inbox.retry", data.getEvents().get(0).getName());
        assertNull(text(data, "messaging.consumer.group.name"), "toString has no @Incoming channel");
        assertEquals("00-" + TRACE_ID + "-" + data.getSpanId() + "-01", headers.get("traceparent"),
                "a message sent on from the delivery continues its span");
    }

    @Test
    void payloadOnlyDeliveryHasNoRecordSoNoParentAndNoKafkaAttributes() throws Exception {
        OpenTelemetryDeliveryTracer tracer = new OpenTelemetryDeliveryTracer(openTelemetry);
        DeliverySpan span = tracer.start("analytics", Object.class.getMethod("toString"), null);
        span.outcome(DeliveryOutcome.DEAD_LETTERED, new IllegalArgumentException("bad amount"));
        span.end();
        SpanData data = exported.get(0);
        assertFalse(data.getParentSpanContext().isValid(), "a root span");
        assertNull(text(data, "messaging.system"));
        assertNull(text(data, "messaging.destination.name"));
        assertEquals("dead-lettered", text(data, "inbox.outcome"));
        assertEquals(StatusCode.ERROR, data.getStatus().getStatusCode());
        assertEquals(IllegalArgumentException.class.getName(), text(data, "error.type"));
        assertTrue(data.getStatus().getDescription().contains("bad amount"));
    }

    @Test
    void noTraceContextHeadersOutsideASpan() {
        Map<String, String> headers = new TreeMap<>();
        new OpenTelemetryDeliveryTracer(openTelemetry).injectCurrent(headers::put);
        assertTrue(headers.isEmpty());
    }
}
