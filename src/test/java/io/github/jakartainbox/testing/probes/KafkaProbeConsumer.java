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
 * Consumer "probe-kafka" on the build's topic it.probe.events.<run id> (channel configured in the test server.xml): takes the
 * {@code Message}, reads its event id from the CloudEvents header {@code ce_id}, and fails on every attempt for
 * orders whose id ends with "-poison".
 */
@ApplicationScoped
public class KafkaProbeConsumer {

    /** Per order id: the Kafka partition and offset the method read from the message it was handed. */
    public static final java.util.Map<String, String> POSITIONS = new java.util.concurrent.ConcurrentHashMap<>();

    @Inject
    Invoices invoices;

    @Incoming("probe-kafka")
    @Idempotent(consumer = "probe-kafka")
    public CompletionStage<Void> consume(Message<String> message) {
        OrderConfirmed order = OrderConfirmed.parse(message.getPayload());
        // the record's metadata, read through the MicroProfile API on the message the inbox hands the method
        org.apache.kafka.clients.consumer.ConsumerRecord<?, ?> record =
                message.unwrap(org.apache.kafka.clients.consumer.ConsumerRecord.class);
        POSITIONS.put(order.orderId(), record.topic() + "/" + record.partition() + "@" + record.offset());
        invoices.create(order);
        if (order.orderId().endsWith("-poison")) {
            return CompletableFuture.failedFuture(new IllegalStateException("poison order " + order.orderId()));
        }
        return message.ack();
    }
}
