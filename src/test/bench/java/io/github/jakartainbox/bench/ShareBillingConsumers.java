package io.github.jakartainbox.bench;

import io.github.jakartainbox.billing.invoice.Invoices;
import io.github.jakartainbox.billing.order.OrderConfirmed;
import io.github.jakartainbox.inbox.Idempotent;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import org.eclipse.microprofile.reactive.messaging.Incoming;

/**
 * The billing handler on the share benchmark's channels ({@link ShareBenchmark}): a classic grouped channel and
 * share channels of 1, 2 and 4 consumers, each once as the example's handler and once followed by a wait of
 * {@value #CALL_MILLIS} ms inside the transaction (a call to another service). Deployed only to the benchmark server.
 */
@ApplicationScoped
public class ShareBillingConsumers {

    /** How long the slow handler waits, as a call to another service would. */
    static final long CALL_MILLIS = 5;

    @Inject
    Invoices invoices;

    @Incoming("bench-classic")
    @Idempotent(consumer = "billing-classic")
    public void classic(String value) {
        invoices.create(OrderConfirmed.parse(value));
    }

    @Incoming("bench-share1")
    @Idempotent(consumer = "billing-share1")
    public void share1(String value) {
        invoices.create(OrderConfirmed.parse(value));
    }

    @Incoming("bench-share2")
    @Idempotent(consumer = "billing-share2")
    public void share2(String value) {
        invoices.create(OrderConfirmed.parse(value));
    }

    @Incoming("bench-share4")
    @Idempotent(consumer = "billing-share4")
    public void share4(String value) {
        invoices.create(OrderConfirmed.parse(value));
    }

    @Incoming("bench-classic-call")
    @Idempotent(consumer = "billing-classic-call")
    public void classicCall(String value) throws InterruptedException {
        invoices.create(OrderConfirmed.parse(value));
        Thread.sleep(CALL_MILLIS);
    }

    @Incoming("bench-share1-call")
    @Idempotent(consumer = "billing-share1-call")
    public void share1Call(String value) throws InterruptedException {
        invoices.create(OrderConfirmed.parse(value));
        Thread.sleep(CALL_MILLIS);
    }

    @Incoming("bench-share2-call")
    @Idempotent(consumer = "billing-share2-call")
    public void share2Call(String value) throws InterruptedException {
        invoices.create(OrderConfirmed.parse(value));
        Thread.sleep(CALL_MILLIS);
    }

    @Incoming("bench-share4-call")
    @Idempotent(consumer = "billing-share4-call")
    public void share4Call(String value) throws InterruptedException {
        invoices.create(OrderConfirmed.parse(value));
        Thread.sleep(CALL_MILLIS);
    }
}
