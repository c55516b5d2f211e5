package io.github.jakartainbox.inbox.tracing;

import io.github.jakartainbox.inbox.spi.DeliveryTracer;
import io.github.jakartainbox.inbox.spi.DeliverySpan;
import io.github.jakartainbox.inbox.spi.DeliveryOutcome;
import io.github.jakartainbox.inbox.consumer.IdempotentChannels;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanBuilder;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.Scope;
import io.opentelemetry.context.propagation.TextMapGetter;
import io.opentelemetry.context.propagation.TextMapPropagator;
import java.lang.annotation.Annotation;
import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BiConsumer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.Headers;
import org.eclipse.microprofile.config.ConfigProvider;
import org.eclipse.microprofile.reactive.messaging.Incoming;
import org.eclipse.microprofile.reactive.messaging.Message;

/**
 * One OpenTelemetry span per delivery, of kind CONSUMER, named after the consumer. Its parent is the producer's
 * span when the Kafka record carries W3C trace context headers ({@code traceparent}, read with the propagators
 * of the {@link OpenTelemetry} instance, by default W3C trace context and baggage), else the thread's current
 * context.
 *
 * <p>Attributes: the OpenTelemetry semantic conventions for messaging (version 1.27 and later:
 * {@code messaging.system}, {@code messaging.operation.type} and {@code .name}, {@code messaging.destination.name},
 * {@code messaging.destination.partition.id}, {@code messaging.kafka.offset}, {@code messaging.kafka.message.key},
 * {@code messaging.consumer.group.name}, {@code error.type}) and the inbox's own: {@code inbox.consumer},
 * {@code inbox.event_id}, {@code inbox.outcome} ({@link DeliveryOutcome}), {@code inbox.retries}. A retried
 * attempt is an event {@code inbox.retry} with {@code inbox.attempt}, {@code exception.type} and
 * {@code exception.message}.
 *
 * <p>This class names OpenTelemetry and Kafka types: it is loaded only when the application sees the OpenTelemetry
 * API ({@code InboxTracing} checks first).
 */
public final class OpenTelemetryDeliveryTracer implements DeliveryTracer {

    /** The instrumentation scope of the spans. */
    public static final String SCOPE = "io.github.jakartainbox.inbox";

    static final AttributeKey<String> MESSAGING_SYSTEM = AttributeKey.stringKey("messaging.system");
    static final AttributeKey<String> OPERATION_TYPE = AttributeKey.stringKey("messaging.operation.type");
    static final AttributeKey<String> OPERATION_NAME = AttributeKey.stringKey("messaging.operation.name");
    static final AttributeKey<String> DESTINATION = AttributeKey.stringKey("messaging.destination.name");
    static final AttributeKey<String> PARTITION = AttributeKey.stringKey("messaging.destination.partition.id");
    static final AttributeKey<Long> OFFSET = AttributeKey.longKey("messaging.kafka.offset");
    static final AttributeKey<String> MESSAGE_KEY = AttributeKey.stringKey("messaging.kafka.message.key");
    static final AttributeKey<String> CONSUMER_GROUP = AttributeKey.stringKey("messaging.consumer.group.name");
    static final AttributeKey<String> ERROR_TYPE = AttributeKey.stringKey("error.type");
    static final AttributeKey<String> CONSUMER = AttributeKey.stringKey("inbox.consumer");
    static final AttributeKey<String> EVENT_ID = AttributeKey.stringKey("inbox.event_id");
    static final AttributeKey<String> OUTCOME = AttributeKey.stringKey("inbox.outcome");
    static final AttributeKey<Long> RETRIES = AttributeKey.longKey("inbox.retries");
    static final AttributeKey<Long> ATTEMPT = AttributeKey.longKey("inbox.attempt");
    static final AttributeKey<String> EXCEPTION_TYPE = AttributeKey.stringKey("exception.type");
    static final AttributeKey<String> EXCEPTION_MESSAGE = AttributeKey.stringKey("exception.message");

    /** Reads trace context headers of a Kafka record (the last header of a name wins, as Kafka clients do). */
    private static final TextMapGetter<Headers> HEADERS = new TextMapGetter<>() {
        @Override
        public Iterable<String> keys(Headers carrier) {
            List<String> names = new ArrayList<>();
            carrier.forEach(h -> names.add(h.key()));
            return names;
        }

        @Override
        public String get(Headers carrier, String key) {
            if (carrier == null) {
                return null;
            }
            Header header = carrier.lastHeader(key);
            return header == null || header.value() == null ? null
                    : new String(header.value(), StandardCharsets.UTF_8);
        }
    };

