package io.github.jakartainbox.inbox.tracing;

import io.github.jakartainbox.inbox.spi.DeliveryTracer;
import io.github.jakartainbox.inbox.spi.DeliverySpan;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.lang.reflect.Method;
import java.net.URL;
import java.net.URLClassLoader;
import org.junit.jupiter.api.Test;

/**
 * The inbox in an application that does not see the OpenTelemetry API (a server without mpTelemetry-2.0, or without
 * third-party API visibility): its classes load, link and show their members as CDI reads them, and tracing is off.
 * Done in a class loader that refuses every {@code io.opentelemetry} class and loads the project's own classes
 * itself, from the compiled main classes.
 */
class InboxTracingTest {

    /** Loads io.github.jakartainbox.* from the compiled classes, refuses io.opentelemetry.*, delegates the rest. */
    private static final class WithoutOpenTelemetry extends URLClassLoader {
        WithoutOpenTelemetry() throws Exception {
            // the compiled main classes, wherever the build put them
            super(new URL[] {InboxTracing.class.getProtectionDomain().getCodeSource().getLocation()},
                    InboxTracingTest.class.getClassLoader());
        }

        @Override
        protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
            if (name.startsWith("io.opentelemetry.")) {
                throw new ClassNotFoundException(name + " (hidden by the test)");
            }
            if (name.startsWith("io.github.jakartainbox.")) {
                synchronized (getClassLoadingLock(name)) {
                    Class<?> loaded = findLoadedClass(name);
                    return loaded != null ? loaded : findClass(name);
                }
            }
            return super.loadClass(name, resolve);
        }
    }

    @Test
    void withoutTheApiTheInboxLoadsAndTracesNothing() throws Exception {
        try (WithoutOpenTelemetry loader = new WithoutOpenTelemetry()) {
            assertThrows(ClassNotFoundException.class, () -> Class.forName(InboxTracing.API_CLASS, false, loader));
            // what CDI does with a bean or interceptor class: load, initialise, read fields and methods
            for (String name : new String[] {"io.github.jakartainbox.inbox.delivery.IdempotentInterceptor",
                    "io.github.jakartainbox.inbox.tracing.InboxTracing", "io.github.jakartainbox.outbox.Outbox",
                    "io.github.jakartainbox.inbox.spi.DeliveryTracer",
                    "io.github.jakartainbox.inbox.spi.DeliverySpan"}) {
                Class<?> type = Class.forName(name, true, loader);
                assertSame(loader, type.getClassLoader(), name + " comes from the test's loader");
                type.getDeclaredFields();
                type.getDeclaredMethods();
                type.getDeclaredConstructors();
            }
            Class<?> tracing = Class.forName("io.github.jakartainbox.inbox.tracing.InboxTracing", true, loader);
            Method choose = tracing.getDeclaredMethod("choose", ClassLoader.class,
                    Class.forName("jakarta.enterprise.inject.Instance", false, loader));
            choose.setAccessible(true);
            Object chosen = choose.invoke(null, loader, null); // the beans are never asked: the API is missing
            Class<?> tracer = Class.forName("io.github.jakartainbox.inbox.spi.DeliveryTracer", true, loader);
            assertSame(tracer.getField("NONE").get(null), chosen, "tracing off");
        }
    }

    @Test
    void theNoopOpenTelemetryOfADisabledSdkMeansNoTracing() {
        assertNull(InboxTracing.OpenTelemetryTracers.of(io.opentelemetry.api.OpenTelemetry.noop()),
                "Liberty's instance while otel.sdk.disabled=true");
        io.opentelemetry.sdk.trace.SdkTracerProvider provider = io.opentelemetry.sdk.trace.SdkTracerProvider.builder()
                .build();
        io.opentelemetry.api.OpenTelemetry sdk = new io.opentelemetry.api.OpenTelemetry() {
            @Override
            public io.opentelemetry.api.trace.TracerProvider getTracerProvider() {
                return provider;
            }

            @Override
            public io.opentelemetry.context.propagation.ContextPropagators getPropagators() {
                return io.opentelemetry.context.propagation.ContextPropagators.noop();
            }
        };
        assertNotNull(InboxTracing.OpenTelemetryTracers.of(sdk), "an SDK traces");
        provider.close();
    }

    @Test
    void noneIsOneSharedSpanForEveryDelivery() {
        // the same shared span for every delivery: the hot path adds calls on a constant, no object
        DeliverySpan first = DeliveryTracer.NONE.start("billing", null, null);
        DeliverySpan second = DeliveryTracer.NONE.start("analytics", null, null);
        assertSame(DeliverySpan.NONE, first);
        assertSame(first, second);
        StringBuilder headers = new StringBuilder();
        DeliveryTracer.NONE.injectCurrent((name, value) -> headers.append(name));
        assertEquals("", headers.toString(), "no trace context to pass on");
    }
}
