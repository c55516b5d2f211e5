package io.github.jakartainbox.inbox.spi;

import java.lang.reflect.Method;
import java.util.function.BiConsumer;
import org.eclipse.microprofile.reactive.messaging.Message;

/**
 * Starts the span of a delivery. Its types name no OpenTelemetry class, so that the inbox loads and runs in a server
 * without MicroProfile Telemetry: there {@link #NONE} is used. Not an API for applications.
 */
public interface DeliveryTracer {

    /** Traces nothing and allocates nothing. */
    DeliveryTracer NONE = new DeliveryTracer() {
        @Override
        public DeliverySpan start(String consumer, Method method, Message<?> message) {
            return DeliverySpan.NONE;
        }

        @Override
        public void injectCurrent(BiConsumer<String, String> carrier) {
        }
    };

    /**
     * Starts the delivery's span and makes it the thread's current one until {@link DeliverySpan#end()}.
     *
     * @param consumer the consumer name (the span's name)
     * @param method   the {@code @Idempotent} method (its {@code @Incoming} channel gives the consumer group)
     * @param message  the delivered message, {@code null} when the method takes the payload itself: then no Kafka
     *                 record is reachable, so there is no parent from a {@code traceparent} header, no topic,
     *                 partition or offset
     * @return the span to report to
     */
    DeliverySpan start(String consumer, Method method, Message<?> message);

    /**
     * Writes the thread's current trace context as message headers (W3C {@code traceparent}, {@code tracestate}),
     * for a message sent on from here (the outbox).
     *
     * @param carrier receives header name and value; not called when there is no context to pass on
     */
    void injectCurrent(BiConsumer<String, String> carrier);
}
