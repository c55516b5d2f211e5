package io.github.jakartainbox.testing.probes;

import io.github.jakartainbox.billing.invoice.Invoices;
import io.github.jakartainbox.billing.order.OrderConfirmed;
import io.github.jakartainbox.inbox.Idempotent;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.eclipse.microprofile.reactive.messaging.Incoming;
import org.eclipse.microprofile.reactive.messaging.Message;

/**
 * Consumer "probe-trace" of TracingIT, on a topic and consumer group of this build (channel in the test server.xml):
 * takes the {@code Message}, so that the inbox reaches the Kafka record and its {@code traceparent} header; reads its
 * event id from header {@code ce_id}; creates the order's invoice (and so an outbox row) and fails on every attempt
 * for orders whose id ends with "-poison".
 */
@ApplicationScoped
public class TracingProbeConsumer {

    @Inject
    Invoices invoices;

    @Incoming("probe-trace")
    @Idempotent(consumer = "probe-trace")
    public CompletionStage<Void> consume(Message<String> message) {
        OrderConfirmed order = OrderConfirmed.parse(message.getPayload());
        invoices.create(order);
        if (order.orderId().endsWith("-poison")) {
            return CompletableFuture.failedFuture(new IllegalStateException("poison order " + order.orderId()));
        }
        return message.ack();
    }
}
