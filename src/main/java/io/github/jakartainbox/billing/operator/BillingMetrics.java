package io.github.jakartainbox.billing.operator;

import io.github.jakartainbox.billing.BillingConfig;
import io.github.jakartainbox.billing.invoice.Invoices;
import io.github.jakartainbox.outbox.OutboxFigures;
import io.github.jakartainbox.outbox.OutboxOperations;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.context.Initialized;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;
import java.time.Duration;
import java.util.Optional;
import java.util.function.ToLongFunction;
import org.eclipse.microprofile.config.ConfigProvider;
import org.eclipse.microprofile.metrics.MetricRegistry;

/**
 * The outbox figures and the compensation query as MicroProfile Metrics gauges at
 * {@code /metrics?scope=application}: {@code outbox_pending}, {@code outbox_oldest_pending_seconds},
 * {@code outbox_delivered}, {@code outbox_failing}, and {@code billing_invoices_unmailed} (invoices without a
 * recorded mail after {@code billing.mail.unmailed-after}). Read at most every 10 seconds.
 */
@ApplicationScoped
public class BillingMetrics {

    /** The delay after which an invoice without a recorded mail counts as unmailed. */
    public static final String UNMAILED_AFTER = "billing.mail.unmailed-after";

    private static final long CACHE_NANOS = 10_000_000_000L;

    @Inject
    MetricRegistry registry;
    @Inject
    OutboxOperations outbox;
    @Inject
    Invoices invoices;

    private volatile long readAt;
    private volatile Optional<OutboxFigures> figures = Optional.empty();
    private volatile long unmailed;

    /**
     * @return {@value #UNMAILED_AFTER}, default PT10M
     * @throws IllegalStateException ({@code BILLING0206E}) when it is not an ISO-8601 duration
     */
    public static Duration unmailedAfter() {
        return BillingConfig.UNMAILED_AFTER.get(ConfigProvider.getConfig());
    }

    void register(@Observes @Initialized(ApplicationScoped.class) Object applicationStarted) {
        unmailedAfter(); // a wrong value fails the start
        gauge("outbox.pending", OutboxFigures::pending);
        gauge("outbox.oldest.pending.seconds", f -> f.oldestPending().toSeconds());
        gauge("outbox.delivered", OutboxFigures::delivered);
        gauge("outbox.failing", OutboxFigures::failing);
        registry.gauge("billing.invoices.unmailed", () -> {
            refresh();
            return unmailed;
        });
    }

    private void gauge(String name, ToLongFunction<OutboxFigures> value) {
        registry.gauge(name, () -> {
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
            unmailed = invoices.unmailedCount(unmailedAfter());
        } catch (RuntimeException e) {
            // keep the last figures
        }
        readAt = System.nanoTime();
    }
}
