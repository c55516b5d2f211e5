package io.github.jakartainbox.billing;

import io.github.jakartainbox.inbox.UnprocessableEventException;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;
import jakarta.transaction.Transactional;
import org.eclipse.microprofile.reactive.messaging.Incoming;

/**
 * Consumer group {@code order-status}, <em>without</em> the inbox: it sets the order's status and amount from the
 * payload. Applying the same event twice leaves the same row, so it is idempotent by construction and an inbox row
 * would be pure overhead (README, "When you do not need the inbox").
 */
@ApplicationScoped
public class OrderStatusConsumer {


    @PersistenceContext(unitName = "billing")
    EntityManager em;
    @Inject
    BillingSchema schema;

    /**
     * @param value the {@code orders.confirmed} record value; a malformed one is logged and skipped
     */
    @Incoming("orders-status")
    @Transactional
    public void onOrderConfirmed(byte[] value) {
        OrderConfirmed order;
        try {
            order = OrderConfirmed.parse(value);
        } catch (UnprocessableEventException e) {
            BillingMessage.BILLING0207W.log(e.getMessage());
            return;
        }
        schema.ensureMigrated();
        em.createNativeQuery("INSERT INTO order_status (order_id, status, amount, currency) "
                        + "VALUES (?1, 'CONFIRMED', ?2, ?3) ON CONFLICT (order_id) DO UPDATE "
                        + "SET status = EXCLUDED.status, amount = EXCLUDED.amount, currency = EXCLUDED.currency")
                .setParameter(1, order.orderId())
                .setParameter(2, order.amount())
                .setParameter(3, order.currency())
                .executeUpdate();
    }
}
