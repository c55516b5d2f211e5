package io.github.jakartainbox.billing.invoice;

import io.github.jakartainbox.billing.BillingConfig;
import io.github.jakartainbox.billing.Topics;
import jakarta.annotation.Priority;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.context.Initialized;
import jakarta.enterprise.event.Observes;
import jakarta.interceptor.Interceptor;
import org.eclipse.microprofile.config.ConfigProvider;

/**
 * Creates the {@code invoices.issued} topic at start with {@code billing.invoices-issued.partitions} partitions
 * (default 6, {@link BillingConfig#INVOICES_ISSUED_PARTITIONS}), so that the
 * mailer's threads ({@code mp.messaging.incoming.invoices-mailer.concurrency}) each get some: records are keyed by
 * customer, so one customer's mails stay in order on one partition while other customers' go out beside them. A topic
 * that exists is left as it is; with fewer partitions than configured, {@code BILLING0219W} says how to add some.
 * The mailer's consumer does not create topics ({@code allow.auto.create.topics=false}), so the broker's default
 * partition count applies only when this could not run.
 */
@ApplicationScoped
public class InvoicesIssuedTopic {

    void onStart(@Observes @Priority(Interceptor.Priority.PLATFORM_BEFORE + 1) @Initialized(ApplicationScoped.class)
                 Object started) {
        int partitions = BillingConfig.INVOICES_ISSUED_PARTITIONS.get(ConfigProvider.getConfig());
        // the cluster the outbox relay publishes to: its outbox.kafka.* connection and security settings
        Topics.ensure(InvoiceIssued.topic(), partitions, "outbox.kafka.",
                BillingConfig.INVOICES_ISSUED_PARTITIONS.name());
    }
}
