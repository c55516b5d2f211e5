package io.github.jakartainbox.inbox.tracing;

import io.github.jakartainbox.inbox.spi.DeliveryTracer;
import io.github.jakartainbox.inbox.spi.DeliverySpan;
import io.github.jakartainbox.inbox.spi.DeliveryOutcome;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.trace.TracerProvider;
import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.propagation.ContextPropagators;
import io.opentelemetry.sdk.common.CompletableResultCode;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.BatchSpanProcessor;
import io.opentelemetry.sdk.trace.export.SpanExporter;
import java.lang.management.ManagementFactory;
import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;
import java.util.Collection;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.eclipse.microprofile.reactive.messaging.Message;

/**
 * What the interceptor's tracing hook costs per delivery, on one thread, without a server: start, event id,
 * outcome, end, for a Kafka message carrying a {@code traceparent}. Three set-ups, measured in the same run:
 * {@code off} ({@link DeliveryTracer#NONE}: no mpTelemetry, no API visibility, or the SDK disabled), the no-op
 * OpenTelemetry of a disabled SDK (which the inbox detects and replaces by {@code off}: this row says why), and
 * {@code sdk on} (the SDK, every
 * span sampled, batch processor, an exporter that drops the spans). Prints ns per delivery and bytes allocated per
 * delivery (HotSpot's per-thread allocation counter), best of five interleaved rounds. A figure to compare with
 * a delivery's own cost (a JTA
 * transaction with the claim, about a millisecond: docs/benchmarks.md); no assertion.
 *
 * <p>{@code bin/benchmark tracing} (about 2 min with the build).
 */
public final class TracingBenchmark {

    private static final int WARMUP = 300_000;
    private static final int MEASURED = 500_000;
    private static final int ROUNDS = 5;

    private TracingBenchmark() {
    }

    public static void main(String[] args) throws Exception {
        Method method = TracingBenchmark.class.getDeclaredMethod("main", String[].class);
        ConsumerRecord<String, String> record = new ConsumerRecord<>("orders.confirmed", 0, 1L, "order-1", "{}");
        record.headers().add("traceparent",
                "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01".getBytes(StandardCharsets.UTF_8));
        Message<String> message = new Message<>() {
            @Override
            public String getPayload() {
                return record.value();
            }

            @Override
            public <C> C unwrap(Class<C> type) {
                return type.cast(record);
            }
        };
        AtomicLong exported = new AtomicLong();
        SdkTracerProvider provider = SdkTracerProvider.builder().addSpanProcessor(BatchSpanProcessor.builder(
                new SpanExporter() {
                    @Override
                    public CompletableResultCode export(Collection<SpanData> spans) {
                        exported.addAndGet(spans.size());
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
                }).build()).build();
        OpenTelemetry sdk = new OpenTelemetry() {
            @Override
            public TracerProvider getTracerProvider() {
                return provider;
            }

            @Override
            public ContextPropagators getPropagators() {
                return ContextPropagators.create(W3CTraceContextPropagator.getInstance());
            }
        };
        DeliveryTracer[] tracers = {DeliveryTracer.NONE, new OpenTelemetryDeliveryTracer(OpenTelemetry.noop()),
                new OpenTelemetryDeliveryTracer(sdk)};
        String[] names = {"off: no mpTelemetry, no API visibility, or the SDK disabled",
            "(the no-op OpenTelemetry of a disabled SDK, were it used)", "SDK on, every span sampled"};
        System.out.println("| tracing | ns per delivery | bytes allocated per delivery |");
        System.out.println("| --- | ---: | ---: |");
        for (DeliveryTracer tracer : tracers) {
            run(tracer, method, message, WARMUP);
        }
        // the set-ups take turns, ROUNDS times; the best round of each is shown (a shared machine's noise only adds)
        double[] best = {Double.MAX_VALUE, Double.MAX_VALUE, Double.MAX_VALUE};
        long[] bytesPerDelivery = new long[tracers.length];
        for (int round = 0; round < ROUNDS; round++) {
            for (int i = 0; i < tracers.length; i++) {
                long bytes = allocated();
                long start = System.nanoTime();
                run(tracers[i], method, message, MEASURED);
                best[i] = Math.min(best[i], (double) (System.nanoTime() - start) / MEASURED);
                bytesPerDelivery[i] = (allocated() - bytes) / MEASURED;
            }
        }
        for (int i = 0; i < tracers.length; i++) {
            System.out.printf(Locale.ROOT, "| %s | %.0f | %d |%n", names[i], best[i], bytesPerDelivery[i]);
        }
        provider.close();
        System.out.println("spans exported by the sdk run (warm-up included, the batch queue drops when full): "
                + exported.get());
    }

    private static void run(DeliveryTracer tracer, Method method, Message<String> message, int deliveries) {
        for (int i = 0; i < deliveries; i++) {
            DeliverySpan span = tracer.start("billing", method, message);
            span.eventId("0190f3a2-7c4e-7a10-8000-000000000001");
            span.outcome(DeliveryOutcome.PROCESSED, null);
            span.end();
        }
    }

    /** @return the bytes this thread allocated so far (HotSpot), -1 where unsupported */
    private static long allocated() {
        if (ManagementFactory.getThreadMXBean() instanceof com.sun.management.ThreadMXBean hotspot) {
            return hotspot.getThreadAllocatedBytes(Thread.currentThread().getId());
        }
        return -1;
    }
}
