package io.github.jakartainbox.billing;

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
     * @throws IllegalStateException when it is not an ISO-8601 duration
     */
    public static Duration unmailedAfter() {
        return duration(ConfigProvider.getConfig(), UNMAILED_AFTER, Duration.ofMinutes(10), false);
    }

    /**
     * @param config       the configuration
     * @param key          a key holding an ISO-8601 duration
     * @param defaultValue the value when the key is unset or blank
     * @param positive     whether only a duration above zero is accepted
     * @return the key's duration
     * @throws IllegalStateException ({@code BILLING0206E}) when the value is no such duration
     */
    static Duration duration(org.eclipse.microprofile.config.Config config, String key, Duration defaultValue,
                             boolean positive) {
        String text = config.getOptionalValue(key, String.class).map(String::trim).orElse("");
        if (text.isEmpty()) {
            return defaultValue;
        }
        try {
            Duration value = Duration.parse(text);
            if (!positive || !value.isNegative() && !value.isZero()) {
                return value;
            }
        } catch (RuntimeException e) {
            // answered below
        }
        throw new IllegalStateException(BillingMessage.BILLING0206E.format(key, text));
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
