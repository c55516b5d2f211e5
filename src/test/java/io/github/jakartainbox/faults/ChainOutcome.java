package io.github.jakartainbox.faults;

import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.jakartainbox.testing.Db;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.junit.jupiter.api.function.Executable;

/**
 * What one scenario left downstream of the invoices: the {@code invoices.issued} records the outbox relay
 * published, and the mails the mailer sent to the suite's SMTP server. Per invoice (canary included):
 * <ul>
 *   <li>its {@code invoices.issued} records, at least one each, all carrying the event id of its outbox row (a
 *       second record is the relay's at-least-once: a crash between the broker's acknowledgement and the mark);</li>
 *   <li>its mails: at least one with Message-ID {@code <event-id@invoices.billing.jakarta-inbox>}, and the mail
 *       recorded ({@code invoice.mail_message_id}). A second mail is <em>explained</em> by the window between the
 *       SMTP server's acceptance and the mailer's commit (docs/outbox-and-mail.md, "What each step guarantees") when it carries the
 *       same Message-ID as the recorded one and the mailer committed the event exactly once (one inbox row): the
 *       extra copy came from an attempt whose transaction never committed. In a failover scenario a mail is also
 *       explained when its Message-ID is that of another {@code invoices.issued} record of the same order: the mail
 *       of an invoice the failover lost, sent before it. Anything else is unexplained.</li>
 * </ul>
 *
 * @param invoices        invoices of the run (the canary's included)
 * @param issuedRecords   {@code invoices.issued} records on the run's topic
 * @param issuedMissing   invoices without any record (lost by the relay)
 * @param issuedExtra     records beyond one per invoice (published more than once)
 * @param issuedWrongId   records whose {@code event_id} header is not the one of the invoice's outbox row
 * @param mailed          invoices with their mail at the SMTP server and recorded as sent
 * @param refused         invoices whose customer's address the SMTP server refused ({@link FaultRun.MailFault}):
 *                        no mail at the server, {@code mail_status} failed, as expected
 * @param uncertain       invoices whose mail had no final reply: exactly one copy at the server,
 *                        {@code mail_status} uncertain, as expected
 * @param unmailed        invoices without a mail at the SMTP server or without the record of it, or whose outcome is
 *                        not the one their customer's SMTP fault calls for
 * @param mailsDuplicated mails beyond one per invoice
 * @param ofLostCommits   of those, the mails of invoices a failover lost (another record's Message-ID)
 * @param unexplained     of those, the ones neither the crash window nor a failover explains (an unknown
 *                        Message-ID, or the mailer's inbox without exactly one row for the event)
 * @param mailerLag       records of the run's {@code invoices.issued} topic not committed by the mailer's group
 * @param sideEffectsOfLostCommits a failover scenario's ({@link FaultRun#sideEffectsOfLostCommits}): second records
 *                        of orders whose first invoice the failover lost are counted, not failed, and so are their
 *                        second mails when they carry the lost invoice's Message-ID
 */
