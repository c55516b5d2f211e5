package io.github.jakartainbox.billing.invoice;

import io.github.jakartainbox.billing.BillingSchema;
import io.github.jakartainbox.billing.order.OrderConfirmed;
import io.github.jakartainbox.outbox.Outbox;
import jakarta.annotation.Resource;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;
import jakarta.persistence.FlushModeType;
import jakarta.persistence.PersistenceContext;
import jakarta.persistence.PersistenceException;
import jakarta.transaction.TransactionSynchronizationRegistry;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.util.List;
import javax.sql.DataSource;

/**
 * Invoice creation and queries (Jakarta Persistence, container-managed JTA). Each query first takes a connection of
 * the datasource ({@link #connectionAvailable()}): while the database refuses connections that fails at once, where
 * EclipseLink takes the failure for a lost connection, waits (its delay between connection attempts, seconds) and
 * tries again, so that a read answered 503, and readiness ({@link UnmailedInvoicesCheck}) DOWN, only after a
 * probe's timeout.
 */
@ApplicationScoped
public class Invoices {

    /** Key of the transaction resource that says an invoice was flushed in the current transaction. */
    private static final Object FLUSHED = new Object();
    /** Key of the transaction resource that holds the invoice ids reserved by the current transaction. */
    private static final Object ID_BLOCK = new Object();
    /** How many ids one {@code nextval('invoice_id_seq')} reserves: the sequence's increment (db/billing/V4). */
    static final int IDS_PER_BLOCK = 50;

    @PersistenceContext(unitName = "billing")
    EntityManager em;

    @Resource
    TransactionSynchronizationRegistry transactions;
    /** The persistence unit's datasource (persistence.xml), for {@link #connectionAvailable()}. */
    @Resource(lookup = "jdbc/billing")
    DataSource dataSource;
    @Inject
    BillingSchema schema;
    @Inject
    Outbox outbox;
    /**
     * {@link InvoiceIssued#topic()}, read once: its three configuration lookups for every invoice took about 7% of the
     * server's CPU on the grouped path (JFR samples). The topic is fixed for the application's life anyway:
     * {@link InvoicesIssuedTopic} makes it on the broker at start.
     */
    private volatile String issuedTopic;

    /**
     * Creates the invoice of a confirmed order and records its {@code invoices.issued} event in the outbox, both in
     * the caller's transaction (with the inbox row, when the caller is an {@code @Idempotent} consumer).
     *
     * @param order the order event
     * @return the new invoice (its number is assigned by the database)
     * @throws IllegalStateException when called without an active JTA transaction
     */
    public Invoice create(OrderConfirmed order) {
        schema.ensureMigrated();
        Invoice invoice = new Invoice(nextId(), order, OffsetDateTime.now());
        // keyed by customer: one customer's mails keep their order on one partition, the others go out beside them
        String topic = issuedTopic;
        if (topic == null) {
            topic = InvoiceIssued.topic();
            issuedTopic = topic;
        }
        // the event id goes into the invoice's own INSERT: the mailer mails the invoice for this event only
        invoice.issuedAs(outbox.record(topic, invoice.getCustomerEmail(),
                eventId -> InvoiceIssued.of(eventId, invoice).json()));
        em.persist(invoice);
        if (transactions.getResource(FLUSHED) == null) {
            // The first invoice of a transaction is written now, so that a delivery of its own meets a database
            // constraint inside the method, where the inbox reads its SQLState (a permanent one is dead-lettered at
            // once); a message-driven bean's commit happens after the method returned, where the inbox cannot see
            // why it failed. The later invoices of a group's transaction wait for the commit, where they go as one
            // JDBC batch; a failure there rolls the group back, and each of its records runs again alone, first in
            // its transaction. (A flush per invoice would also look for changes in everything persisted before it.)
            transactions.putResource(FLUSHED, Boolean.TRUE);
            em.flush();
        }
        return invoice;
    }

    /**
     * The next id of the block this transaction reserved, reserving a block first when it has none left: known
     * before the {@code INSERT}, so a group's invoices go as one JDBC batch at the commit. The block ends with its
     * transaction. A block kept by the server across transactions (EclipseLink's preallocation) outlives a database
     * failover that loses the sequence's last values: the promoted standby hands the same block out again while the
     * server still uses it, and invoices collide on their key (docs/tests.md, scenario 12). The ids a transaction does
     * not use are left as gaps (the invoice number has a sequence of its own, db/billing/V1).
     */
    private long nextId() {
        long[] block = (long[]) transactions.getResource(ID_BLOCK); // {next id, last id}
        if (block == null || block[0] > block[1]) {
            // FlushModeType.COMMIT: the sequence does not read the invoices persisted so far, and a flush here
            // would write them before the commit, splitting the group's JDBC batch in two
            long last = ((Number) em.createNativeQuery("SELECT nextval('invoice_id_seq')")
                    .setFlushMode(FlushModeType.COMMIT).getSingleResult()).longValue();
            block = new long[] {last - IDS_PER_BLOCK + 1, last};
            transactions.putResource(ID_BLOCK, block);
        }
        return block[0]++;
    }

    /**
     * The compensation query: invoices whose mail is not recorded as sent although they are older than
     * {@code olderThan}, for a team without the outbox to see the gap and resend.
     *
     * @param olderThan how long an invoice may wait for its mail
     * @param limit     the most invoices returned, oldest first
     * @return those invoices
     */
    public List<Invoice> unmailed(Duration olderThan, int limit) {
        connectionAvailable();
        return em.createQuery("SELECT i FROM Invoice i WHERE i.mailedAt IS NULL AND i.createdAt < :before "
                        + "ORDER BY i.createdAt", Invoice.class)
                .setParameter("before", OffsetDateTime.now().minus(olderThan))
                .setMaxResults(limit)
                .getResultList();
    }

    /**
     * @param olderThan how long an invoice may wait for its mail
     * @return how many invoices older than that have no mail recorded
     */
    public long unmailedCount(Duration olderThan) {
        connectionAvailable();
        return em.createQuery("SELECT count(i) FROM Invoice i WHERE i.mailedAt IS NULL AND i.createdAt < :before",
                        Long.class)
                .setParameter("before", OffsetDateTime.now().minus(olderThan))
                .getSingleResult();
    }

    /**
     * @param orderId an order id, or {@code null} for all orders
     * @param limit   the most invoices returned, newest first
     * @return the invoices
     */
    public List<Invoice> list(String orderId, int limit) {
        connectionAvailable();
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
        connectionAvailable();
        return em.createQuery("SELECT count(i) FROM Invoice i", Long.class).getSingleResult();
    }

    /**
     * Takes a connection of the datasource and gives it back: from the pool, checked, at once; while the database
     * refuses connections a new one is refused at once too.
     *
     * @throws PersistenceException with the pool's {@link SQLException} as its cause when no connection can be had
     */
    private void connectionAvailable() {
        try (Connection connection = dataSource.getConnection()) {
            // nothing to do: the connection was had
        } catch (SQLException e) {
            throw new PersistenceException("the billing database gives no connection: " + e.getMessage(), e);
        }
    }
}
