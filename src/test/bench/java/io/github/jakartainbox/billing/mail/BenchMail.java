package io.github.jakartainbox.billing.mail;

import io.github.jakartainbox.billing.invoice.Invoice;
import io.github.jakartainbox.billing.order.OrderConfirmed;
import jakarta.mail.MessagingException;
import jakarta.mail.Session;
import jakarta.mail.internet.InternetAddress;
import jakarta.mail.internet.MimeMessage;
import java.lang.reflect.Field;
import java.math.BigDecimal;
import java.time.OffsetDateTime;

/** The mailer's own message, for the mail benchmark's bare loop (package-private pieces of the example). */
public final class BenchMail {

    private BenchMail() {
    }

    /** @return an invoice as the database would hold it, with its id and number */
    public static Invoice invoice(long id, String eventId, String orderId, String email, OffsetDateTime createdAt) {
        Invoice invoice = new Invoice(id, new OrderConfirmed(eventId, orderId, email, new BigDecimal("129.90"), "EUR"),
                createdAt);
        try {
            set(invoice, "invoiceNumber", String.format("INV-%09d", id));
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException(e);
        }
        return invoice;
    }

    /** @return the message InvoiceMailer sends for the invoice (PDF rendered here), to its customer address */
    public static MimeMessage message(Session session, Invoice invoice, String messageId) throws MessagingException {
        MimeMessage message = new SmtpSender.ObservedMessage(session, messageId);
        InvoiceMailer.compose(message, invoice, new InternetAddress(invoice.getCustomerEmail(), true));
        return message;
    }

    /** @return the service's socket factory (TCP_NODELAY), so that the bare loop's connections are the same */
    public static javax.net.SocketFactory socketFactory() {
        return new SmtpSender.TrackingSocketFactory();
    }

    private static void set(Invoice invoice, String field, Object value) throws ReflectiveOperationException {
        Field f = Invoice.class.getDeclaredField(field);
        f.setAccessible(true);
        f.set(invoice, value);
    }
}
