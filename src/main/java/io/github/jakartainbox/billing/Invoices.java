package io.github.jakartainbox.billing;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;
import java.time.OffsetDateTime;
import java.util.List;

/** Invoice creation and queries (Jakarta Persistence, container-managed JTA). */
@ApplicationScoped
public class Invoices {

    @PersistenceContext(unitName = "billing")
    EntityManager em;

    @Inject
    BillingSchema schema;

    /**
     * Creates the invoice of a confirmed order, in the caller's transaction.
     *
     * @param order the order event
     * @return the new invoice (its number is assigned by the database)
     */
    public Invoice create(OrderConfirmed order) {
        schema.ensureMigrated();
        Invoice invoice = new Invoice(order, OffsetDateTime.now());
        em.persist(invoice);
        return invoice;
    }

    /**
     * @param orderId an order id, or {@code null} for all orders
     * @param limit   the most invoices returned, newest first
     * @return the invoices
     */
    public List<Invoice> list(String orderId, int limit) {
        String where = orderId == null ? "" : " WHERE i.orderId = :orderId";
        var query = em.createQuery("SELECT i FROM Invoice i" + where + " ORDER BY i.id DESC", Invoice.class)
                .setMaxResults(limit);
        if (orderId != null) {
            query.setParameter("orderId", orderId);
        }
        return query.getResultList();
    }

    /** @return the number of invoices */
    public long count() {
        return em.createQuery("SELECT count(i) FROM Invoice i", Long.class).getSingleResult();
    }
}
