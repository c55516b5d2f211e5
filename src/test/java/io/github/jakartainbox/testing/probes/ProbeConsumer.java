package io.github.jakartainbox.testing.probes;

import io.github.jakartainbox.billing.invoice.Invoices;
import io.github.jakartainbox.billing.order.OrderConfirmed;
import io.github.jakartainbox.inbox.Idempotent;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Idempotent consumers called directly by in-container tests: each creates an invoice through the billing
 * service, and can be told, per order id, to wait inside its transaction or to fail.
 */
@ApplicationScoped
public class ProbeConsumer {

    /** Per order id: invocations of the method body. */
    public static final Map<String, AtomicInteger> CALLS = new ConcurrentHashMap<>();
    /** Per order id: the method waits for this latch after creating the invoice, inside the transaction. */
    public static final Map<String, CountDownLatch> HOLD = new ConcurrentHashMap<>();
    /** Per order id: signalled when the method body has created the invoice. */
    public static final Map<String, CountDownLatch> INSIDE = new ConcurrentHashMap<>();
    /** Per order id: how many of the first invocations throw after creating the invoice. */
    public static final Map<String, Integer> FAIL_FIRST = new ConcurrentHashMap<>();

    @Inject
    Invoices invoices;

    /** Consumer "probe": default retry policy. */
    @Idempotent(consumer = "probe")
    public void process(String json) throws InterruptedException {
        body(json);
    }

    /** Consumer "probe-single": one attempt only (inbox.consumer.probe-single.retry.max-attempts=1). */
    @Idempotent(consumer = "probe-single")
    public void processOnce(String json) throws InterruptedException {
        body(json);
    }

    /** Consumer "probe-bean": event ids from the {@link NestedMetaIdExtractor} bean. */
    @Idempotent(consumer = "probe-bean")
    public void processWithBeanId(String json) throws InterruptedException {
        body(json);
    }

    private void body(String json) throws InterruptedException {
        OrderConfirmed order = OrderConfirmed.parse(json);
        int call = CALLS.computeIfAbsent(order.orderId(), k -> new AtomicInteger()).incrementAndGet();
        invoices.create(order);
        CountDownLatch hold = HOLD.get(order.orderId()); // read before signalling: the test may remove it then
        CountDownLatch inside = INSIDE.get(order.orderId());
        if (inside != null) {
            inside.countDown();
        }
        if (hold != null && !hold.await(30, TimeUnit.SECONDS)) {
            throw new IllegalStateException("test latch never released");
        }
        if (call <= FAIL_FIRST.getOrDefault(order.orderId(), 0)) {
            throw new IllegalStateException("injected failure, call " + call);
        }
    }
}
