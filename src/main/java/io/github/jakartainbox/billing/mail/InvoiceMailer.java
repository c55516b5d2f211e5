package io.github.jakartainbox.billing.mail;

import io.github.jakartainbox.billing.BillingMessage;
import io.github.jakartainbox.billing.BillingSchema;
import io.github.jakartainbox.billing.invoice.Invoice;
import io.github.jakartainbox.billing.invoice.InvoiceIssued;
import io.github.jakartainbox.billing.order.CustomerEmail;
import io.github.jakartainbox.billing.order.OrderConfirmed;
import io.github.jakartainbox.inbox.DownstreamUnavailableException;
import io.github.jakartainbox.inbox.Idempotent;
import io.github.jakartainbox.inbox.UnprocessableEventException;
import io.github.jakartainbox.inbox.text.Printable;
import jakarta.annotation.PostConstruct;
import jakarta.annotation.Resource;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.mail.Address;
import jakarta.mail.MessagingException;
import jakarta.mail.internet.InternetAddress;
import jakarta.mail.internet.MimeBodyPart;
import jakarta.mail.internet.MimeMessage;
import jakarta.mail.internet.MimeMultipart;
import jakarta.mail.util.ByteArrayDataSource;
import jakarta.transaction.Status;
import jakarta.transaction.Synchronization;
import jakarta.transaction.TransactionSynchronizationRegistry;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.OffsetDateTime;
import java.util.Base64;
import java.util.UUID;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import javax.sql.DataSource;
import org.eclipse.microprofile.metrics.Counter;
import org.eclipse.microprofile.metrics.Metadata;
import org.eclipse.microprofile.metrics.MetricRegistry;
import org.eclipse.microprofile.reactive.messaging.Incoming;
import org.eclipse.microprofile.reactive.messaging.Message;

/**
 * Consumer {@code mailer} of {@code invoices.issued}: renders the invoice PDF and mails it to the customer, to the
 * server of Liberty's {@code mail/billing} session over a connection kept per thread ({@link SmtpSender}), and
 * records the mail ({@code invoice.mailed_at}, {@code mail_message_id})
 * in the transaction that claims the event. The mail's {@code Message-ID} is derived from the event id, so that a
 * second mail for the same event (sent in the window between the SMTP server's acceptance and this transaction's
 * commit, then sent again after a crash or a failed commit) carries the same Message-ID and is recognisable.
 *
 * <p><b>One mail per invoice.</b> The inbox makes each event's effect happen once; an invoice may still be named by
 * a second event under another event id (a producer repeating it, a forged record). Before sending, the delivery's
 * transaction inserts the invoice's row in {@code invoice_mail} with its Message-ID: an event whose invoice's mail was
 * sent, refused or is uncertain under another Message-ID, or is being sent by a racing transaction (the primary key
 * makes it wait for that one's outcome), mails nothing and is acknowledged ({@code BILLING0311W}, counted in
 * {@value #NOT_MAILED_AGAIN}). A re-drive of the first event's dead letter carries its Message-ID and is sent.
 *
 * <p><b>Several mails per transaction.</b> The channel runs groups of records in one transaction
 * ({@code group.max-size}): each mail is still sent on its own, but their records and inbox rows commit together.
 * When one delivery of a group fails, the connector rolls the whole group back and delivers its records again one
 * by one, each in its own transaction. Two memories of this class keep that from sending any mail twice:
 * <ul>
 * <li>{@link #accepted}: the mails the SMTP server accepted whose record has not committed yet, by event id. A
 *     delivery of such an event records the mail without sending it again (the server has it), whatever rolled its
 *     transaction back: a later record of the group, a failed commit, the database lost after the send. An entry
 *     leaves when a transaction recording that mail commits. It is this process's knowledge: after a crash the mail
 *     is sent again, with the same Message-ID, as before.</li>
 * <li>{@link #failedRecord}: per thread, the record whose mail was refused for good or is uncertain. Its delivery
 *     again on the same thread, the same record object, can only be the group's one-by-one replay: it fails the same
 *     way without a second SMTP attempt (an uncertain mail is never sent again by itself). A re-drive, a rewind or
 *     a redelivery after a rebalance is another record object, and is sent as before.</li>
 * </ul>
 */
