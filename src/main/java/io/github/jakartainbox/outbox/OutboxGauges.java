package io.github.jakartainbox.outbox;

import io.github.jakartainbox.inbox.spi.Gauges;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;
import java.util.Map;
import java.util.Optional;
import java.util.function.ToLongFunction;

/**
 * The outbox figures as gauges, when the server has MicroProfile Metrics (the inbox hands the {@link Gauges} then):
 * {@code outbox.pending}, {@code outbox.oldest.pending.seconds}, {@code outbox.delivered}, {@code outbox.failing}.
 * Read at most every 10 seconds.
 */
@ApplicationScoped
public class OutboxGauges {

    private static final long CACHE_NANOS = 10_000_000_000L;

    @Inject
    OutboxOperations outbox;

    private volatile long readAt;
    private volatile Optional<OutboxFigures> figures = Optional.empty();

    void publish(@Observes Gauges gauges) {
        gauge(gauges, "outbox.pending", "Rows neither delivered nor given up.", OutboxFigures::pending);
        gauge(gauges, "outbox.oldest.pending.seconds", "Age of the oldest row not yet sent, in seconds.",
                f -> f.oldestPending().toSeconds());
        gauge(gauges, "outbox.delivered", "Rows delivered, a running total.", OutboxFigures::delivered);
        gauge(gauges, "outbox.failing", "Pending rows that failed at least " + OutboxConfig.FAILING_AFTER.name() + " times "
                + "(default " + OutboxConfig.FAILING_AFTER.defaultText().orElse("") + ").", OutboxFigures::failing);
    }

    private void gauge(Gauges gauges, String name, String description, ToLongFunction<OutboxFigures> value) {
        gauges.gauge(name, description, Map.of(), () -> {
            refresh();
            return figures.map(value::applyAsLong).orElse(0L);
        });
    }

    private synchronized void refresh() {
        if (System.nanoTime() - readAt < CACHE_NANOS && readAt != 0) {
            return;
        }
        try {
            figures = Optional.of(outbox.figures());
        } catch (RuntimeException e) {
            // keep the last figures
        }
        readAt = System.nanoTime();
    }
}
