package io.github.jakartainbox.bench;

import io.github.jakartainbox.billing.invoice.Invoices;
import io.github.jakartainbox.billing.order.OrderConfirmed;
import io.github.jakartainbox.inbox.Idempotent;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.transaction.Transactional;
import org.eclipse.microprofile.reactive.messaging.Incoming;

/**
 * The billing handler on {@code inbox-kafka} channels of the benchmark ({@link EndToEndBenchmark}): with
 * {@code @Idempotent} in groups of up to 10 and up to 100 (the latter also with {@code group.claim=per-message}), and without the inbox ({@code @Transactional}, joining
 * the group's transaction) in groups of up to 100. Deployed only to the benchmark server.
 */
@ApplicationScoped
public class GroupedBillingConsumers {

    @Inject
    Invoices invoices;

    @Incoming("bench-g10")
    @Idempotent(consumer = "billing-g10")
    public void grouped10(String value) {
        invoices.create(OrderConfirmed.parse(value));
    }

    @Incoming("bench-g100")
    @Idempotent(consumer = "billing-g100")
    public void grouped100(String value) {
        invoices.create(OrderConfirmed.parse(value));
    }

    @Incoming("bench-g100-pm")
    @Idempotent(consumer = "billing-g100pm")
    public void grouped100ClaimPerEvent(String value) {
        invoices.create(OrderConfirmed.parse(value));
    }

    @Incoming("bench-g100-plain")
    @Transactional
    public void grouped100WithoutInbox(String value) {
        invoices.create(OrderConfirmed.parse(value));
    }
}