@ApplicationScoped
public class InvoiceMailer {

    /** The billing database, read and written with JDBC on the transaction's connection (the persistence unit's). */
    @Resource(lookup = "jdbc/billing")
    DataSource dataSource;
    @Inject
    BillingSchema schema;
    @Inject
    SmtpSender sender;
    @Inject
    InvoiceMailStatus status;
    @Resource
    TransactionSynchronizationRegistry transactions;
    @Inject
    MetricRegistry registry;

    /** {@value #NOT_MAILED_AGAIN}: events acknowledged without a mail because their invoice had its mail already. */
    static final String NOT_MAILED_AGAIN = "billing_mail_not_mailed_again";
    private Counter notMailedAgain;

    @PostConstruct
    void counters() {
        notMailedAgain = registry.counter(Metadata.builder().withName(NOT_MAILED_AGAIN).withDescription(
                "invoices.issued events acknowledged without a mail: their invoice's mail was sent, refused or "
                        + "uncertain under another event id (BILLING0311W)").build());
    }

    private static final String READ_SQL = "SELECT invoice_number, order_id, event_id, customer_email, amount, "
            + "currency, created_at, mail_message_id, mail_status, issued_event_id FROM invoice WHERE id = ?";
    /** The invoice's one mail: taken before the send, so that a racing event of the same invoice waits for it. */
    private static final String CLAIM_SQL = "INSERT INTO invoice_mail (invoice_id, message_id) VALUES (?, ?) "
            + "ON CONFLICT (invoice_id) DO NOTHING";
    private static final String CLAIMED_SQL = "SELECT message_id FROM invoice_mail WHERE invoice_id = ?";
    private static final String MAILED_SQL = "UPDATE invoice SET mailed_at = clock_timestamp(), mail_message_id = ?, "
            + "mail_status = 'sent', mail_error = NULL WHERE id = ?";

    /** At most this many accepted mails are remembered unrecorded; past it a rolled-back mail is sent again. */
    static final int ACCEPTED_LIMIT = 10_000;

    /** Mails the SMTP server accepted whose record has not committed: event id to Message-ID. */
    private final ConcurrentMap<UUID, String> accepted = new ConcurrentHashMap<>();

    /** The record, on this thread, whose mail failed for good or uncertainly, and that failure. */
    private final ThreadLocal<FailedRecord> failedRecord = new ThreadLocal<>();

    /** A record whose send failed without a retry, and the failure it was dead-lettered with. */
    private record FailedRecord(Object record, UnprocessableEventException failure) {
    }

    /**
     * @param eventId an {@code invoices.issued} event id
     * @return the Message-ID of its mail, {@code <event-id@invoices.billing.jakarta-inbox>} (RFC 5322 section 3.6.4)
     */
    public static String messageId(UUID eventId) {
        return "<" + eventId + "@invoices.billing.jakarta-inbox>";
    }

