package io.github.jakartainbox.it;

import io.github.jakartainbox.billing.Invoices;
import io.github.jakartainbox.billing.OrderConfirmed;
import io.github.jakartainbox.inbox.Idempotent;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.eclipse.microprofile.reactive.messaging.Incoming;
import org.eclipse.microprofile.reactive.messaging.Message;

/**
 * Consumer "probe-kafka" on topic probe.events (channel configured in the test server.xml): takes the
 * {@code Message}, reads its event id from the CloudEvents header {@code ce_id}, and fails on every attempt for
 * orders whose id ends with "-poison".
 */
@ApplicationScoped
public class KafkaProbeConsumer {

    @Inject
    Invoices invoices;

    @Incoming("probe-kafka")
    @Idempotent(consumer = "probe-kafka")
    public CompletionStage<Void> consume(Message<String> message) {
        OrderConfirmed order = OrderConfirmed.parse(message.getPayload());
        invoices.create(order);
        if (order.orderId().endsWith("-poison")) {
            return CompletableFuture.failedFuture(new IllegalStateException("poison order " + order.orderId()));
        }
        return message.ack();
    }
}
