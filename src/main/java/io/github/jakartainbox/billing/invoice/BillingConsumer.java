package io.github.jakartainbox.billing.invoice;

import io.github.jakartainbox.billing.BillingConfig;
import io.github.jakartainbox.billing.order.OrderConfirmed;
import io.github.jakartainbox.inbox.Idempotent;
import jakarta.annotation.PostConstruct;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.util.concurrent.CompletionStage;
import java.util.regex.Pattern;
import org.eclipse.microprofile.config.Config;
import org.eclipse.microprofile.config.ConfigProvider;
import org.eclipse.microprofile.reactive.messaging.Incoming;
import org.eclipse.microprofile.reactive.messaging.Message;

/**
 * Consumer {@code billing}: one invoice per confirmed order event. Nothing here guards against duplicates (the
 * {@code invoice} table has no unique key on the order): the inbox alone keeps invoices single.
 */
@ApplicationScoped
public class BillingConsumer {

    @Inject
    Invoices invoices;

    /** Orders whose handler waits first (fault suite only, {@code billing.test.slow-orders}); null: none. */
    private Pattern slowOrders;
    private long slowMillis;

    @PostConstruct
    void readTestHooks() {
        Config config = ConfigProvider.getConfig();
        String slow = BillingConfig.TEST_SLOW_ORDERS.get(config);
        slowOrders = slow == null || slow.isBlank() ? null : Pattern.compile(slow);
        slowMillis = BillingConfig.TEST_SLOW_DELAY.get(config).toMillis();
    }

    /**
     * Takes the {@code Message}, not the bare value, so that the inbox reaches the Kafka record: its
     * {@code traceparent} header makes the delivery's span a child of the producer's (docs/observability.md, "Tracing"), and the
     * invoice's outbox row carries the delivery's span on to the mailer.
     *
     * @param message the {@code orders.confirmed} record; its value as it arrived (UTF-8 JSON; checked strictly)
     * @return the acknowledgement (the inbox acknowledges the record itself, after the commit)
     */
    @Incoming("orders-billing")
    @Idempotent(consumer = "billing")
    public CompletionStage<Void> onOrderConfirmed(Message<byte[]> message) {
        OrderConfirmed order = OrderConfirmed.parse(message.getPayload());
        if (slowOrders != null && slowOrders.matcher(order.orderId()).matches()) {
            try {
                Thread.sleep(slowMillis); // a handler that outlasts a share group's lock
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        invoices.create(order);
        return message.ack();
    }
}