    /**
     * @param message the {@code invoices.issued} record (a {@code Message}, so that the delivery's span continues the
     *                trace of the order that made the invoice: the outbox wrote its {@code traceparent}, docs/
     *                observability.md "Tracing"); its value as it arrived
     * @return the acknowledgement (the inbox acknowledges the record itself, after the commit)
     * @throws UnprocessableEventException    when the event is malformed, names no invoice or no plain address,
     *                                        or the SMTP server refused the mail for good (5xx) or gave no final reply
     *                                        (uncertain: not sent again): dead-lettered at once
     * @throws DownstreamUnavailableException when the SMTP server is unavailable before the end of data was sent:
     *                                        waited out without using attempts
     * @throws IllegalStateException          when the SMTP server deferred the recipient (4xx to RCPT): retried up to
     *                                        the consumer's attempts
     */
    @Incoming("invoices-mailer")
    @Idempotent(consumer = "mailer")
    public CompletionStage<Void> onInvoiceIssued(Message<byte[]> message) {
        InvoiceIssued event = InvoiceIssued.parse(message.getPayload());
        schema.ensureMigrated();
        Stored stored = read(event.invoiceId());
        if (stored == null) {
            throw new UnprocessableEventException(BillingMessage.BILLING0125E.format(
                    String.valueOf(event.invoiceId()), event.eventId()));
        }
        Invoice invoice = stored.invoice();
        // the id alone does not say the event is this database's: another database's invoice of the same id would
        // be mailed to this one's customer (seen when a benchmark published to the service's topic)
        String differs = differences(invoice, event);
        if (!differs.isEmpty()) {
            throw new UnprocessableEventException(BillingMessage.BILLING0128E.format(event.eventId(),
                    String.valueOf(invoice.getId()), differs));
        }
        // the contract's display rule again, for an invoice stored before it refused bidirectional controls
        OrderConfirmed.shownAsIs("order_id", invoice.getOrderId());
        String messageId = messageId(event.eventId());
        // one mail per invoice: an event of an invoice whose mail was sent, refused or is uncertain under another
        // event id (a producer's repeat under a new id, a forged record) changes nothing
        if (stored.mailMessageId() != null && !stored.mailMessageId().equals(messageId)) {
            return notMailedAgain(message, invoice, event, stored.mailMessageId(), stored.mailStatus());
        }
        // the invoice's own event only: a record of an invoice a failover lost names its id, which the promoted
        // database hands out again, possibly to the same order's new invoice (same fields, another event)
        if (stored.issuedEventId() != null && !stored.issuedEventId().equals(event.eventId().toString())) {
            throw new UnprocessableEventException(BillingMessage.BILLING0303E.format(event.eventId(),
                    String.valueOf(invoice.getId()), stored.issuedEventId()));
        }
        String claimed = claim(invoice.getId(), messageId);
        if (!claimed.equals(messageId)) {
            return notMailedAgain(message, invoice, event, claimed, "being sent or sent");
        }
        if (messageId.equals(accepted.get(event.eventId()))) {
            // the server accepted this mail in a transaction that rolled back: record it, do not send it again
            forgetOnCommit(event.eventId(), messageId);
        } else {
            Object record = record(message);
            FailedRecord failed = failedRecord.get();
            if (failed != null && record != null && failed.record() == record) {
                // the group's replay of the record whose mail failed: the same failure, no second SMTP attempt
                failedRecord.remove();
                throw new UnprocessableEventException(failed.failure().getMessage(), failed.failure());
            }
            try {
                send(invoice, messageId);
            } catch (UnprocessableEventException e) {
                if (record != null) {
                    failedRecord.set(new FailedRecord(record, e));
                }
                throw e;
            }
            if (accepted.size() < ACCEPTED_LIMIT) {
                accepted.put(event.eventId(), messageId);
                forgetOnCommit(event.eventId(), messageId);
            }
        }
        // recorded after the send, in the transaction that claims the event (the time of the record, not of the
        // transaction's start, which a group shares): a crash after the SMTP server accepted the mail leaves a mail
        // without its record (and the retry mails again, with the same Message-ID)
        recordMailed(invoice.getId(), messageId);
        return message.ack();
    }

    /**
     * @return the invoice's row, or null when there is none. JDBC rather than the persistence context: a mail needs
     *         the row's values only, and the entity's find and bookkeeping cost more than the query itself.
     */
    private Stored read(long id) {
        try (Connection c = dataSource.getConnection(); PreparedStatement q = c.prepareStatement(READ_SQL)) {
            q.setLong(1, id);
            try (ResultSet rs = q.executeQuery()) {
                if (!rs.next()) {
                    return null;
                }
                return new Stored(Invoice.stored(id, rs.getString(1), new OrderConfirmed(rs.getString(3),
                        rs.getString(2), rs.getString(4), rs.getBigDecimal(5), rs.getString(6)),
                        rs.getObject(7, OffsetDateTime.class)), rs.getString(8), rs.getString(9), rs.getString(10));
            }
        } catch (SQLException e) {
            throw new IllegalStateException("invoice " + id + " could not be read: " + e.getMessage(), e);
        }
    }

