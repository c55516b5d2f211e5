package io.github.jakartainbox.billing.invoice;

import io.github.jakartainbox.billing.BillingConfig;
import io.github.jakartainbox.billing.BillingMessage;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.time.Duration;
import org.eclipse.microprofile.config.ConfigProvider;
import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.Readiness;

/**
 * Readiness check {@value #NAME}: the compensation query's count, invoices without a recorded mail after
 * {@code billing.mail.unmailed-after} (default PT10M), in the check's data. It stays UP with a count: a mail that
 * waits for the SMTP server is no reason to take the service out of a load balancer, but the count is what an
 * operator alerts on (so is the gauge {@code billing_invoices_unmailed}). DOWN only when the count cannot be read.
 */
@Readiness
@ApplicationScoped
public class UnmailedInvoicesCheck implements HealthCheck {

    /** The check's name in {@code /health/ready}. */
    public static final String NAME = "billing-unmailed-invoices";

    @Inject
    Invoices invoices;

    @Override
    public HealthCheckResponse call() {
        Duration after = BillingConfig.UNMAILED_AFTER.get(ConfigProvider.getConfig());
        try {
            return HealthCheckResponse.named(NAME).up().withData("older-than", after.toString())
                    .withData("unmailed", invoices.unmailedCount(after)).build();
        } catch (RuntimeException e) {
            // the health endpoint answers without a login: the reason names the kind of failure, never its SQL text
            java.util.logging.Logger.getLogger(UnmailedInvoicesCheck.class.getName())
                    .log(java.util.logging.Level.FINE, "unmailed count", e);
            String why = io.github.jakartainbox.inbox.DatabaseFailures.unavailable(e) ? "the database is unavailable"
                    : "the query failed (" + e.getClass().getSimpleName() + ")";
            return HealthCheckResponse.named(NAME).down().withData("older-than", after.toString())
                    .withData("reason", BillingMessage.BILLING0252W.format(why)).build();
        }
    }
}
