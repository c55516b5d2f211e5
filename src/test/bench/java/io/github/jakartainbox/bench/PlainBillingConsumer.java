package io.github.jakartainbox.bench;

import io.github.jakartainbox.billing.invoice.Invoices;
import io.github.jakartainbox.billing.order.OrderConfirmed;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.transaction.Transactional;
import org.eclipse.microprofile.reactive.messaging.Incoming;

/**
 * The billing handler of {@code BillingConsumer} without the inbox, as a team would write it otherwise: the same
 * body in a container transaction ({@code @Transactional}), no duplicate check. Deployed only to the benchmark
 * server ({@link EndToEndBenchmark}), on its own channel and topic.
 */
@ApplicationScoped
public class PlainBillingConsumer {

    @Inject
    Invoices invoices;

    /**
     * @param value the record value (JSON), as for {@code BillingConsumer}
     */
    @Incoming("bench-plain")
    @Transactional
    public void onOrderConfirmed(String value) {
        invoices.create(OrderConfirmed.parse(value));
    }
}
