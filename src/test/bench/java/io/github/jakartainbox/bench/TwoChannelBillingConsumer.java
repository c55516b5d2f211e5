package io.github.jakartainbox.bench;

import io.github.jakartainbox.billing.invoice.Invoices;
import io.github.jakartainbox.billing.order.OrderConfirmed;
import io.github.jakartainbox.inbox.Idempotent;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import org.eclipse.microprofile.reactive.messaging.Incoming;

/**
 * The billing handler with {@code @Idempotent} on two channels of one consumer group and one topic of two
 * partitions: liberty-kafka runs one Kafka consumer per channel and calls each channel's method one message at a
 * time, so a second channel is how it processes two records at once. Deployed only to the benchmark server
 * ({@link EndToEndBenchmark}).
 */
@ApplicationScoped
public class TwoChannelBillingConsumer {

    @Inject
    Invoices invoices;

    @Incoming("bench-two-a")
    @Idempotent(consumer = "billing-two")
    public void onOrderConfirmedA(String value) {
        invoices.create(OrderConfirmed.parse(value));
    }

    @Incoming("bench-two-b")
    @Idempotent(consumer = "billing-two")
    public void onOrderConfirmedB(String value) {
        invoices.create(OrderConfirmed.parse(value));
    }
}