    /**
     * An invoice's row, the state of its mail ({@code mail_message_id}, {@code mail_status}; null: none yet) and the
     * event id this database issued it under ({@code issued_event_id}; null on invoices written before db/billing/V8).
     */
    private record Stored(Invoice invoice, String mailMessageId, String mailStatus, String issuedEventId) {
    }

    /**
     * @return the fields in which the event differs from the stored invoice, comma-separated; empty when none
     */
    static String differences(Invoice invoice, InvoiceIssued event) {
        java.util.StringJoiner differs = new java.util.StringJoiner(", ");
        if (!invoice.getOrderId().equals(event.orderId())) {
            differs.add("order_id");
        }
        if (!invoice.getCustomerEmail().equals(event.customerEmail())) {
            differs.add("customer_email");
        }
        if (invoice.getAmount().compareTo(event.amount()) != 0) {
            differs.add("amount");
        }
        if (!invoice.getCurrency().equals(event.currency())) {
            differs.add("currency");
        }
        return differs.toString();
    }

    /**
     * Takes the invoice's one mail for this Message-ID, in the delivery's transaction. A transaction racing with
     * another event of the same invoice waits here until the other commits or rolls back (the primary key decides).
     *
     * @return the Message-ID the invoice's mail is taken for: this one, or another event's
     */
    private String claim(long id, String messageId) {
        try (Connection c = dataSource.getConnection()) {
            try (PreparedStatement insert = c.prepareStatement(CLAIM_SQL)) {
                insert.setLong(1, id);
                insert.setString(2, messageId);
                if (insert.executeUpdate() == 1) {
                    return messageId;
                }
            }
            try (PreparedStatement q = c.prepareStatement(CLAIMED_SQL)) {
                q.setLong(1, id);
                try (ResultSet rs = q.executeQuery()) {
                    return rs.next() ? rs.getString(1) : messageId;
                }
            }
        } catch (SQLException e) {
            throw new IllegalStateException("the mail of invoice " + id + " could not be claimed: " + e.getMessage(), e);
        }
    }

    /** Acknowledges an event whose invoice has its mail already: logged, counted once its inbox row commits. */
    private CompletionStage<Void> notMailedAgain(Message<byte[]> message, Invoice invoice, InvoiceIssued event,
            String mailMessageId, String state) {
        BillingMessage.BILLING0311W.log(String.valueOf(invoice.getId()), event.eventId(), mailMessageId,
                state == null ? "being sent" : state);
        afterCommit(notMailedAgain::inc);
        return message.ack();
    }

    private void recordMailed(long id, String messageId) {
        try (Connection c = dataSource.getConnection(); PreparedStatement u = c.prepareStatement(MAILED_SQL)) {
            u.setString(1, messageId);
            u.setLong(2, id);
            u.executeUpdate();
        } catch (SQLException e) {
            throw new IllegalStateException("the mail of invoice " + id + " could not be recorded: " + e.getMessage(), e);
        }
    }

    /** Forgets the accepted mail once a transaction that records it commits; a rollback keeps it. */
    private void forgetOnCommit(UUID eventId, String messageId) {
        afterCommit(() -> accepted.remove(eventId, messageId));
    }

    /** Runs {@code action} once the current transaction has committed; nothing when it rolls back. */
    private void afterCommit(Runnable action) {
        transactions.registerInterposedSynchronization(new Synchronization() {
            @Override
            public void beforeCompletion() {
            }

            @Override
            public void afterCompletion(int outcome) {
                if (outcome == Status.STATUS_COMMITTED) {
                    action.run();
                }
            }
        });
    }

    /** @return the Kafka record the message carries (the same object when a group replays it), or null */
    private static Object record(Message<byte[]> message) {
        try {
            return message.unwrap(org.apache.kafka.clients.consumer.ConsumerRecord.class);
        } catch (RuntimeException e) {
            return null;
        }
    }

