package io.github.jakartainbox.billing.operator;

import io.github.jakartainbox.billing.BillingConfig;
import io.github.jakartainbox.billing.invoice.Invoices;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.context.Initialized;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;
import java.time.Duration;
import org.eclipse.microprofile.config.ConfigProvider;
import org.eclipse.microprofile.metrics.MetricRegistry;

/**
 * The compensation query as a MicroProfile Metrics gauge at {@code /metrics?scope=application}:
 * {@code billing_invoices_unmailed} (invoices without a recorded mail after {@code billing.mail.unmailed-after}).
 * Read at most every 10 seconds. The inbox's and the outbox's own gauges come from the library.
 */
@ApplicationScoped
public class BillingMetrics {

    /** The delay after which an invoice without a recorded mail counts as unmailed. */
    public static final String UNMAILED_AFTER = "billing.mail.unmailed-after";

    private static final long CACHE_NANOS = 10_000_000_000L;

    @Inject
    MetricRegistry registry;
    @Inject
    Invoices invoices;

    private volatile long readAt;
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
        registry.gauge("billing.invoices.unmailed", () -> {
            refresh();
            return unmailed;
        });
    }

    private synchronized void refresh() {
        if (System.nanoTime() - readAt < CACHE_NANOS && readAt != 0) {
            return;
        }
        try {
            unmailed = invoices.unmailedCount(unmailedAfter());
        } catch (RuntimeException e) {
            // keep the last figure
        }
        readAt = System.nanoTime();
    }
}
