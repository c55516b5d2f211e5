package io.github.jakartainbox.billing.invoice;

import io.github.jakartainbox.billing.order.OrderConfirmed;
import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Table;
import java.math.BigDecimal;
import java.time.OffsetDateTime;

/** One invoice per confirmed order event; table {@code invoice} (db/billing/V1__billing.sql, V3, V4, V8). */
@Entity
@Table(name = "invoice")
public class Invoice {

    /** Assigned by {@link Invoices} from a block of the identity column's sequence taken in the same transaction. */
    @Id
    private Long id;

    @Column(name = "invoice_number", insertable = false, updatable = false)
    private String invoiceNumber;

    @Column(name = "order_id", nullable = false)
    private String orderId;

    @Column(name = "event_id", nullable = false)
    private String eventId;

    @Column(name = "customer_email", nullable = false)
    private String customerEmail;

    @Column(name = "amount", nullable = false, precision = 12, scale = 2)
    private BigDecimal amount;

    @Column(name = "currency", nullable = false, length = 3)
    private String currency;

    @Column(name = "created_at", nullable = false)
    private OffsetDateTime createdAt;

    /** its {@code invoices.issued} event id, the outbox's: the one event the mailer mails it for */
    @Column(name = "issued_event_id", updatable = false)
    private String issuedEventId;

    /** set by the mailer (SQL), never by this entity */
    @Column(name = "mailed_at", insertable = false, updatable = false)
    private OffsetDateTime mailedAt;

    @Column(name = "mail_message_id", insertable = false, updatable = false)
    private String mailMessageId;

    /** set by the mailer (SQL): sent, failed or uncertain; null while no mail was tried to the end */
    @Column(name = "mail_status", insertable = false, updatable = false)
    private String mailStatus;

    /** set by the mailer (SQL) with a failed or uncertain status: the reason, with its message id */
    @Column(name = "mail_error", insertable = false, updatable = false)
    private String mailError;

    protected Invoice() {
    }

    public Invoice(long id, OrderConfirmed order, OffsetDateTime createdAt) {
        this.id = id;
        this.orderId = order.orderId();
        this.eventId = order.eventId();
        this.customerEmail = order.customerEmail();
        this.amount = order.amount();
        this.currency = order.currency();
        this.createdAt = createdAt;
    }

    /**
     * An invoice as read from its row (not managed by the persistence context: the mailer reads it with JDBC).
     */
    public static Invoice stored(long id, String invoiceNumber, OrderConfirmed order, OffsetDateTime createdAt) {
        Invoice invoice = new Invoice(id, order, createdAt);
        invoice.invoiceNumber = invoiceNumber;
        return invoice;
    }

    /**
     * Names the {@code invoices.issued} event the outbox recorded for this invoice, before it is persisted.
     *
     * @param eventId the outbox's event id
     */
    void issuedAs(java.util.UUID eventId) {
        this.issuedEventId = eventId.toString();
    }

    public Long getId() {
        return id;
    }

    public String getInvoiceNumber() {
        return invoiceNumber;
    }

    public String getOrderId() {
        return orderId;
    }

    public String getEventId() {
        return eventId;
    }

    public String getCustomerEmail() {
        return customerEmail;
    }

    public BigDecimal getAmount() {
        return amount;
    }

    public String getCurrency() {
        return currency;
    }

    public OffsetDateTime getCreatedAt() {
        return createdAt;
    }

    /** @return when the mailer recorded the invoice's mail as sent, {@code null} while it is not */
    public OffsetDateTime getMailedAt() {
        return mailedAt;
    }

    /** @return the Message-ID of the invoice's mail, {@code null} while none is recorded */
    public String getMailMessageId() {
        return mailMessageId;
    }

    /** @return {@code sent}, {@code failed} (the SMTP server refused it), {@code uncertain} (sent, no final reply),
     *          or {@code null} while no mail was tried to the end */
    public String getMailStatus() {
        return mailStatus;
    }

    /** @return why the mail failed or is uncertain, with the message id; {@code null} otherwise */
    public String getMailError() {
        return mailError;
    }
}
