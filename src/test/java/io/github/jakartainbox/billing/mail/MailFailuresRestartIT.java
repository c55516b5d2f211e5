package io.github.jakartainbox.billing.mail;

import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.jakartainbox.testing.Api;
import io.github.jakartainbox.testing.BillingServer;
import io.github.jakartainbox.testing.Db;
import io.github.jakartainbox.testing.Mailbox;
import io.github.jakartainbox.testing.SmtpFaultProxy.Fault;
import io.github.jakartainbox.testing.SmtpFaultProxy.Rule;
import io.github.jakartainbox.testing.SmtpFaultProxy;
import io.github.jakartainbox.testing.TestEnv;
import io.github.jakartainbox.testing.UuidV7;
import io.github.jakartainbox.testing.Waiting;
import jakarta.json.Json;
import jakarta.json.JsonObject;
import jakarta.json.JsonReader;
import java.io.StringReader;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.function.Predicate;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The deployed billing service (server "billing", the packaged WAR) mails its invoices through {@link SmtpFaultProxy}
 * (started in this JVM, in front of the tests' GreenMail on {@code SMTP_PORT}), which refuses, defers, drops or
 * stalls chosen recipients. Per case it checks the copies of the mail's Message-ID at GreenMail, the mailer's dead
 * letters and the invoice's {@code mail_status}. One mailer thread ({@code concurrency} 1), so that a refused
 * customer would hold up the ones behind it if the mailer retried it. Its own database ({@code <DB_NAME>_mailfailures}),
 * topics and groups; short retry delays and a final-reply timeout of {@value #FINAL_REPLY_SECONDS} s.
 */
class MailFailuresRestartIT {

    private static final String DATABASE = System.getenv().getOrDefault("DB_NAME", "billing") + "_mailfailures";
    private static final int UPSTREAM = Integer.parseInt(System.getenv().getOrDefault("SMTP_PORT", "3025"));
    private static final int FINAL_REPLY_SECONDS = 4;
    private static final Duration WAIT = Duration.ofSeconds(60);

    private Map<String, String> serverEnvironment = Map.of();
    private SmtpFaultProxy proxy;

    @AfterEach
    void stop() throws Exception {
        BillingServer.run("stop", serverEnvironment);
        if (proxy != null) {
            proxy.close();
        }
    }

    @Test
    void eachKindOfSmtpFailureEndsAsItShould() throws Exception {
        Db.recreate(DATABASE);
        Db db = Db.overJdbc(DATABASE);
        proxy = SmtpFaultProxy.start("127.0.0.1", UPSTREAM);
        String run = UUID.randomUUID().toString().substring(0, 8);
        serverEnvironment = environment(run, proxy.port());
        Rule refused = proxy.rule("refused-", Fault.REJECT_550);
        Rule deferred = proxy.rule("later-", Fault.defer451(2));
        Rule cut = proxy.rule("cut-", Fault.DROP_IN_DATA.times(1));
        Rule slow = proxy.rule("slow-", Fault.holdFinalReply(Duration.ofSeconds(1)));
        Rule stalled = proxy.rule("stalled-", Fault.holdFinalReply(Duration.ofSeconds(FINAL_REPLY_SECONDS * 2)));
        Rule lost = proxy.rule("lost-", Fault.DROP_AFTER_DATA);
        BillingServer.startAndAwaitReady(serverEnvironment, Duration.ofMinutes(3));

        // permanent: two ordinary customers, the refused one, five ordinary ones right behind it on the one mailer
        // thread; sent together, they reach the mailer in one group, whose rollback at the refused mail must send
        // neither of the two before it again nor the refused one
        String refusedTo = address("refused", run, 1);
        List<String> before = List.of(address("early", run, 1), address("early", run, 2));
        List<String> ordinary = new ArrayList<>();
        for (int i = 1; i <= 5; i++) {
            ordinary.add(address("ok", run, i));
        }
        List<String> first = new ArrayList<>(before);
        first.add(refusedTo);
        first.addAll(ordinary);
        send(run, first);
        for (String to : ordinary) {
            assertEquals(1, Mailbox.await(to, 1, WAIT).size(), to + " mailed within " + WAIT.toSeconds()
                    + " s of the refused customer's order");
        }
        String refusedError = awaitDeadLetter(db, refusedTo);
        assertAll("refused with 550 (REJECT_550)",
                () -> assertTrue(refusedError.startsWith("BILLING0130E") && refusedError.contains("550"), refusedError),
                () -> assertEquals(1, db.number("SELECT attempts FROM " + Db.DEAD_LETTERS + " WHERE consumer = 'mailer' "
                        + "AND payload LIKE ?", "%" + refusedTo + "%"), "one attempt"),
                () -> assertEquals(1, refused.events(), "one RCPT, no retry"),
                () -> assertEquals(0, Mailbox.of(refusedTo).size(), "nothing at GreenMail"),
                () -> assertStatus(db, refusedTo, "failed", false),
                () -> assertUnmailedListed(refusedTo, "failed", "550"));
        for (String to : before) {
            assertOneCopy(db, to, true);
            assertStatus(db, to, "sent", true);
        }
        for (String to : ordinary) {
            assertOneCopy(db, to, true);
            assertStatus(db, to, "sent", true);
        }

        // transient, slow and uncertain, on the same thread one after the other
        String laterTo = address("later", run, 1);
        String cutTo = address("cut", run, 1);
        String slowTo = address("slow", run, 1);
        String stalledTo = address("stalled", run, 1);
        String lostTo = address("lost", run, 1);
        send(run, List.of(laterTo, cutTo, slowTo, stalledTo, lostTo));
        for (String to : List.of(laterTo, slowTo)) {
            Mailbox.await(to, 1, WAIT);
            // recorded after the final reply, which the proxy holds for the slow one
            poll(() -> db.text("SELECT mail_status FROM invoice WHERE customer_email = ?", to), s -> s != null, WAIT);
        }
        String cutError = awaitDeadLetter(db, cutTo);
        String stalledError = awaitDeadLetter(db, stalledTo);
        String lostError = awaitDeadLetter(db, lostTo);
        System.out.printf("mail failures: deferred %d of %d transactions, cut %d, slow held %d, stalled held %d of %d,"
                        + " lost %d of %d; uncertain reasons:%n  %s%n  %s%n  %s%n", deferred.events(),
                deferred.sessions(), cut.events(), slow.events(), stalled.events(), stalled.sessions(), lost.events(),
                lost.sessions(), cutError.lines().findFirst().orElse(""), stalledError.lines().findFirst().orElse(""),
                lostError.lines().findFirst().orElse(""));
        assertAll("transient, slow and uncertain",
                () -> assertAll("451 twice to RCPT (DEFER_451): retried, mailed once",
                        () -> assertEquals(2, deferred.events()),
                        () -> assertOneCopy(db, laterTo, true),
                        () -> assertStatus(db, laterTo, "sent", true),
                        () -> assertNoDeadLetter(db, laterTo)),
                // the client had sent its whole mail and the end of DATA when the connection was reset: it cannot know
                // that the server never got the end, so this is uncertain too, and in fact nothing was delivered
                () -> assertAll("reset at the end of DATA, the body not all forwarded (DROP_IN_DATA): uncertain",
                        () -> assertEquals(1, cut.events()),
                        () -> assertEquals(1, cut.sessions(), "not sent again"),
                        () -> assertEquals(0, Mailbox.of(cutTo).size(), "nothing at GreenMail"),
                        () -> assertStatus(db, cutTo, "uncertain", false),
                        () -> assertTrue(cutError.startsWith("BILLING0132E"), cutError),
                        () -> assertUnmailedListed(cutTo, "uncertain", "BILLING0132E")),
                () -> assertAll("a final reply after 1 s (HOLD_FINAL_REPLY within the timeout): sent once",
                        () -> assertEquals(1, slow.events()),
                        () -> assertOneCopy(db, slowTo, true),
                        () -> assertStatus(db, slowTo, "sent", true),
                        () -> assertNoDeadLetter(db, slowTo)),
                () -> assertAll("a final reply after " + 2 * FINAL_REPLY_SECONDS
                                + " s (HOLD_FINAL_REPLY past the timeout): uncertain, delivered once",
                        () -> assertEquals(1, stalled.sessions(), "not sent again"),
                        () -> assertOneCopy(db, stalledTo, false),
                        () -> assertStatus(db, stalledTo, "uncertain", false),
                        () -> assertTrue(stalledError.startsWith("BILLING0132E"), stalledError),
                        () -> assertUnmailedListed(stalledTo, "uncertain", "BILLING0132E")),
                () -> assertAll("closed after the end of DATA (DROP_AFTER_DATA): uncertain, delivered once",
                        () -> assertEquals(1, lost.sessions(), "not sent again"),
                        () -> assertOneCopy(db, lostTo, false),
                        () -> assertStatus(db, lostTo, "uncertain", false),
                        () -> assertTrue(lostError.startsWith("BILLING0132E"), lostError),
                        () -> assertUnmailedListed(lostTo, "uncertain", "BILLING0132E")));

        // transient: the server away (kept connections dropped, 421 to new ones) for a few seconds
        String downTo = address("down", run, 1);
        proxy.upstreamDown(true);
        proxy.dropConnections();
        int refusedBefore = proxy.refusedConnections();
        send(run, List.of(downTo));
        poll(proxy::refusedConnections, n -> n >= refusedBefore + 2, WAIT);
        proxy.upstreamDown(false);
        Mailbox.await(downTo, 1, WAIT);
        System.out.printf("mail failures: %d connections answered 421 while the server was away%n",
                proxy.refusedConnections() - refusedBefore);
        assertAll("421 while the server is away: waited out, mailed once",
                () -> assertTrue(proxy.refusedConnections() - refusedBefore >= 2, "it tried while away"),
                () -> assertOneCopy(db, downTo, true),
                () -> assertStatus(db, downTo, "sent", true),
                () -> assertNoDeadLetter(db, downTo));
        assertEquals(4, db.number("SELECT count(*) FROM " + Db.DEAD_LETTERS + " WHERE consumer = 'mailer' AND payload LIKE ?",
                "%" + run + "%"), "four dead letters in all: the refused mail and the three uncertain ones");
    }

    private static String address(String prefix, String run, int n) {
        return prefix + "-" + run + "-" + n + "@example.net";
    }

    /** Sends one order per address, keyed and in order, to the service's orders topic. */
    private void send(String run, List<String> addresses) throws Exception {
        String topic = serverEnvironment.get("MP_MESSAGING_INCOMING_ORDERS_BILLING_TOPIC");
        try (KafkaProducer<String, String> producer = io.github.jakartainbox.billing.SampleEvents
                .producer(TestEnv.BOOTSTRAP)) {
            for (String to : addresses) {
                String orderId = "mailfail-" + run + "-" + to.substring(0, to.indexOf('@'));
                String json = "{\"event_id\":\"" + UuidV7.at(Instant.now()) + "\",\"order_id\":\"" + orderId
                        + "\",\"customer_email\":\"" + to + "\",\"amount\":\"42.00\",\"currency\":\"EUR\"}";
                producer.send(new ProducerRecord<>(topic, orderId, json)).get();
            }
        }
    }

    /**
     * One mail at GreenMail for the address, and its Message-ID is the one of the invoice's {@code invoices.issued}
     * event: the recorded one when sent, else the dead letter's event id.
     */
    private static void assertOneCopy(Db db, String to, boolean sent) throws Exception {
        List<Mailbox.Mail> mails = Mailbox.await(to, 1, WAIT);
        // the server has the mail before the mailer's transaction records it (a held final reply delays that)
        String expected = sent
                ? poll(() -> db.text("SELECT mail_message_id FROM invoice WHERE customer_email = ?", to),
                        id -> id != null, WAIT)
                : "<" + db.text("SELECT d.event_id FROM " + Db.DEAD_LETTERS_D + " WHERE d.consumer = 'mailer' AND payload "
                + "LIKE ?", "%" + to + "%") + "@invoices.billing.jakarta-inbox>";
        assertEquals(1, mails.size(), to + ": mails at GreenMail " + mails.stream().map(Mailbox.Mail::messageId).toList());
        assertEquals(expected, mails.get(0).messageId(), to + ": the Message-ID of its invoices.issued event");
    }

    private static void assertStatus(Db db, String to, String status, boolean mailed) {
        assertEquals(status, db.text("SELECT mail_status FROM invoice WHERE customer_email = ?", to), to);
        String mailedAt = db.text("SELECT mailed_at::text FROM invoice WHERE customer_email = ?", to);
        if (mailed) {
            assertNotNull(mailedAt, to + ": mailed_at set");
        } else {
            assertNull(mailedAt, to + ": mailed_at stays null");
        }
    }

    private static void assertNoDeadLetter(Db db, String to) {
        assertEquals(0, db.number("SELECT count(*) FROM " + Db.DEAD_LETTERS + " WHERE payload LIKE ?", "%" + to + "%"), to);
    }

    /** The compensation query lists the invoice with that status and a reason containing {@code reason}. */
    private static void assertUnmailedListed(String to, String status, String reason) throws Exception {
        HttpResponse<String> response = Api.call("GET", TestEnv.url("/billing/api/invoices/unmailed?olderThan=PT0S"),
                Api.READER);
        assertEquals(200, response.statusCode(), response.body());
        try (JsonReader reader = Json.createReader(new StringReader(response.body()))) {
            JsonObject invoice = reader.readObject().getJsonArray("invoices").getValuesAs(JsonObject.class).stream()
                    .filter(i -> to.equals(i.getString("customerEmail", null))).findFirst()
                    .orElseThrow(() -> new AssertionError(to + " not listed as unmailed: " + response.body()));
            assertEquals(status, invoice.getString("mailStatus", null), invoice.toString());
            assertTrue(invoice.getString("mailError", "").contains(reason), invoice.toString());
        }
    }

    /** @return the error of the mailer's dead letter whose payload names the address, once there is one */
    private static String awaitDeadLetter(Db db, String to) throws Exception {
        String sql = "SELECT error FROM " + Db.DEAD_LETTERS + " WHERE consumer = 'mailer' AND payload LIKE ?";
        String error = poll(() -> db.text(sql, "%" + to + "%"), e -> e != null, WAIT);
        assertNotNull(error, "a dead letter for " + to + " within " + WAIT.toSeconds() + " s");
        return error;
    }

    /** @return the value once {@code done} holds, or the last one read when {@code timeout} has passed */
    private static <T> T poll(Callable<T> read, Predicate<T> done, Duration timeout) {
        return Waiting.lastValue(Waiting.await().atMost(timeout).pollInterval(Duration.ofMillis(200)), read, done);
    }

    /**
     * Topics and groups of this run, the database, the proxy as the SMTP server, one mailer thread, short retry
     * delays and a final-reply timeout of a few seconds.
     */
    private static Map<String, String> environment(String run, int smtpPort) {
        Map<String, String> env = BillingServer.channels("mailfail-" + run);
        env.put("DB_NAME", DATABASE);
        env.put("MP_MESSAGING_INCOMING_INVOICES_MAILER_CONCURRENCY", "1");
        env.put("SMTP_HOST", "127.0.0.1");
        env.put("SMTP_PORT", Integer.toString(smtpPort));
        env.put("BILLING_MAIL_CONNECTION_TIMEOUT", "PT5S");
        env.put("BILLING_MAIL_READ_TIMEOUT", "PT10S");
        env.put("BILLING_MAIL_FINAL_REPLY_TIMEOUT", "PT" + FINAL_REPLY_SECONDS + "S");
        env.put("INBOX_CONSUMER_MAILER_RETRY_DELAY", "PT0.2S");
        env.put("INBOX_CONSUMER_MAILER_RETRY_MAX_DELAY", "PT1S");
        return Map.copyOf(env);
    }


}