    private void send(Invoice invoice, String messageId) {
        SmtpSender.ObservedMessage message = sender.newMessage(messageId);
        try {
            compose(message, invoice, recipient(invoice));
            Address[] to = message.getAllRecipients();
            // defence in depth: whatever the contract lets through later, one mail goes to the one stored address
            if (to == null || to.length != 1 || !(to[0] instanceof InternetAddress only)
                    || !invoice.getCustomerEmail().equals(only.getAddress()) || only.getPersonal() != null) {
                throw new UnprocessableEventException(BillingMessage.BILLING0131E.format(String.valueOf(invoice.getId()),
                        Printable.of(invoice.getCustomerEmail(), 80), to == null ? "none" : String.valueOf(to.length)));
            }
        } catch (MessagingException e) {
            throw new UnprocessableEventException(BillingMessage.BILLING0126E.format(
                    String.valueOf(invoice.getId()), e.getMessage()), e);
        }
        try {
            sender.send(message);
        } catch (SmtpSender.SmtpFailureException e) {
            SmtpFailure failure = e.failure();
            switch (failure.kind()) {
                case PERMANENT -> {
                    String reason = BillingMessage.BILLING0130E.format(messageId, String.valueOf(invoice.getId()),
                            failure.reply());
                    status.record(invoice.getId(), "failed", reason, messageId);
                    throw new UnprocessableEventException(reason, e);
                }
                case UNCERTAIN -> {
                    String reason = BillingMessage.BILLING0132E.format(messageId, String.valueOf(invoice.getId()),
                            failure.reply());
                    status.record(invoice.getId(), "uncertain", reason, messageId);
                    throw new UnprocessableEventException(reason, e);
                }
                case UNAVAILABLE -> throw new DownstreamUnavailableException(
                        BillingMessage.BILLING0133W.format(messageId, failure.reply()), e);
                default -> throw new IllegalStateException(BillingMessage.BILLING0127E.format(messageId,
                        failure.reply()), e);
            }
        }
    }

    /**
     * Fills a mail of an invoice: sender from the session, subject, a text part and the rendered PDF (also what the
     * mail benchmark's bare loop sends, so that both send the same message).
     *
     * @param message a new message
     * @param invoice the invoice
     * @param to      its one recipient
     * @throws MessagingException when the message cannot be composed
     */
    static void compose(MimeMessage message, Invoice invoice, InternetAddress to) throws MessagingException {
        message.setFrom();
        message.setRecipient(MimeMessage.RecipientType.TO, to);
        // folded before the order id, so that no line of the header passes 78 characters (RFC 5322 section 2.1.1)
        message.setHeader("Subject", "Invoice " + invoice.getInvoiceNumber() + " for order\r\n "
                + encodedWords(invoice.getOrderId()));
        // the date set here, so that saveChanges does not format it with MailDateFormat (2% of the mailer's CPU)
        message.setHeader("Date", MAIL_DATE.format(OffsetDateTime.now()));
        String body = "Thank you for your order " + invoice.getOrderId() + ". Your invoice "
                + invoice.getInvoiceNumber() + " over " + invoice.getAmount().toPlainString() + " "
                + invoice.getCurrency() + " is attached.\n";
        // bytes with their encoding named, not a String: Jakarta Mail would look up a content handler for the text
        // and write it out once to choose the encoding (about 4% of the mailer's CPU, JFR samples)
        MimeBodyPart text = new MimeBodyPart();
        text.setDataHandler(new jakarta.activation.DataHandler(new ByteArrayDataSource(
                body.getBytes(StandardCharsets.UTF_8), "text/plain; charset=UTF-8")));
        text.setHeader("Content-Transfer-Encoding", textEncoding(body));
        MimeBodyPart pdf = new MimeBodyPart();
        pdf.setDataHandler(new jakarta.activation.DataHandler(
                new ByteArrayDataSource(InvoicePdf.render(invoice), "application/pdf")));
        pdf.setFileName(invoice.getInvoiceNumber() + ".pdf");
        // what saveChanges would choose for a PDF (binary: base64), named so that it does not scan the document for
        // it: MimeUtility.getEncoding read every byte of it, about 7% of composing a mail (JFR samples)
        pdf.setHeader("Content-Transfer-Encoding", "base64");
        message.setContent(new MimeMultipart(text, pdf));
        message.saveChanges();
    }