record ChainOutcome(long invoices, long issuedRecords, long issuedMissing, long issuedExtra, long issuedWrongId,
                    long mailed, long refused, long uncertain, long unmailed, long mailsDuplicated, long ofLostCommits,
                    long unexplained, long mailerLag, boolean sideEffectsOfLostCommits) {

    /** An invoice as the checks need it: its order, recipient, outbox event id, recorded Message-ID and mail status. */
    private record Invoice(String orderId, String email, String eventId, String recordedMessageId, String status,
                           long mailerRows) {
    }

    /** @return the Message-ID of the mail of the invoice whose {@code invoices.issued} event has that id */
    private static String messageId(String eventId) {
        return "<" + eventId + "@invoices.billing.jakarta-inbox>";
    }

    /** Reads the chain's outcome of a finished scenario. */
    static ChainOutcome measure(FaultRun run, Db db, PrivateKafka kafka, PrivateSmtp smtp) throws Exception {
        List<Invoice> invoices = new ArrayList<>();
        // the outbox row of an invoice: the one whose payload names it (billing records exactly one per invoice)
        List<String> rows = db.texts("SELECT concat_ws(' ', v.order_id, v.customer_email, o.event_id::text, "
                + "coalesce(v.mail_message_id, '-'), coalesce(v.mail_status, '-'), "
                + "(SELECT count(*) FROM inbox i WHERE i.consumer = 'mailer' "
                + "AND i.event_id = o.event_id::text)) FROM invoice v LEFT JOIN outbox o "
                + "ON o.payload::jsonb ->> 'invoice_id' = v.id::text");
        for (String row : rows) {
            String[] f = row.split(" ");
            boolean outboxRow = f.length > 5;
            invoices.add(new Invoice(f[0], f[1], outboxRow ? f[2] : null,
                    outboxRow && !f[3].equals("-") ? f[3] : null, f[f.length - 2].equals("-") ? null : f[f.length - 2],
                    Long.parseLong(f[f.length - 1])));
        }
        Map<String, List<String>> issued = kafka.eventIdsByKey(run.issuedTopic);
        long records = issued.values().stream().mapToLong(List::size).sum();
        long missing = 0;
        long extra = 0;
        long wrongId = 0;
        long mailed = 0;
        long refused = 0;
        long uncertain = 0;
        long duplicated = 0;
        long ofLostCommits = 0;
        long unexplained = 0;
        Map<String, Integer> copies = new HashMap<>();
        Map<String, List<String>> mailsByRecipient = smtp.messageIds(invoices.stream().map(Invoice::email).toList());
        for (Invoice invoice : invoices) {
            // records are keyed by customer, and each of the suite's orders has a customer of its own
            List<String> ids = issued.getOrDefault(invoice.email(), List.of());
            if (ids.isEmpty()) {
                missing++;
            }
            extra += Math.max(0, ids.size() - 1);
            wrongId += ids.stream().filter(id -> !Objects.equals(id, invoice.eventId())).count();
            String expected = invoice.eventId() == null ? null : messageId(invoice.eventId());
            List<String> mails = mailsByRecipient.getOrDefault(invoice.email(), List.of());
            long right = mails.stream().filter(m -> m.equals(expected)).count();
            FaultRun.MailFault fault = FaultRun.MailFault.of(invoice.email());
            String status = fault == null ? "sent" : fault.status;
            if (fault == FaultRun.MailFault.CUT && "uncertain".equals(invoice.status()) && mails.isEmpty()) {
                uncertain++; // the drop came after the client had written the end of data: it cannot know
            } else if (!status.equals(invoice.status())) {
                System.out.printf("  invoice of %s: mail_status %s, expected %s%n", invoice.email(), invoice.status(),
                        status);
            } else if (status.equals("failed") && mails.isEmpty()) {
                refused++;
            } else if (status.equals("uncertain") && right == 1 && mails.size() == 1) {
                uncertain++; // the server has the one copy it accepted; it was not sent again
            } else if (status.equals("sent") && right >= 1 && expected.equals(invoice.recordedMessageId())) {
                mailed++;
            }
            if (mails.size() > 1) {
                duplicated += mails.size() - 1;
                long lostInvoices = run.sideEffectsOfLostCommits ? mails.stream()
                        .filter(m -> !m.equals(expected) && ids.stream().anyMatch(id -> m.equals(messageId(id))))
                        .count() : 0;
                boolean window = right == 1 || invoice.mailerRows() == 1;
                if (right >= 1 && window && right + lostInvoices == mails.size()) {
                    ofLostCommits += lostInvoices;
                } else {
                    unexplained += mails.size() - 1;
                }
                copies.merge(String.valueOf(mails.size()), 1, Integer::sum);
            }
        }
        if (!copies.isEmpty()) {
            System.out.printf("  invoices mailed more than once, by number of copies: %s%n", copies);
        }
        long lag = kafka.lag(run.mailerGroup, run.issuedTopic);
        return new ChainOutcome(invoices.size(), records, missing, extra, wrongId, mailed, refused, uncertain,
                invoices.size() - mailed - refused - uncertain, duplicated, ofLostCommits, unexplained, lag,
                run.sideEffectsOfLostCommits);
    }

    /**
     * The chain's guarantee: every invoice's event published at least once with its outbox event id, every invoice
     * mailed and its mail recorded, every duplicate mail explained by the crash window, nothing left unconsumed.
     *
     * @param where  the scenario, for the messages
     * @param strict also no event published twice and no mail sent twice (a scenario whose fault cannot hit the
     *               relay's or the mailer's window)
     */
    List<Executable> assertions(String where, boolean strict) {
        return assertions(where, strict, 0, 0, 0);
    }

    /**
     * @param refusedExpected   invoices whose customer the SMTP server refuses ({@link FaultRun.MailFault#REFUSED})
     * @param uncertainExpected invoices whose mail gets no final reply ({@link FaultRun.MailFault#STALLED},
     *                          {@link FaultRun.MailFault#DROPPED})
     * @param uncertainMore     invoices that may also end uncertain ({@link FaultRun.MailFault#CUT})
     */
    List<Executable> assertions(String where, boolean strict, long refusedExpected, long uncertainExpected,
                                long uncertainMore) {
        if (sideEffectsOfLostCommits) {
            // a failover lost commits after their records and mails had left: their orders' replay publishes and mails
            // a second invoice, under another event id (counted in the table, not failed)
            return List.of(
                    () -> assertEquals(refusedExpected, refused, where + "invoices refused by the SMTP server"),
                    () -> assertEquals(0, issuedMissing, where + "invoices without an invoices.issued record (lost)"),
                    () -> assertEquals(0, unmailed, where + "invoices without their mail, or without the record of it"),
                    () -> assertEquals(0, unexplained, where + "duplicate mails explained neither by the window "
                            + "between SMTP acceptance and the mailer's commit nor by an invoice the failover lost"),
                    () -> assertEquals(0, mailerLag, where + "invoices.issued records left uncommitted by the mailer"));
        }
        List<Executable> checks = new ArrayList<>(List.of(
                () -> assertEquals(refusedExpected, refused, where + "invoices refused by the SMTP server: not mailed, "
                        + "mail_status failed"),
                () -> assertTrue(uncertain >= uncertainExpected && uncertain <= uncertainExpected + uncertainMore,
                        where + "invoices without a final reply (one copy at the server, or none after a cut, "
                        + "mail_status uncertain): " + uncertain + ", expected " + uncertainExpected + " to "
                        + (uncertainExpected + uncertainMore)),
                () -> assertEquals(0, issuedMissing, where + "invoices without an invoices.issued record (lost)"),
                () -> assertEquals(0, issuedWrongId, where + "invoices.issued records with another event id than "
                        + "their outbox row's"),
                () -> assertEquals(0, unmailed, where + "invoices without their mail, or without the record of it"),
                () -> assertEquals(0, unexplained, where + "duplicate mails not explained by the window between SMTP "
                        + "acceptance and the mailer's commit"),
                () -> assertEquals(0, mailerLag, where + "invoices.issued records left uncommitted by the mailer")));
        if (strict) {
            checks.add(() -> assertEquals(0, issuedExtra, where + "invoices.issued published more than once"));
            checks.add(() -> assertEquals(0, mailsDuplicated, where + "mails sent more than once"));
        }
        return checks;
    }

    /** Fails unless {@link #assertions} hold. */
    void assertGuarantees(String where, boolean strict) {
        assertAll(assertions(where, strict));
    }
}
