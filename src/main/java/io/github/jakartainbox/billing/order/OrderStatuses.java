package io.github.jakartainbox.billing.order;

import io.github.jakartainbox.billing.BillingSchema;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;
import jakarta.transaction.Transactional;

/** The {@code order_status} table: one row per order, set from its latest confirmed event. */
@ApplicationScoped
public class OrderStatuses {

    @PersistenceContext(unitName = "billing")
    EntityManager em;
    @Inject
    BillingSchema schema;

    /**
     * Sets the order's status to {@code CONFIRMED} with the event's amount and currency, in a transaction of its own
     * (or the caller's). Applying the same event again leaves the same row.
     *
     * @param order the order event
     * @throws jakarta.persistence.PersistenceException when the database refuses the statement or is unavailable
     */
    @Transactional
    public void confirmed(OrderConfirmed order) {
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
