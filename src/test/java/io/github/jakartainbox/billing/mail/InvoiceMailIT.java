package io.github.jakartainbox.billing.mail;

import io.github.jakartainbox.billing.SampleEvents;
import io.github.jakartainbox.billing.invoice.Invoices;
import io.github.jakartainbox.billing.order.OrderConfirmed;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.jakartainbox.billing.SampleEvents.Event;
import io.github.jakartainbox.testing.Api;
import io.github.jakartainbox.testing.Db;
import io.github.jakartainbox.testing.Deployments;
import io.github.jakartainbox.testing.Mailbox;
import io.github.jakartainbox.testing.TestEnv;
import io.github.jakartainbox.testing.TopicReader;
import jakarta.enterprise.inject.spi.CDI;
import jakarta.json.Json;
import jakarta.json.JsonObject;
import jakarta.json.JsonReader;
import jakarta.mail.BodyPart;
import jakarta.mail.Multipart;
import jakarta.mail.Session;
import jakarta.mail.internet.MimeMessage;
import jakarta.transaction.UserTransaction;
import java.io.ByteArrayInputStream;
import java.io.File;
import java.io.StringReader;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.UUID;
import javax.naming.InitialContext;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.pdfbox.Loader;
import org.apache.pdfbox.pdmodel.PDDocument;
import org.apache.pdfbox.text.PDFTextStripper;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.container.test.api.RunAsClient;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.shrinkwrap.api.spec.WebArchive;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The whole chain on the real things: orders.confirmed -> billing (invoice + outbox row, one transaction) -> relay
 * -> invoices.issued -> mailer (PDF, Jakarta Mail, Liberty's mail session) -> the local SMTP server (GreenMail).
 */
@ExtendWith(ArquillianExtension.class)
class InvoiceMailIT {

    private static final Duration WAIT = Duration.ofSeconds(90);
    private final Db db = Db.lazy();

    @Deployment
    static WebArchive deployment() {
        return Deployments.billingWithProbes();
    }

    private static Event order(String prefix, String amount) {
        return SampleEvents.event(UUID.randomUUID().toString(), prefix + "-" + UUID.randomUUID(), amount, "EUR");
    }

    private static void send(List<Event> events) throws Exception {
        try (KafkaProducer<String, String> producer = SampleEvents.producer(TestEnv.BOOTSTRAP)) {
            SampleEvents.send(producer, TestEnv.ORDERS_TOPIC, events);
        }
    }

    private static String email(Event e) {
        return e.orderId() + "@example.com";
    }

    /** Sends the order and waits for its invoice's mail to be recorded; @return the invoice's id */
    private long mailedInvoice(Event e) throws Exception {
        send(List.of(e));
        assertEquals(1, db.await(WAIT, n -> n == 1, "SELECT count(*) FROM invoice WHERE order_id = ? "
                + "AND mailed_at IS NOT NULL", e.orderId()), "invoice created and mailed");
        return db.number("SELECT id FROM invoice WHERE order_id = ?", e.orderId());
    }

    /** Publishes an {@code invoices.issued} record for the invoice, under the key given. */
    private static void publishIssued(String key, String eventId, long invoiceId, String orderId, String email,
                                      String amount) throws Exception {
        String json = Json.createObjectBuilder().add("event_id", eventId).add("invoice_id", invoiceId)
                .add("order_id", orderId).add("customer_email", email).add("amount", amount).add("currency", "EUR")
                .build().toString();
        try (KafkaProducer<String, String> producer = SampleEvents.producer(TestEnv.BOOTSTRAP)) {
            producer.send(new org.apache.kafka.clients.producer.ProducerRecord<>(TestEnv.INVOICES_TOPIC, key, json))
                    .get();
        }
    }

    private static List<TopicReader.Rec> issued(String orderId) {
        // keyed by customer (Invoices.create); each test order has a customer of its own
        return TopicReader.read(TestEnv.INVOICES_TOPIC, r -> (orderId + "@example.com").equals(r.key()));
    }

    @Test
    void orderEventGivesOneInvoiceOneIssuedEventAndOneMailWithItsPdf() throws Exception {
        Event e = order("mail", "129.90");
        send(List.of(e));
        assertEquals(1, db.await(WAIT, n -> n == 1, "SELECT count(*) FROM invoice WHERE order_id = ? "
                + "AND mailed_at IS NOT NULL", e.orderId()), "invoice created and its mail recorded");
        List<TopicReader.Rec> issued = issued(e.orderId());
        assertEquals(1, issued.size(), "one invoices.issued record");
        TopicReader.Rec record = issued.get(0);
        JsonObject event;
        try (JsonReader reader = Json.createReader(new StringReader(record.value()))) {
            event = reader.readObject();
        }
        assertEquals(record.eventIdHeader(), event.getString("event_id"), "the event id in header and payload");
        assertEquals(e.orderId(), event.getString("order_id"));
        assertEquals(email(e), event.getString("customer_email"));
        assertEquals("129.90", event.getString("amount"));
        assertEquals("EUR", event.getString("currency"));
        assertEquals(db.number("SELECT id FROM invoice WHERE order_id = ?", e.orderId()),
                event.getJsonNumber("invoice_id").longValue());

        List<Mailbox.Mail> mails = Mailbox.await(email(e), 1, WAIT);
        assertEquals(1, mails.size(), "one mail");
        String messageId = InvoiceMailer.messageId(UUID.fromString(record.eventIdHeader()));
        assertEquals(messageId, mails.get(0).messageId(), "Message-ID derived from the event id");
        assertEquals(messageId, db.text("SELECT mail_message_id FROM invoice WHERE order_id = ?", e.orderId()));
        String pdfText = pdfText(mails.get(0).mime());
        assertTrue(pdfText.contains("129.90 EUR"), pdfText);
        assertTrue(pdfText.contains(e.orderId()), pdfText);
    }

    /**
     * An order id that is itself an RFC 2047 encoded word reaches the customer's mail program as the text stored: in
     * the raw MIME at the SMTP server the subject is encoded words that decode to it. Before, it went out raw and was
     * shown decoded, "Invoice ... for order Bcc: x11@evil.test".
     */
    @Test
    void anOrderIdThatIsAnEncodedWordIsMailedAsTextNotDecoded() throws Exception {
        String forged = "=?UTF-8?B?QmNjOiB4MTFAZXZpbC50ZXN0?=";
        String orderId = forged + " " + UUID.randomUUID();
        String address = "forged-" + UUID.randomUUID() + "@example.com";
        String eventId = UUID.randomUUID().toString();
        String json = Json.createObjectBuilder().add("event_id", eventId).add("order_id", orderId)
                .add("customer_email", address).add("amount", "5.00").add("currency", "EUR").build().toString();
        send(List.of(new Event(eventId, orderId, json)));
        List<Mailbox.Mail> mails = Mailbox.await(address, 1, WAIT);
        assertEquals(1, mails.size(), "one mail");
        MimeMessage received = new MimeMessage(Session.getInstance(new Properties()),
                new ByteArrayInputStream(mails.get(0).mime().getBytes(StandardCharsets.UTF_8)));
        String rawSubject = received.getHeader("Subject", null);
        String number = db.text("SELECT invoice_number FROM invoice WHERE order_id = ?", orderId);
        assertEquals("Invoice " + number + " for order " + orderId, received.getSubject(), "raw: " + rawSubject);
        assertTrue(!rawSubject.contains(forged) && !received.getSubject().contains("Bcc: x11@evil.test"),
                "the order id is inside encoded words of its own: " + rawSubject);
        assertEquals(List.of(address), java.util.Arrays.stream(received.getAllRecipients()).map(String::valueOf)
                .toList(), "one recipient");
    }

    /**
     * An invoices.issued record of another database, naming an invoice id this database also has, is dead-lettered
     * (BILLING0128E) and mails nothing: before, the mailer looked the invoice up by id alone and mailed this
     * database's invoice to its customer a second time (seen when a benchmark's server published to the service's
     * topic).
     */
    @Test
    void anInvoicesIssuedEventOfAnotherDatabaseIsDeadLetteredAndMailsNothing() throws Exception {
        Event e = order("foreign", "12.00");
        long invoiceId = mailedInvoice(e);
        String messageId = db.text("SELECT mail_message_id FROM invoice WHERE order_id = ?", e.orderId());
        String foreignEventId = UUID.randomUUID().toString();
        publishIssued("other-database-order-" + invoiceId, foreignEventId, invoiceId, "other-database-order-" + invoiceId,
                email(e), "99.00");
        assertEquals(1, db.await(WAIT, n -> n == 1, "SELECT count(*) FROM inbox_dead_letter WHERE consumer = "
                + "'mailer' AND event_id = ? AND error LIKE 'BILLING0128E%'", foreignEventId),
                "the foreign event is dead-lettered with its reason");
        assertEquals(messageId, db.text("SELECT mail_message_id FROM invoice WHERE order_id = ?", e.orderId()),
                "the invoice's mail record is untouched");
        assertEquals(1, Mailbox.of(email(e)).size(), "the customer got one mail, not a second one");
    }

    /**
     * Records naming an invoice already mailed, with all its fields right but under new event ids (a producer's
     * repeat, a forged record), on several keys: no second mail, the invoice's Message-ID untouched, each counted.
     * Before, each one mailed the invoice again under a new Message-ID and overwrote {@code mail_message_id}.
     */
    @Test
    void anInvoiceRepeatedUnderNewEventIdsIsMailedOnce() throws Exception {
        Event e = order("mail-repeat", "129.90");
        long invoiceId = mailedInvoice(e);
        String messageId = db.text("SELECT mail_message_id FROM invoice WHERE order_id = ?", e.orderId());
        long countedBefore = notMailedAgain();
        List<String> repeats = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            repeats.add(UUID.randomUUID().toString());
            publishIssued(i == 0 ? email(e) : "repeat-" + i + "-" + UUID.randomUUID(), repeats.get(i), invoiceId,
                    e.orderId(), email(e), "129.90");
        }
        assertEquals(4, db.await(WAIT, n -> n == 4, "SELECT count(*) FROM inbox WHERE consumer = 'mailer' "
                + "AND event_id IN (?, ?, ?, ?)", repeats.toArray()), "each repeat's event claimed by the mailer");
        assertEquals(0, db.number("SELECT count(*) FROM inbox_dead_letter WHERE consumer = 'mailer' "
                + "AND event_id IN (?, ?, ?, ?)", repeats.toArray()), "a repeat is no failure");
        assertEquals(messageId, db.text("SELECT mail_message_id FROM invoice WHERE order_id = ?", e.orderId()),
                "the invoice's mail record is untouched");
        assertEquals(messageId, db.text("SELECT message_id FROM invoice_mail WHERE invoice_id = ?", invoiceId));
        List<Mailbox.Mail> mails = Mailbox.of(email(e));
        assertEquals(List.of(messageId), mails.stream().map(Mailbox.Mail::messageId).toList(),
                "the customer got the one mail of the invoice's own event");
        // counted once the repeat's inbox row committed, just after the row shows
        assertEquals(countedBefore + 4, io.github.jakartainbox.testing.Waiting.lastValue(
                io.github.jakartainbox.testing.Waiting.await("the repeats counted").atMost(WAIT),
                InvoiceMailIT::notMailedAgain, n -> n >= countedBefore + 4), "each repeat counted once");
    }

    /**
     * Records repeating a mailed invoice's own event under other spellings of its UUID (a leading zero dropped, a sign,
     * upper case), each a new event id to the inbox: dead-lettered
     * (BILLING0312E), no second mail. Before, each was mailed again under the invoice's own Message-ID.
     */
    @Test
    void anInvoicesOwnEventIdSpelledOtherwiseMailsNothing() throws Exception {
        Event e = order("mail-spelling", "129.90");
        long invoiceId = mailedInvoice(e);
        String own = issued(e.orderId()).get(0).eventIdHeader();
        // the outbox's ids are UUIDv7, whose text starts with 0 for decades: UUID.fromString reads each of these as it
        assertTrue(own.startsWith("0"), own);
        List<String> spellings = List.of(own.substring(1), "+" + own.substring(1), own.substring(1).toUpperCase());
        for (String spelling : spellings) {
            publishIssued(email(e), spelling, invoiceId, e.orderId(), email(e), "129.90");
        }
        assertEquals(spellings.size(), db.await(WAIT, n -> n == spellings.size(), "SELECT count(*) FROM "
                + "inbox_dead_letter WHERE consumer = 'mailer' AND error LIKE 'BILLING0312E%' "
                + "AND event_id = ANY (?)", (Object) spellings.toArray(String[]::new)), "each spelling dead-lettered");
        assertEquals(1, Mailbox.of(email(e)).size(), "the customer got the one mail of the invoice's own event");
    }

    /**
     * A record naming an invoice not mailed yet, with all its fields right but under another event id than the one the
     * invoice was issued under (the record of an invoice a failover lost, whose id the promoted database handed out
     * again to the same order's new invoice; a forged record): dead-lettered (BILLING0303E), nothing mailed; the
     * invoice's own event then mails it under its own Message-ID. Before, the first record mailed the invoice and
     * recorded its own Message-ID, and the invoice's event was acknowledged without a mail (fault scenario 12).
     */
    @Test
    void anInvoiceIsMailedForTheEventItWasIssuedUnderOnly() throws Exception {
        Event e = order("mail-issued-under", "12.34");
        long billed = mailedInvoice(e);
        assertEquals(issued(e.orderId()).get(0).eventIdHeader(), db.text("SELECT issued_event_id FROM invoice "
                + "WHERE id = ?", billed), "the invoice names the event the outbox recorded for it");
        String orderId = "mail-reused-id-" + UUID.randomUUID();
        String email = orderId + "@example.com";
        String own = UUID.randomUUID().toString();
        String lost = UUID.randomUUID().toString();
        long invoiceId = db.number("INSERT INTO invoice (order_id, event_id, customer_email, amount, currency, "
                + "created_at, issued_event_id) VALUES (?, ?, ?, 12.34, 'EUR', now(), ?) RETURNING id", orderId,
                UUID.randomUUID().toString(), email, own);
        publishIssued(email, lost, invoiceId, orderId, email, "12.34");
        assertEquals(1, db.await(WAIT, n -> n == 1, "SELECT count(*) FROM inbox_dead_letter WHERE consumer = "
                + "'mailer' AND event_id = ? AND error LIKE 'BILLING0303E%'", lost), "the other event dead-lettered");
        assertNull(db.text("SELECT mail_message_id FROM invoice WHERE id = ?", invoiceId), "no mail recorded");
        publishIssued(email, own, invoiceId, orderId, email, "12.34");
        String messageId = InvoiceMailer.messageId(UUID.fromString(own));
        assertEquals(1, db.await(WAIT, n -> n == 1, "SELECT count(*) FROM invoice WHERE id = ? "
                + "AND mail_message_id = ?", invoiceId, messageId), "mailed and recorded for its own event");
        assertEquals(List.of(messageId), Mailbox.of(email).stream().map(Mailbox.Mail::messageId).toList(),
                "the customer got the one mail, under the invoice's own event");
    }

    /** @return {@code billing_mail_not_mailed_again_total} at /metrics, 0 before the first */
    private static long notMailedAgain() throws Exception {
        String body = java.net.http.HttpClient.newHttpClient().send(java.net.http.HttpRequest.newBuilder(
                java.net.URI.create(TestEnv.url("/metrics?scope=application"))).build(),
                java.net.http.HttpResponse.BodyHandlers.ofString()).body();
        java.util.regex.Matcher m = java.util.regex.Pattern.compile(
                "(?m)^billing_mail_not_mailed_again_total(?:\\{[^}]*\\})? ([0-9.eE+]+)$").matcher(body);
        return m.find() ? (long) Double.parseDouble(m.group(1)) : 0;
    }

    /** @return the text of the mail's PDF attachment, parsed by PDFBox */
    private static String pdfText(String mime) throws Exception {
        MimeMessage message = new MimeMessage(Session.getInstance(new Properties()),
                new ByteArrayInputStream(mime.getBytes(StandardCharsets.ISO_8859_1)));
        Multipart parts = (Multipart) message.getContent();
        for (int i = 0; i < parts.getCount(); i++) {
            BodyPart part = parts.getBodyPart(i);
            if (part.isMimeType("application/pdf")) {
                try (PDDocument pdf = Loader.loadPDF(part.getInputStream().readAllBytes())) {
                    return new PDFTextStripper().getText(pdf);
                }
            }
        }
        throw new AssertionError("no PDF attachment in " + message.getContentType());
    }

    @Test
    void duplicateOrderEventCreatesNothingNewAnywhere() throws Exception {
        Event e = order("mail-dup", "15.00");
        send(List.of(e, e, e));
        db.await(WAIT, n -> n == 1, "SELECT count(*) FROM invoice WHERE order_id = ? AND mailed_at IS NOT NULL", e.orderId());
        send(List.of(e)); // a late redelivery, after everything committed
        // a marker with the same key after it: once its mail is recorded, the redelivery has been handled
        Event marker = SampleEvents.event(UUID.randomUUID().toString(), e.orderId(), "1.00", "EUR");
        send(List.of(marker));
        assertEquals(2, db.await(WAIT, n -> n == 2, "SELECT count(*) FROM invoice WHERE order_id = ? "
                + "AND mailed_at IS NOT NULL", e.orderId()), "the event's and the marker's invoice, both mailed");
        assertEquals(1, db.number("SELECT count(*) FROM invoice WHERE event_id = ?", e.eventId()), "one invoice");
        assertEquals(1, db.number("SELECT count(*) FROM outbox o JOIN invoice i ON o.payload LIKE '%\"invoice_id\":' "
                + "|| i.id || ',%' WHERE i.event_id = ?", e.eventId()), "one outbox row");
        assertEquals(2, issued(e.orderId()).size(), "one invoices.issued record each for the event and the marker");
        assertEquals(2, Mailbox.await(email(e), 2, WAIT).size(), "one mail each for the event and the marker");
    }

    @Test
    void billingTransactionRolledBackAfterTheOutboxCallLeavesNoOutboxRowAndNoMail() throws Exception {
        Event rolledBack = order("mail-rollback", "30.00");
        Event committed = order("mail-after-rollback", "31.00");
        Invoices invoices = CDI.current().select(Invoices.class).get();
        UserTransaction tx = (UserTransaction) new InitialContext().lookup("java:comp/UserTransaction");
        tx.begin();
        invoices.create(OrderConfirmed.parse(rolledBack.json())); // invoice + outbox row
        assertEquals(0, db.number("SELECT count(*) FROM outbox WHERE payload LIKE ?", "%" + rolledBack.orderId() + "%"),
                "the outbox row is recorded, and written only just before the commit (one batch per transaction)");
        tx.rollback();
        tx.begin();
        invoices.create(OrderConfirmed.parse(committed.json()));
        tx.commit();
        assertEquals(1, Mailbox.await(email(committed), 1, WAIT).size(), "the committed invoice is mailed");
        assertEquals(0, db.number("SELECT count(*) FROM outbox WHERE payload LIKE ?", "%" + rolledBack.orderId() + "%"));
        assertEquals(0, db.number("SELECT count(*) FROM invoice WHERE order_id = ?", rolledBack.orderId()));
        assertEquals(0, Mailbox.of(email(rolledBack)).size(), "no mail");
        assertEquals(0, issued(rolledBack.orderId()).size(), "no invoices.issued record");
    }

    @Test
    void orderStatusConsumerWithoutInboxReplayedEndsInTheSameState() throws Exception {
        Event e = order("status", "42.50");
        send(List.of(e));
        db.await(WAIT, n -> n == 1, "SELECT count(*) FROM order_status WHERE order_id = ?", e.orderId());
        String state = "SELECT status || '|' || amount || '|' || currency FROM order_status WHERE order_id = ?";
        String first = db.text(state, e.orderId());
        assertEquals("CONFIRMED|42.50|EUR", first);
        send(List.of(e, e, e)); // replays
        // a marker on the same key: its row appears after the replays were applied
        Event marker = SampleEvents.event(UUID.randomUUID().toString(), e.orderId() + "-marker", "1.00", "EUR");
        try (KafkaProducer<String, String> producer = SampleEvents.producer(TestEnv.BOOTSTRAP)) {
            producer.send(new org.apache.kafka.clients.producer.ProducerRecord<>(TestEnv.ORDERS_TOPIC, e.orderId(),
                    marker.json())).get();
        }
        db.await(WAIT, n -> n == 1, "SELECT count(*) FROM order_status WHERE order_id = ?", marker.orderId());
        assertEquals(first, db.text(state, e.orderId()), "the same state after the replays");
        assertEquals(1, db.number("SELECT count(*) FROM order_status WHERE order_id = ?", e.orderId()));
        assertEquals(0, db.number("SELECT count(*) FROM inbox WHERE consumer = 'order-status'"), "no inbox rows");
    }

    @Test
    @RunAsClient
    void mailsAreRetriedWhileTheSmtpServerIsDownAndAllArriveOnceWhenItIsBack() throws Exception {
        Db jdbc = Db.overJdbc();
        String run = "mail-smtp-down-" + UUID.randomUUID();
        List<Event> events = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            events.add(SampleEvents.event(UUID.randomUUID().toString(), run + "-" + i, "10.0" + i, "EUR"));
        }
        smtpServer("stop");
        try {
            send(events);
            assertEquals(5, jdbc.await(WAIT, n -> n == 5, "SELECT count(*) FROM invoice WHERE order_id LIKE ?",
                    run + "-%"), "the invoices are created while the SMTP server is down");
            // the mailer has tried and failed at least once by now
            jdbc.await(WAIT, n -> n > 0, "SELECT count(*) FROM outbox WHERE payload LIKE ? AND delivered_at IS NOT NULL",
                    "%" + run + "-%");
            Thread.sleep(2000); // more time with the SMTP server down: a mail recorded meanwhile would show now
            assertEquals(0, jdbc.number("SELECT count(*) FROM invoice WHERE order_id LIKE ? AND mailed_at IS NOT NULL",
                    run + "-%"), "no mail recorded while the SMTP server is down");
            HttpResponse<String> unmailed = Api.call("GET", TestEnv.url("/billing/api/invoices/unmailed?olderThan=PT0S"
                    + "&limit=1000"), Api.READER);
            assertEquals(200, unmailed.statusCode(), unmailed.body());
            for (Event e : events) {
                assertTrue(unmailed.body().contains(e.orderId()), "unmailed lists " + e.orderId());
            }
            assertEquals(0, jdbc.number("SELECT count(*) FROM " + Db.DEAD_LETTERS + " WHERE consumer = 'mailer' "
                    + "AND payload LIKE ?", "%" + run + "-%"), "nothing given up");
        } finally {
            smtpServer("start");
        }
        assertEquals(5, jdbc.await(WAIT, n -> n == 5, "SELECT count(*) FROM invoice WHERE order_id LIKE ? "
                + "AND mailed_at IS NOT NULL", run + "-%"), "every mail recorded once the SMTP server is back");
        for (Event e : events) {
            List<Mailbox.Mail> mails = Mailbox.await(email(e), 1, WAIT);
            assertEquals(1, mails.size(), e.orderId() + ": one mail");
            assertEquals(jdbc.text("SELECT mail_message_id FROM invoice WHERE order_id = ?", e.orderId()),
                    mails.get(0).messageId());
        }
        HttpResponse<String> after = Api.call("GET", TestEnv.url("/billing/api/invoices/unmailed?olderThan=PT0S"
                + "&limit=1000"), Api.READER);
        assertTrue(events.stream().noneMatch(e -> after.body().contains(e.orderId())), after.body());
    }

    /** Runs bin/smtp-server (the tests run in the project directory, with its SMTP_* environment). */
    private static void smtpServer(String command) throws Exception {
        Process process = new ProcessBuilder(new File("bin/smtp-server").getAbsolutePath(), command)
                .redirectErrorStream(true).start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertEquals(0, process.waitFor(), "bin/smtp-server " + command + ": " + output);
    }
}
