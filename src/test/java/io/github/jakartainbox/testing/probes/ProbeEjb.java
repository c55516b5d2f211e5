package io.github.jakartainbox.testing.probes;

import io.github.jakartainbox.billing.invoice.Invoices;
import io.github.jakartainbox.billing.order.OrderConfirmed;
import io.github.jakartainbox.inbox.Idempotent;
import jakarta.ejb.Stateless;
import jakarta.inject.Inject;

/** An EJB business method with @Idempotent: the claim joins the container-managed transaction. */
@Stateless
public class ProbeEjb {

    @Inject
    Invoices invoices;

    /**
     * @param json  the event
     * @param fail  throw after creating the invoice
     * @return {@code "processed"}, or {@code null} when the inbox skipped a duplicate
     */
    @Idempotent(consumer = "probe-ejb")
    public String process(String json, boolean fail) {
        invoices.create(OrderConfirmed.parse(json));
        if (fail) {
            throw new IllegalStateException("injected EJB failure");
        }
        return "processed";
    }
}
