package io.github.jakartainbox.inbox.tracing;

import io.github.jakartainbox.inbox.spi.DeliveryTracer;
import io.github.jakartainbox.inbox.spi.DeliverySpan;
import io.github.jakartainbox.inbox.logging.InboxMessage;
import jakarta.annotation.PostConstruct;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Instance;
import jakarta.enterprise.inject.spi.BeanManager;
import jakarta.inject.Inject;
import java.lang.reflect.Method;
import java.util.function.BiConsumer;
import org.eclipse.microprofile.reactive.messaging.Message;

/**
 * Tracing of deliveries through {@code @Idempotent}, when the application can use OpenTelemetry: the
 * {@code mpTelemetry-2.0} feature is enabled, its SDK too ({@code otel.sdk.disabled=false}), and the application sees
 * third-party APIs ({@code <classloader apiTypeVisibility="+third-party"/>}, the type Liberty gives the OpenTelemetry
 * API). Otherwise {@link DeliveryTracer#NONE}: no span and no allocation; and without the API no OpenTelemetry class
 * is ever loaded, so the inbox runs in a server without MicroProfile Telemetry. The choice is made once, logged
 * (INBOX0500I / INBOX0501I), and holds until the application restarts.
 *
 * <p>This bean names no OpenTelemetry type in its fields or signatures: {@link OpenTelemetryDeliveryTracer}, which
 * does, has no bean-defining annotation (the archive's discovery mode is {@code annotated}), so CDI never loads it;
 * it is created here only after the API was found.
 */
@ApplicationScoped
public class InboxTracing implements DeliveryTracer {

    /** A class of the OpenTelemetry API, looked up without initialising it. */
    static final String API_CLASS = "io.opentelemetry.api.OpenTelemetry";

    @Inject
    BeanManager beans;

    private DeliveryTracer tracer = DeliveryTracer.NONE;

    @PostConstruct
    void choose() {
        tracer = choose(InboxTracing.class.getClassLoader(), beans.createInstance());
    }

    /**
     * @param loader the application's class loader (the inbox jar's)
     * @param beans  the application's beans
     * @return the OpenTelemetry tracer when the API is visible to {@code loader} and an {@code OpenTelemetry} bean
     *         resolves, else {@link DeliveryTracer#NONE}
     */
    static DeliveryTracer choose(ClassLoader loader, Instance<Object> beans) {
        Class<?> api;
        try {
            api = Class.forName(API_CLASS, false, loader);
        } catch (ClassNotFoundException | LinkageError e) {
            InboxMessage.INBOX0501I.log("the OpenTelemetry API is not visible to the application. To trace "
                    + "deliveries enable the mpTelemetry-2.0 feature and give the application third-party API "
                    + "visibility (<classloader apiTypeVisibility=\"+third-party\"/>)");
            return DeliveryTracer.NONE;
        }
        Instance<?> openTelemetry = beans.select(api);
        if (!openTelemetry.isResolvable()) {
            InboxMessage.INBOX0501I.log("no OpenTelemetry bean resolves; enable the mpTelemetry-2.0 feature");
            return DeliveryTracer.NONE;
        }
        DeliveryTracer found = OpenTelemetryTracers.of(openTelemetry.get());
        if (found == null) {
            InboxMessage.INBOX0501I.log("the OpenTelemetry SDK is disabled (otel.sdk.disabled is true, its "
                    + "default; set otel.sdk.disabled=false in the environment or bootstrap.properties)");
            return DeliveryTracer.NONE;
        }
        InboxMessage.INBOX0500I.log(OpenTelemetryDeliveryTracer.SCOPE);
        return found;
    }

    /**
     * Starts the span of one delivery and makes it current; see {@link DeliveryTracer#start}.
     *
     * @param consumer the consumer name
     * @param method   the {@code @Idempotent} method
     * @param message  the message, {@code null} for a payload-only method
     * @return the span; {@link DeliverySpan#NONE} when tracing is off
     */
    @Override
    public DeliverySpan start(String consumer, Method method, Message<?> message) {
        return tracer.start(consumer, method, message);
    }

    /**
     * Writes the current trace context as header name and value pairs ({@code traceparent}, {@code tracestate}), for
     * a message recorded now and sent later (the outbox). Nothing when tracing is off or no span is current.
     *
     * @param carrier receives each header
     */
    @Override
    public void injectCurrent(BiConsumer<String, String> carrier) {
        tracer.injectCurrent(carrier);
    }

    /** Keeps the OpenTelemetry types out of {@link InboxTracing}'s own bytecode: loaded on the first call only. */
    static final class OpenTelemetryTracers {
        /**
         * @return the tracer, {@code null} when the instance is the no-op one (Liberty's while the SDK is disabled:
         *         {@code OpenTelemetry.noop()}): its spans would record nothing and pass nothing on, at a cost
         */
        static DeliveryTracer of(Object bean) {
            io.opentelemetry.api.OpenTelemetry openTelemetry = (io.opentelemetry.api.OpenTelemetry) bean;
            if (openTelemetry.getTracerProvider() == io.opentelemetry.api.trace.TracerProvider.noop()) {
                return null;
            }
            return new OpenTelemetryDeliveryTracer(openTelemetry);
        }
    }
}