    /** RFC 5322 section 3.3's date-time, with a numeric zone. */
    private static final java.time.format.DateTimeFormatter MAIL_DATE =
            java.time.format.DateTimeFormatter.ofPattern("EEE, d MMM yyyy HH:mm:ss Z", java.util.Locale.ROOT);

    /**
     * The transfer encoding Jakarta Mail would choose for a short text body: {@code 7bit} when every character is
     * ASCII and no line passes RFC 5322's 998 characters (section 2.1.1), else {@code quoted-printable}.
     *
     * @param body the text, lines ending in {@code \n}
     * @return the encoding's name for the {@code Content-Transfer-Encoding} header
     */
    static String textEncoding(String body) {
        int line = 0;
        for (int i = 0; i < body.length(); i++) {
            char c = body.charAt(i);
            if (c == '\n') {
                line = 0;
            } else if (c >= 0x80 || c == '\r' || c == 0 || ++line > 998) {
                return "quoted-printable";
            }
        }
        return "7bit";
    }

    /** Most bytes of UTF-8 in one encoded word: 45 bytes are 60 Base64 characters, 72 with the word's delimiters
     *  ({@code =?UTF-8?B?...?=}), within RFC 2047's 75 (section 2). */
    private static final int ENCODED_WORD_BYTES = 45;

    /**
     * Event data for an unstructured header field ({@code Subject}), written so that every mail program shows the
     * text as stored: as RFC 2047 encoded words ({@code B}, UTF-8) always, whatever it holds. Jakarta Mail's
     * {@code setSubject} leaves ASCII text as it is, so an {@code order_id} that is itself an encoded word
     * ({@code =?UTF-8?B?QmNjOiB4MTFAZXZpbC50ZXN0?=}) went out raw and was shown decoded ("Bcc: x11@evil.test"); inside
     * an encoded word it is only text. Words are split between characters, never inside one (section 5, rule 3), and
     * folded onto lines of their own; the white space between two encoded words is not shown (section 6.2).
     *
     * @param text the text, any Unicode (the contract has refused control characters and line separators)
     * @return it as one or more encoded words separated by a folding line break
     */
    static String encodedWords(String text) {
        StringBuilder out = new StringBuilder();
        int start = 0;
        while (start < text.length()) {
            int end = start;
            int bytes = 0;
            while (end < text.length()) {
                int codePoint = text.codePointAt(end);
                int size = new String(Character.toChars(codePoint)).getBytes(StandardCharsets.UTF_8).length;
                if (bytes + size > ENCODED_WORD_BYTES) {
                    break;
                }
                bytes += size;
                end += Character.charCount(codePoint);
            }
            if (out.length() > 0) {
                out.append("\r\n ");
            }
            out.append("=?UTF-8?B?").append(Base64.getEncoder().encodeToString(
                    text.substring(start, end).getBytes(StandardCharsets.UTF_8))).append("?=");
            start = end;
        }
        return out.toString();
    }

    /** The one recipient: the stored address checked by the contract's rule again (an invoice stored before the rule
     *  was as strict, or a rule loosened later), then parsed strictly, and refused unless it is that one address. */
    private static InternetAddress recipient(Invoice invoice) throws MessagingException {
        CustomerEmail.check("customer_email", invoice.getCustomerEmail());
        InternetAddress[] parsed = InternetAddress.parse(invoice.getCustomerEmail(), true);
        if (parsed.length != 1 || parsed[0].isGroup() || parsed[0].getPersonal() != null
                || !invoice.getCustomerEmail().equals(parsed[0].getAddress())) {
            throw new UnprocessableEventException(BillingMessage.BILLING0131E.format(String.valueOf(invoice.getId()),
                    Printable.of(invoice.getCustomerEmail(), 80), String.valueOf(parsed.length)));
        }
        return parsed[0];
    }
}
