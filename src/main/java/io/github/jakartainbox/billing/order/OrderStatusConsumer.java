package io.github.jakartainbox.billing.order;

import io.github.jakartainbox.billing.BillingMessage;
import io.github.jakartainbox.inbox.DatabaseFailures;
import io.github.jakartainbox.inbox.UnprocessableEventException;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.context.BeforeDestroyed;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;
import java.time.Duration;
import org.eclipse.microprofile.reactive.messaging.Incoming;

/**
 * Consumer group {@code order-status}, <em>without</em> the inbox: it sets the order's status and amount from the
 * payload. Applying the same event twice leaves the same row, so it is idempotent by construction and an inbox row
 * would be pure overhead (docs/using-the-library.md, "When you do not need the inbox").
 *
 * <p>Its channel runs on the library's {@code inbox-kafka} connector with {@code group.max-size=1}, for its offsets
 * only: liberty-kafka's committed offset stops for good at the first Kafka transaction marker of the topic. Without
 * the inbox it has no failure handling from the library, so it does the one thing a consumer without it must: while
 * the database is unavailable ({@link DatabaseFailures#unavailable}) the delivery waits in place and tries again
 * ({@code BILLING0215W}), unacknowledged. Any other exception makes the connector read the record again a second
 * later ({@code INBOX0604E}). When the application stops, a waiting delivery gives up at its next try and leaves its
 * record unacknowledged, to be read again after the restart, so that the stop does not wait for the database.
 */
@ApplicationScoped
public class OrderStatusConsumer {

    /** The first wait after a failed attempt; each next one doubles, up to {@link #MAX_WAIT}. */
    static final Duration FIRST_WAIT = Duration.ofMillis(500);
    static final Duration MAX_WAIT = Duration.ofSeconds(10);

    /** Set as the application stops: a delivery waiting for the database gives up instead of holding the stop. */
    private volatile boolean stopping;

    @Inject
    OrderStatuses statuses;

    void onStop(@Observes @BeforeDestroyed(ApplicationScoped.class) Object stoppingEvent) {
        stopping = true;
    }

    /**
     * @param value the {@code orders.confirmed} record value; a malformed one is logged and skipped
     * @throws InterruptedException when the server stops while the delivery waits for the database
     */
    @Incoming("orders-status")
    public void onOrderConfirmed(byte[] value) throws InterruptedException {
        OrderConfirmed order;
        try {
            order = OrderConfirmed.parse(value);
        } catch (UnprocessableEventException e) {
            BillingMessage.BILLING0207W.log(e.getMessage());
            return;
        }
        for (int failures = 1; ; failures++) {
            try {
                statuses.confirmed(order);
                return;
            } catch (RuntimeException e) {
                if (!DatabaseFailures.unavailable(e)) {
                    throw e;
                }
                if (stopping) {
                    // leaves the record unacknowledged: read again after the restart; the stop does not wait
                    throw new IllegalStateException("the application stops while the database is unavailable", e);
                }
                Duration wait = waitAfter(failures);
                BillingMessage.BILLING0215W.log(order.orderId(), wait.toMillis(), rootCause(e));
                Thread.sleep(wait.toMillis());
            }
        }
    }

    private static String rootCause(Throwable failure) {
        Throwable root = failure;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        return root.getClass().getName() + ": " + root.getMessage();
    }

    /** @return how long to wait after the given number of failed attempts in a row (1 or more) */
    static Duration waitAfter(int failures) {
        int doublings = Math.min(failures - 1, 20);
        Duration wait = FIRST_WAIT.multipliedBy(1L << doublings);
        return wait.compareTo(MAX_WAIT) > 0 ? MAX_WAIT : wait;
    }
}
