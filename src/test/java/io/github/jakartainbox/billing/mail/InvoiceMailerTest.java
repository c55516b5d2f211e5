package io.github.jakartainbox.billing.mail;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.github.jakartainbox.billing.invoice.Invoice;
import io.github.jakartainbox.billing.invoice.InvoiceIssued;
import io.github.jakartainbox.billing.order.OrderConfirmed;
import java.math.BigDecimal;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/** The mailer's check that an {@code invoices.issued} event describes the stored invoice, field by field. */
class InvoiceMailerTest {

    private static final Invoice INVOICE = Invoice.stored(344, "INV-2026-000344", new OrderConfirmed("e-1", "o-1",
            "a@example.com", new BigDecimal("129.90"), "EUR"), OffsetDateTime.of(2026, 12, 1, 9, 0, 0, 0, ZoneOffset.UTC));

    private static InvoiceIssued event(String orderId, String email, String amount, String currency) {
        return new InvoiceIssued(UUID.randomUUID(), 344, orderId, email, new BigDecimal(amount), currency);
    }

    @Test
    void anEventOfTheInvoiceDiffersInNothing() {
        assertEquals("", InvoiceMailer.differences(INVOICE, event("o-1", "a@example.com", "129.9", "EUR")),
                "129.9 and 129.90 are one amount");
    }

    @Test
    void theDifferingFieldsAreNamedNotTheOrder() {
        assertEquals("customer_email", InvoiceMailer.differences(INVOICE,
                event("o-1", "b@example.com", "129.90", "EUR")));
        assertEquals("order_id, amount, currency", InvoiceMailer.differences(INVOICE,
                event("o-2", "a@example.com", "1.00", "USD")));
    }
}
