package io.github.jakartainbox.testing;

import io.opentelemetry.sdk.autoconfigure.spi.ConfigProperties;
import io.opentelemetry.sdk.autoconfigure.spi.traces.ConfigurableSpanExporterProvider;
import io.opentelemetry.sdk.common.CompletableResultCode;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SpanExporter;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Collection;
import java.util.Deque;
import java.util.List;
import java.util.function.Predicate;

/**
 * The tests' span exporter, {@code otel.traces.exporter=it-memory}: the OpenTelemetry SDK of Liberty's
 * mpTelemetry-2.0 finds it through the application's {@code ServiceLoader} (application-level SDK, configured by the
 * test deployment's {@code microprofile-config.properties}, see {@link Deployments}) and hands it every finished
 * span; TracingIT reads them in the server. Keeps the last {@value #LIMIT} spans.
 */
public class MemorySpans implements ConfigurableSpanExporterProvider {

    static final int LIMIT = 20_000;
    private static final Deque<SpanData> SPANS = new ArrayDeque<>();

    @Override
    public String getName() {
        return "it-memory";
    }

    @Override
    public SpanExporter createExporter(ConfigProperties config) {
        return new SpanExporter() {
            @Override
            public CompletableResultCode export(Collection<SpanData> spans) {
                synchronized (SPANS) {
                    SPANS.addAll(spans);
                    while (SPANS.size() > LIMIT) {
                        SPANS.removeFirst();
                    }
                }
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
        };
    }

    /** @return the exported spans that match, in export order */
    static List<SpanData> matching(Predicate<SpanData> filter) {
        synchronized (SPANS) {
            return SPANS.stream().filter(filter).toList();
        }
    }

    /**
     * Waits until {@code count} exported spans match.
     *
     * @return the matching spans (fewer than {@code count} when the wait ran out)
     */
    public static List<SpanData> await(Predicate<SpanData> filter, int count, Duration wait) throws InterruptedException {
        return Waiting.lastValue(Waiting.await().atMost(wait).pollInterval(Duration.ofMillis(100)),
                () -> matching(filter), found -> found.size() >= count);
    }
}
