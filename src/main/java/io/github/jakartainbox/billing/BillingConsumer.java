package io.github.jakartainbox.billing;

import io.github.jakartainbox.inbox.Idempotent;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import org.eclipse.microprofile.reactive.messaging.Incoming;

/**
 * Consumer {@code billing}: one invoice per confirmed order event. Nothing here guards against duplicates (the
 * {@code invoice} table has no unique key on the order): the inbox alone keeps invoices single.
 */
@ApplicationScoped
public class BillingConsumer {

    @Inject
    Invoices invoices;

    /**
     * @param value the {@code orders.confirmed} record value as it arrived (UTF-8 JSON; checked strictly)
     */
    @Incoming("orders-billing")
    @Idempotent(consumer = "billing")
    public void onOrderConfirmed(byte[] value) {
        invoices.create(OrderConfirmed.parse(value));
    }
}