    private final Tracer tracer;
    private final TextMapPropagator propagator;
    /** The consumer group of each method's {@code @Incoming} channel, "" when it has none; found once per method. */
    private final Map<Method, String> groups = new ConcurrentHashMap<>();

    /**
     * @param openTelemetry the application's instance (MicroProfile Telemetry's CDI bean)
     */
    public OpenTelemetryDeliveryTracer(OpenTelemetry openTelemetry) {
        this.tracer = openTelemetry.getTracer(SCOPE);
        this.propagator = openTelemetry.getPropagators().getTextMapPropagator();
    }

    @Override
    public DeliverySpan start(String consumer, Method method, Message<?> message) {
        ConsumerRecord<?, ?> record = record(message);
        Context parent = Context.current();
        if (record != null) {
            parent = propagator.extract(parent, record.headers(), HEADERS);
        }
        SpanBuilder builder = tracer.spanBuilder(consumer).setSpanKind(SpanKind.CONSUMER).setParent(parent)
                .setAttribute(CONSUMER, consumer)
                .setAttribute(OPERATION_TYPE, "process")
                .setAttribute(OPERATION_NAME, "process");
        String group = groups.computeIfAbsent(method, OpenTelemetryDeliveryTracer::groupOf);
        if (!group.isEmpty()) {
            builder.setAttribute(CONSUMER_GROUP, group);
        }
        if (record != null) {
            builder.setAttribute(MESSAGING_SYSTEM, "kafka")
                    .setAttribute(DESTINATION, record.topic())
                    .setAttribute(PARTITION, String.valueOf(record.partition()))
                    .setAttribute(OFFSET, record.offset());
            if (record.key() instanceof String key) {
                builder.setAttribute(MESSAGE_KEY, key);
            }
        }
        Span span = builder.startSpan();
        return new OpenTelemetrySpan(span, span.makeCurrent());
    }

    @Override
    public void injectCurrent(BiConsumer<String, String> carrier) {
        if (Span.current().getSpanContext().isValid()) {
            propagator.inject(Context.current(), carrier, BiConsumer::accept);
        }
    }

    /** @return the Kafka record of the message, {@code null} without a message or for another connector's */
    private static ConsumerRecord<?, ?> record(Message<?> message) {
        if (message == null) {
            return null;
        }
        try {
            return message.unwrap(ConsumerRecord.class);
        } catch (RuntimeException e) {
            return null; // not a Kafka message (another connector, or a test's Message.of)
        }
    }

    /** @return the {@code group.id} of the method's first {@code @Incoming} channel, "" when there is none */
    private static String groupOf(Method method) {
        // not getAnnotationsByType: that resolves @Incoming's repeatable container, a SmallRye type Liberty hides
        for (Annotation annotation : method.getAnnotations()) {
            if (annotation instanceof Incoming incoming) {
                try {
                    return IdempotentChannels.attribute(ConfigProvider.getConfig(), incoming.value(), "group.id")
                            .orElse("");
                } catch (RuntimeException e) {
                    return "";
                }
            }
        }
        return "";
    }

    /** The span of one delivery, with the scope that made it current. */
    private static final class OpenTelemetrySpan implements DeliverySpan {

        private final Span span;
        private final Scope scope;
        private long retries;

        OpenTelemetrySpan(Span span, Scope scope) {
            this.span = span;
            this.scope = scope;
        }

        @Override
        public void eventId(String eventId) {
            if (eventId != null) {
                span.setAttribute(EVENT_ID, eventId);
            }
        }

        @Override
        public void retry(int attempt, Throwable failure) {
            retries++;
            if (span.isRecording()) {
                span.addEvent("inbox.retry", Attributes.of(ATTEMPT, (long) attempt,
                        EXCEPTION_TYPE, failure.getClass().getName(),
                        EXCEPTION_MESSAGE, String.valueOf(failure.getMessage())));
            }
        }

        @Override
        public void outcome(DeliveryOutcome outcome, Throwable cause) {
            span.setAttribute(OUTCOME, outcome.value());
            if (outcome == DeliveryOutcome.DEAD_LETTERED || outcome == DeliveryOutcome.FINGERPRINT_MISMATCH
                    || outcome == DeliveryOutcome.RETRIED) {
                span.setStatus(StatusCode.ERROR, cause == null ? outcome.value()
                        : outcome.value() + ": " + cause.getMessage());
                if (cause != null) {
                    span.setAttribute(ERROR_TYPE, cause.getClass().getName());
                }
            }
        }

        @Override
        public void end() {
            try {
                if (retries > 0) {
                    span.setAttribute(RETRIES, retries);
                }
                span.end();
            } finally {
                scope.close();
            }
        }
    }
}
