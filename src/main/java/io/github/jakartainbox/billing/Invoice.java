package io.github.jakartainbox.billing;

import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.GeneratedValue;
import jakarta.persistence.GenerationType;
import jakarta.persistence.Id;
import jakarta.persistence.Table;
import java.math.BigDecimal;
import java.time.OffsetDateTime;

/** One invoice per confirmed order event; table {@code invoice} (db/billing/V1__billing.sql). */
@Entity
@Table(name = "invoice")
public class Invoice {

    @Id
    @GeneratedValue(strategy = GenerationType.IDENTITY)
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

    protected Invoice() {
    }

    Invoice(OrderConfirmed order, OffsetDateTime createdAt) {
        this.orderId = order.orderId();
        this.eventId = order.eventId();
        this.customerEmail = order.customerEmail();
        this.amount = order.amount();
        this.currency = order.currency();
        this.createdAt = createdAt;
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
}
