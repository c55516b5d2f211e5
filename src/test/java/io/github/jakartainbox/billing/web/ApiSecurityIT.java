package io.github.jakartainbox.billing.web;

import io.github.jakartainbox.billing.SampleEvents;
import io.github.jakartainbox.billing.invoice.InvoiceIssued;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.jakartainbox.testing.Api;
import io.github.jakartainbox.testing.Db;
import io.github.jakartainbox.testing.Deployments;
import io.github.jakartainbox.testing.OrderRecords;
import io.github.jakartainbox.testing.TestEnv;
import io.github.jakartainbox.testing.TopicReader;
import java.math.BigDecimal;
import io.github.jakartainbox.testing.Waiting;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.container.test.api.RunAsClient;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.shrinkwrap.api.spec.WebArchive;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The REST API over HTTP, as its callers see it: no login 401, wrong password 401, a reader may read but not
 * change dead letters (403), an operator may re-drive and discard them.
 */
@ExtendWith(ArquillianExtension.class)
@RunAsClient
class ApiSecurityIT {

    private static final String API = TestEnv.url("/billing/api");
    private static final Duration WAIT = Duration.ofSeconds(90);
    private static final List<String> READS = List.of("/invoices/count", "/invoices?limit=1", "/inbox", "/inbox/purge");

    private final Db db = Db.overJdbc(System.getenv().getOrDefault("DB_NAME", "billing"));

    @Deployment
    static WebArchive deployment() {
        return Deployments.billingWithProbes();
    }

    /** A dead letter as the inbox writes it, with a valid order as payload, as if an earlier attempt had failed. */
    /** A dead letter as the inbox writes one: keyed by its payload's SHA-256 too (schema V9). */
    private long deadLetter(String consumer, String eventId, String payload) {
        return db.number("INSERT INTO inbox_dead_letter (consumer, event_id, payload_ref, error, attempts, payload_sha256) "
                + "VALUES (?, ?, decode(?, 'hex'), 'simulated failure', 3, sha256(convert_to(?, 'UTF8'))) RETURNING id",
                consumer, eventId, db.deadLetterPayload(payload), payload);
    }

    @Test
    void withoutALoginEveryCallIsRefusedWith401() throws Exception {
        for (String path : List.of("/invoices/count", "/inbox", "/dead-letters")) {
            HttpResponse<String> response = Api.call("GET", API + path, null);
            assertEquals(401, response.statusCode(), path);
            assertTrue(response.headers().firstValue("WWW-Authenticate").orElse("").startsWith("Basic"), path);
        }
        assertEquals(401, Api.call("DELETE", API + "/dead-letters/1", null).statusCode());
        assertEquals(401, Api.call("POST", API + "/dead-letters/1/redrive", null).statusCode());
        assertEquals(401, Api.call("GET", API + "/inbox", new Api.User(Api.READER.name(), Api.READER.password() + "x"))
                .statusCode(), "a wrong password");
        assertEquals(401, Api.call("GET", API + "/inbox", new Api.User("nobody", Api.READER.password())).statusCode(),
                "an unknown user");
    }

    @Test
    void aReaderMayReadButNeitherSeeNorChangeDeadLetters() throws Exception {
        for (String path : READS) {
            assertEquals(200, Api.call("GET", API + path, Api.READER).statusCode(), path);
            assertEquals(200, Api.call("GET", API + path, Api.OPERATOR).statusCode(), path);
        }
        HttpResponse<String> deadLetters = Api.call("GET", API + "/dead-letters", Api.READER);
        assertEquals(403, deadLetters.statusCode(), "dead-letter reasons quote payload data: operators only");
        assertTrue(deadLetters.body().contains("BILLING0211W") && deadLetters.body().contains("billing-operator"),
                "the servlet container's refusal names the role needed: " + deadLetters.body());
        HttpResponse<String> failing = Api.call("GET", API + "/outbox/failing", Api.READER);
        assertEquals(403, failing.statusCode());
        assertTrue(failing.body().contains("BILLING0211W") && failing.body().contains("user reader")
                && failing.body().contains("billing-operator")
                && failing.body().contains(" call /billing/api/outbox/failing;"), "@RolesAllowed's refusal says who and what: "
                + failing.body());
        assertEquals(200, Api.call("GET", API + "/dead-letters?limit=5", Api.OPERATOR).statusCode());
        HttpResponse<String> badLimit = Api.call("GET", API + "/invoices?limit=abc", Api.READER);
        assertEquals(400, badLimit.statusCode());
        assertTrue(badLimit.body().contains("limit must be a number from 1 to 1000"), badLimit.body());
        long id = deadLetter("billing", UUID.randomUUID().toString(), "{}");
        assertEquals(403, Api.call("DELETE", API + "/dead-letters/" + id, Api.READER).statusCode());
        assertEquals(403, Api.call("POST", API + "/dead-letters/" + id + "/redrive", Api.READER).statusCode());
        assertEquals("", db.text("SELECT coalesce(resolved_by, '') FROM inbox_dead_letter WHERE id = ?", id),
                "the refused calls changed nothing");
    }

    @Test
    void anOperatorDiscardsADeadLetterOnceKeepingTheRow() throws Exception {
        long id = deadLetter("billing", UUID.randomUUID().toString(), "{}");
        HttpResponse<String> discarded = Api.call("DELETE", API + "/dead-letters/" + id, Api.OPERATOR);
        assertEquals(200, discarded.statusCode(), discarded.body());
        assertEquals("operator", db.text("SELECT resolved_by FROM inbox_dead_letter WHERE id = ? AND discarded_at IS NOT NULL", id));
        HttpResponse<String> again = Api.call("DELETE", API + "/dead-letters/" + id, Api.OPERATOR);
        assertEquals(409, again.statusCode());
        assertTrue(again.body().contains("already discarded by operator"), again.body());
        HttpResponse<String> none = Api.call("DELETE", API + "/dead-letters/999999999", Api.OPERATOR);
        assertEquals(404, none.statusCode());
        assertTrue(none.body().contains("BILLING0254E: No dead letter 999999999"), "the 404 says what is missing: " + none.body());
    }

    /**
     * A producer that sent an event the contract refuses, then the corrected event under the same event id: the
     * corrected one is processed, and the re-drive of the first one's dead letter says when, and to discard it (not
     * that a corrected event needs a new event id, which the processed event contradicts).
     */
    @Test
    void aDeadLetterWhoseEventIdWasProcessedLaterIsRefusedAsDone() throws Exception {
        String eventId = UUID.randomUUID().toString();
        String orderId = "corrected-" + eventId;
        String refused = SampleEvents.event(eventId, orderId, "1e3", "EUR").json();
        OrderRecords.sendThenMarker(db, orderId, List.of(refused));
        long id = db.await(WAIT, n -> n > 0, "SELECT coalesce(max(id), 0) FROM inbox_dead_letter WHERE consumer = "
                + "'billing' AND event_id = ? AND redriven_at IS NULL AND discarded_at IS NULL", eventId);
        OrderRecords.sendThenMarker(db, orderId, List.of(SampleEvents.event(eventId, orderId, "1000.00", "EUR").json()));
        assertEquals(1, db.number("SELECT count(*) FROM invoice WHERE order_id = ?", orderId),
                "the corrected event under the same event id was invoiced");

        HttpResponse<String> redrive = Api.call("POST", API + "/dead-letters/" + id + "/redrive", Api.OPERATOR);
        assertEquals(409, redrive.statusCode(), redrive.body());
        assertTrue(redrive.body().contains("after this delivery first failed")
                && redrive.body().contains("discard it")
                && !redrive.body().contains("new event id"), redrive.body());
    }

    /**
     * A re-drive with {@code consumer=all} reaches every consumer of orders.confirmed: with billing's dead letter for
     * an event discarded, such a re-drive of analytics' dead letter for it is refused, so billing does not invoice
     * what its operator discarded. The default re-drive is aimed at
     * analytics alone (DeadLetterRedriveIT).
     */
    @Test
    void aReDriveThatWouldUndoAnotherConsumersDiscardIsRefused() throws Exception {
        String eventId = UUID.randomUUID().toString();
        String orderId = "undiscard-" + eventId;
        String payload = SampleEvents.event(eventId, orderId, "30.00", "EUR").json();
        long billing = deadLetter("billing", eventId, payload);
        long analytics = deadLetter("analytics", eventId, payload);
        assertEquals(200, Api.call("DELETE", API + "/dead-letters/" + billing, Api.OPERATOR).statusCode());

        HttpResponse<String> refused = Api.call("POST", API + "/dead-letters/" + analytics + "/redrive?consumer=all",
                Api.OPERATOR);
        assertEquals(409, refused.statusCode(), refused.body());
        assertTrue(refused.body().contains("consumer billing would process event ")
                && refused.body().contains("dead letter " + billing + " was discarded by operator"),
                refused.body());
        assertEquals(1, db.number("SELECT count(*) FROM inbox_dead_letter WHERE id = ? AND redriven_at IS NULL "
                + "AND discarded_at IS NULL", analytics), "the refused re-drive left analytics' row open");
        OrderRecords.sendThenMarker(db, orderId, List.of()); // whatever was sent would be consumed before the marker
        assertEquals(0, db.number("SELECT count(*) FROM invoice WHERE order_id = ?", orderId), "nothing invoiced");
        assertEquals(0, db.number("SELECT count(*) FROM inbox WHERE event_id = ?", eventId), "nor counted");
    }

    /** A body that is not UTF-8 is refused, not sent with U+FFFD in place of its bytes. */
    @Test
    void theJmsEndpointRefusesABodyThatIsNotUtf8() throws Exception {
        byte[] body = "{\"event_id\":\"x\",\"order_id\":\"o\u00e9\"}".getBytes(java.nio.charset.StandardCharsets.ISO_8859_1);
        HttpResponse<String> refused = Api.call("POST", API + "/jms/orders", Api.OPERATOR, "application/json", body);
        assertEquals(400, refused.statusCode(), refused.body());
        assertTrue(refused.body().contains("not UTF-8 text"), refused.body());
    }

    /**
     * Five operators re-drive one dead letter at the same moment: the row is claimed before the send, so one call
     * answers 200 and sends one record; the others answer 409 with an id (BILLING0240E: another re-drive is under
     * way; or BILLING0244E: already re-driven, for a call that came after the first one finished). The count looks
     * for the event id itself, not for the marker record sent after it, whose order id holds the event id.
     */
    @Test
    void fiveConcurrentReDrivesOfOneDeadLetterSendOneRecord() throws Exception {
        String eventId = UUID.randomUUID().toString();
        String orderId = "concurrent-redrive-" + eventId;
        long id = deadLetter("billing", eventId, SampleEvents.event(eventId, orderId, "12.00", "EUR").json());
        var pool = java.util.concurrent.Executors.newFixedThreadPool(5);
        List<HttpResponse<String>> answers = new java.util.ArrayList<>();
        try {
            var start = new java.util.concurrent.CountDownLatch(1);
            List<java.util.concurrent.Future<HttpResponse<String>>> calls = new java.util.ArrayList<>();
            for (int i = 0; i < 5; i++) {
                calls.add(pool.submit(() -> {
                    start.await();
                    return Api.call("POST", API + "/dead-letters/" + id + "/redrive", Api.OPERATOR);
                }));
            }
            start.countDown();
            for (var call : calls) {
                answers.add(call.get());
            }
        } finally {
            pool.shutdownNow();
        }
        List<String> seen = answers.stream().map(a -> a.statusCode() + " " + a.body()).toList();
        assertEquals(1, answers.stream().filter(a -> a.statusCode() == 200).count(), "one call re-drove it: " + seen);
        assertEquals(4, answers.stream().filter(a -> a.statusCode() == 409 && (a.body().contains("\"BILLING0240E: ")
                || a.body().contains("\"BILLING0244E: Dead letter " + id + " was already re-driven")
                || a.body().contains("\"BILLING0244E: Dead letter " + id + " was already resolved"))).count(),
                "the others were refused with an id: " + seen);
        // which of the two ids a call gets depends on timing (a late one may find the row resolved by billing's
        // processing of the record, before the re-drive marked it); the claim's own 409 is asserted in the next test
        assertEquals(1, db.await(WAIT, n -> n == 1, "SELECT count(*) FROM invoice WHERE order_id = ?", orderId));
        OrderRecords.sendThenMarker(db, orderId, List.of()); // anything sent is on the topic before the marker
        String field = "\"event_id\":\"" + eventId + "\"";
        assertEquals(1, TopicReader.read(TestEnv.ORDERS_TOPIC, r -> r.value() != null && r.value().contains(field))
                .size(), "one record of the event was sent");
        assertEquals(1, db.number("SELECT count(*) FROM inbox_dead_letter WHERE id = ? AND redriven_at IS NOT NULL "
                + "AND redrive_claimed_at IS NULL", id), "marked re-driven, its claim cleared");
    }

    /**
     * A claim left by a re-drive whose server stopped between the claim and the mark: while it is younger than the
     * lease (inbox.dead-letter.redrive-lease, PT1M) the row cannot be re-driven or discarded; once older, it can.
     */
    @Test
    void aClaimOlderThanTheLeaseNoLongerKeepsAReDriveOut() throws Exception {
        String eventId = UUID.randomUUID().toString();
        String orderId = "expired-claim-" + eventId;
        long id = deadLetter("billing", eventId, SampleEvents.event(eventId, orderId, "13.00", "EUR").json());
        db.number("UPDATE inbox_dead_letter SET redrive_claimed_at = now() - interval '5 seconds', "
                + "redrive_claimed_by = 'crashed-operator' WHERE id = ? RETURNING 1", id);
        HttpResponse<String> fresh = Api.call("POST", API + "/dead-letters/" + id + "/redrive", Api.OPERATOR);
        assertEquals(409, fresh.statusCode(), fresh.body());
        assertTrue(fresh.body().contains("BILLING0240E: Dead letter " + id + " is being re-driven by crashed-operator"),
                fresh.body());
        HttpResponse<String> discard = Api.call("DELETE", API + "/dead-letters/" + id, Api.OPERATOR);
        assertEquals(409, discard.statusCode(), "nor discarded while its record may be on its way: " + discard.body());
        assertTrue(discard.body().contains("BILLING0240E"), discard.body());
        assertEquals(0, db.number("SELECT count(*) FROM invoice WHERE order_id = ?", orderId), "nothing was sent");

        db.number("UPDATE inbox_dead_letter SET redrive_claimed_at = now() - interval '61 seconds' WHERE id = ? "
                + "RETURNING 1", id);
        HttpResponse<String> expired = Api.call("POST", API + "/dead-letters/" + id + "/redrive", Api.OPERATOR);
        assertEquals(200, expired.statusCode(), expired.body());
        assertEquals(1, db.await(WAIT, n -> n == 1, "SELECT count(*) FROM invoice WHERE order_id = ?", orderId),
                "the re-drive after the lease sent the event");
        assertEquals("operator", db.text("SELECT resolved_by FROM inbox_dead_letter WHERE id = ? AND redriven_at IS NOT "
                + "NULL AND redrive_claimed_at IS NULL", id));
    }

    @Test
    void anOperatorReDrivesADeadLetterAndTheConsumerProcessesIt() throws Exception {
        String eventId = UUID.randomUUID().toString();
        String orderId = "redrive-" + eventId;
        long id = deadLetter("billing", eventId, SampleEvents.event(eventId, orderId, "42.00", "EUR").json());
        HttpResponse<String> redriven = Api.call("POST", API + "/dead-letters/" + id + "/redrive", Api.OPERATOR);
        assertEquals(200, redriven.statusCode(), redriven.body());
        assertEquals(1, db.await(WAIT, n -> n == 1, "SELECT count(*) FROM invoice WHERE order_id = ?", orderId),
                "the re-driven event was consumed and invoiced");
        assertNotNull(db.text("SELECT redriven_at FROM inbox_dead_letter WHERE id = ?", id));
        assertEquals("operator", db.text("SELECT resolved_by FROM inbox_dead_letter WHERE id = ?", id));
        assertEquals(409, Api.call("POST", API + "/dead-letters/" + id + "/redrive", Api.OPERATOR).statusCode(),
                "a re-driven dead letter is no longer open");

        long noId = deadLetter("billing", null, "{\"order_id\":\"no-id\"}");
        HttpResponse<String> noIdRefused = Api.call("POST", API + "/dead-letters/" + noId + "/redrive", Api.OPERATOR);
        assertEquals(409, noIdRefused.statusCode());
        assertTrue(noIdRefused.body().contains("no usable event id"), noIdRefused.body());

        // a payload that reused a processed event id (INBOX0103E): the consumer would skip it again
        String taken = UUID.randomUUID().toString();
        db.number("INSERT INTO inbox (consumer, event_id, processed_at) VALUES ('billing', ?, now()) RETURNING 1", taken);
        long mismatch = deadLetter("billing", taken, SampleEvents.event(taken, "taken-" + taken, "1.00", "EUR").json());
        HttpResponse<String> skipped = Api.call("POST", API + "/dead-letters/" + mismatch + "/redrive", Api.OPERATOR);
        assertEquals(409, skipped.statusCode(), skipped.body());
        assertTrue(skipped.body().contains("already processed event " + taken), skipped.body());
        assertEquals(1, db.number("SELECT count(*) FROM inbox_dead_letter WHERE id = ? AND redriven_at IS NULL", mismatch),
                "the refused re-drive left the row open");

        assertTrue(skipped.body().contains("would be skipped as a duplicate; discard it"), skipped.body());

        long foreign = deadLetter("shipping", UUID.randomUUID().toString(), "{}");
        HttpResponse<String> refused = Api.call("POST", API + "/dead-letters/" + foreign + "/redrive", Api.OPERATOR);
        assertEquals(409, refused.statusCode());
        assertTrue(refused.body().contains("consumer shipping, which this service does not run"), refused.body());
    }

    /**
     * The mailer's dead letters are re-driven like the others: a 409 "belongs to consumer mailer, which this service
     * does not run" would leave their invoices unmailed.
     */
    @Test
    void aMailerDeadLetterIsReDrivenThroughTheOutboxAndTheInvoiceIsMailed() throws Exception {
        String orderId = "mail-redrive-" + UUID.randomUUID();
        long invoiceId = db.number("INSERT INTO invoice (order_id, event_id, customer_email, amount, currency, "
                + "created_at) VALUES (?, ?, 'redrive@example.com', 12.34, 'EUR', now()) RETURNING id", orderId,
                UUID.randomUUID().toString());
        UUID eventId = UUID.randomUUID();
        String payload = new InvoiceIssued(eventId, invoiceId, orderId, "redrive@example.com", new BigDecimal("12.34"),
                "EUR").json();
        long id = deadLetter("mailer", eventId.toString(), payload);

        HttpResponse<String> redriven = Api.call("POST", API + "/dead-letters/" + id + "/redrive", Api.OPERATOR);
        assertEquals(200, redriven.statusCode(), redriven.body());
        assertEquals(1, db.number("SELECT count(*) FROM outbox WHERE payload = ?", payload),
                "the payload was recorded in the outbox, with the row's mark");
        assertEquals(1, db.await(WAIT, n -> n == 1, "SELECT count(*) FROM invoice WHERE id = ? AND mailed_at IS NOT "
                + "NULL", invoiceId), "the relay sent it to invoices.issued and the mailer mailed the invoice");
        assertEquals(1, db.await(WAIT, n -> n == 1, "SELECT count(*) FROM inbox WHERE consumer = 'mailer' AND "
                + "event_id = ?", eventId.toString()), "under the dead letter's own event id");
        HttpResponse<String> again = Api.call("POST", API + "/dead-letters/" + id + "/redrive", Api.OPERATOR);
        assertEquals(409, again.statusCode(), again.body());
        assertEquals(1, db.number("SELECT count(*) FROM outbox WHERE payload = ?", payload), "sent once");
    }

    @Test
    void aDiscardedEventStaysDiscardedWhenItFailsAgainAndAReDrivenOneOpensAgain() throws Exception {
        String eventId = UUID.randomUUID().toString();
        String bad = SampleEvents.event(eventId, "still-bad-" + eventId, "5.00", "XYZ").json(); // not a currency
        long billing = deadLetter("billing", eventId, bad);
        long analytics = deadLetter("analytics", eventId, bad);
        // the re-drive (consumer=all) reaches both consumer groups; both fail again. Whether the failure lands before
        // or after the re-drive marks its row, the billing row ends open: 200 or 409 ("the row changed meanwhile")
        int status = Api.call("POST", API + "/dead-letters/" + billing + "/redrive?consumer=all", Api.OPERATOR)
                .statusCode();
        assertTrue(status == 200 || status == 409, "status " + status);
        assertEquals(4, db.await(WAIT, n -> n == 4, "SELECT attempts FROM inbox_dead_letter WHERE id = ?", billing),
                "billing failed again (3 simulated attempts + 1)");
        assertEquals(4, db.await(WAIT, n -> n == 4, "SELECT attempts FROM inbox_dead_letter WHERE id = ?", analytics));
        assertEquals(1, db.number("SELECT count(*) FROM inbox_dead_letter WHERE id = ? AND redriven_at IS NULL "
                + "AND discarded_at IS NULL", billing), "the re-driven event that failed again is open again");

        assertEquals(200, Api.call("DELETE", API + "/dead-letters/" + analytics, Api.OPERATOR).statusCode());
        OrderRecords.sendThenMarker(db, "still-bad-" + eventId, List.of(bad)); // the producer sends it again
        assertEquals(5, db.await(WAIT, n -> n == 5, "SELECT attempts FROM inbox_dead_letter WHERE id = ?", analytics),
                "analytics failed again");
        assertEquals("operator", db.text("SELECT resolved_by FROM inbox_dead_letter WHERE id = ? AND discarded_at IS NOT NULL",
                analytics), "the discarded one stays discarded");
    }

    /** One HTTP/1.1 request over a socket from the local address {@code from} (any of 127.0.0.0/8 on Linux), with
     *  its header lines as written; the whole answer as text. */
    static String raw(String from, String method, String path, String headers) throws Exception {
        try (Socket socket = new Socket()) {
            socket.bind(new InetSocketAddress(from, 0));
            socket.connect(new InetSocketAddress("127.0.0.1", TestEnv.HTTP_PORT), 10_000);
            socket.setSoTimeout(60_000);
            String request = method + " " + path + " HTTP/1.1\r\n" + headers + "Content-Length: 0\r\n"
                    + "Connection: close\r\n\r\n";
            socket.getOutputStream().write(request.getBytes(StandardCharsets.ISO_8859_1));
            socket.getOutputStream().flush();
            return new String(socket.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    private static String basic(Api.User user) {
        return "Authorization: Basic " + Base64.getEncoder().encodeToString((user.name() + ":" + user.password())
                .getBytes(StandardCharsets.UTF_8)) + "\r\n";
    }

    /**
     * DNS rebinding: a page of another name whose address is made to resolve to this server is its own origin, so
     * its Host and Origin agree; the cross-site rule passed it. A Host outside billing.api.allowed-hosts is refused,
     * a read or the page as well as a change; the local names pass.
     */
    @Test
    void aRequestAddressedToAnotherNameIsRefusedEvenFromThatNamesOwnPage() throws Exception {
        String rebound = "rebound.example.test:" + TestEnv.HTTP_PORT;
        String change = raw("127.0.0.1", "DELETE", "/billing/api/dead-letters/999999999999", "Host: " + rebound
                + "\r\nOrigin: http://" + rebound + "\r\n" + basic(Api.OPERATOR));
        assertTrue(change.startsWith("HTTP/1.1 403 ") && change.contains("BILLING0259E: Refused DELETE")
                && change.contains("Host " + rebound), change);
        String read = raw("127.0.0.1", "GET", "/billing/api/inbox", "Host: " + rebound + "\r\n" + basic(Api.READER));
        assertTrue(read.startsWith("HTTP/1.1 403 ") && read.contains("BILLING0259E"), read);
        String page = raw("127.0.0.1", "GET", "/billing/", "Host: " + rebound + "\r\n");
        assertTrue(page.startsWith("HTTP/1.1 403 ") && page.contains("BILLING0259E"), page);
        for (String host : List.of("localhost", "LocalHost", "127.0.0.1", "[::1]")) {
            String own = host + ":" + TestEnv.HTTP_PORT;
            String passed = raw("127.0.0.1", "DELETE", "/billing/api/dead-letters/999999999999", "Host: " + own
                    + "\r\nOrigin: http://" + own + "\r\n" + basic(Api.OPERATOR));
            assertTrue(passed.startsWith("HTTP/1.1 404 ") && passed.contains("BILLING0254E"), host + ": " + passed);
        }
    }

    /**
     * A request without Host answered 200: nothing named the host it addressed, so the rule above could not be applied.
     * An absolute-form target (RFC 9112 section 3.2.2) addresses its own authority, whatever Host says: another name's
     * passed. Both now refused; the service's own names in absolute form pass.
     */
    @Test
    void aRequestWithoutHostOrWhoseTargetNamesAnotherHostIsRefused() throws Exception {
        for (String path : List.of("/billing/api/inbox", "/billing/")) {
            String answer = raw("127.0.0.1", "GET", path, basic(Api.READER));
            assertTrue(answer.startsWith("HTTP/1.1 400 ") && answer.contains("BILLING0297E: Refused GET " + path
                    + ": the request has no Host header"), path + ": " + answer);
        }
        String host = "Host: localhost:" + TestEnv.HTTP_PORT + "\r\n";
        for (String target : List.of("http://evil.example/billing/api/inbox", "http://evil.example:" + TestEnv.HTTP_PORT
                + "/billing/api/inbox", "http://rebound.example.test/billing/")) {
            String answer = raw("127.0.0.1", "GET", target, host + basic(Api.READER));
            assertTrue(answer.startsWith("HTTP/1.1 403 ") && answer.contains("BILLING0298E")
                    && answer.contains("addresses host " + java.net.URI.create(target).getHost()), target + ": " + answer);
        }
        String own = raw("127.0.0.1", "GET", "http://localhost:" + TestEnv.HTTP_PORT + "/billing/api/inbox", host
                + basic(Api.READER));
        assertTrue(own.startsWith("HTTP/1.1 200 "), own);
    }

    /**
     * A Content-Type sent twice (a singleton field, RFC 9110 section 8.3) was read by its first value and the order
     * accepted (202), though a proxy may read the last: it is refused, naming both.
     */
    @Test
    void aContentTypeSentTwiceIsRefused() throws Exception {
        String host = "Host: localhost:" + TestEnv.HTTP_PORT + "\r\n";
        String answer = raw("127.0.0.1", "POST", "/billing/api/jms/orders", host + basic(Api.OPERATOR)
                + "Content-Type: application/json\r\nContent-Type: text/plain\r\n");
        assertTrue(answer.startsWith("HTTP/1.1 415 ") && answer.contains("BILLING0232E")
                && answer.contains("application/json and text/plain, twice"), answer);
    }

    /**
     * {@code Host: localhost<TAB>} was refused with BILLING0298E, which speaks of the request target: the guard trimmed
     * the Host header while the runtime's server name kept the tab. A Host that is no host[:port] is now the Host
     * refusal's case (BILLING0259E), naming the header as sent; none of them passes or is taken for the target's.
     */
    @Test
    void aMalformedHostHeaderIsRefusedAsTheHost() throws Exception {
        String own = "localhost:" + TestEnv.HTTP_PORT;
        for (String host : List.of(own + "\t", "localhost\t", "127.0.0.1:" + TestEnv.HTTP_PORT + "\t")) {
            String answer = raw("127.0.0.1", "GET", "/billing/api/inbox", "Host: " + host + "\r\n" + basic(Api.READER));
            assertTrue(answer.startsWith("HTTP/1.1 403 ") && answer.contains("BILLING0259E: Refused GET /billing/api/inbox: Host "
                    + host.replace("\t", "\\\\u0009")), host + ": " + answer);
        }
        for (String host : List.of(own + "\u000B", "local\u000Bhost:" + TestEnv.HTTP_PORT, own + " \t", own + "\u00A0",
                "local host:" + TestEnv.HTTP_PORT)) {
            // the runtime may refuse some of these itself; whatever reaches the guard is the Host's refusal
            String answer = raw("127.0.0.1", "GET", "/billing/api/inbox", "Host: " + host + "\r\n" + basic(Api.READER));
            assertTrue(!answer.startsWith("HTTP/1.1 2") && !answer.contains("BILLING0298E")
                    && (answer.contains("BILLING0259E") || !answer.contains("BILLING")), host + ": " + answer);
        }
    }

    /** With two Origin headers only the first was checked: a foreign origin second passed. Now refused, either way. */
    @Test
    void aRequestWithTwoOriginHeadersIsRefused() throws Exception {
        String own = "http://localhost:" + TestEnv.HTTP_PORT;
        String host = "Host: localhost:" + TestEnv.HTTP_PORT + "\r\n";
        for (String origins : List.of("Origin: " + own + "\r\nOrigin: https://evil.example.test\r\n",
                "Origin: https://evil.example.test\r\nOrigin: " + own + "\r\n", "Origin: " + own + "\r\nOrigin: " + own
                        + "\r\n")) {
            String answer = raw("127.0.0.1", "DELETE", "/billing/api/dead-letters/999999999999", host + origins
                    + basic(Api.OPERATOR));
            assertTrue(answer.startsWith("HTTP/1.1 400 ") && answer.contains("BILLING0260E")
                    && answer.contains("header Origin appears 2 times"), origins + ": " + answer);
        }
        String fetchSite = raw("127.0.0.1", "GET", "/billing/api/inbox", host + "Sec-Fetch-Site: same-origin\r\n"
                + "Sec-Fetch-Site: cross-site\r\n" + basic(Api.READER));
        assertTrue(fetchSite.startsWith("HTTP/1.1 400 ") && fetchSite.contains("header Sec-Fetch-Site appears 2 times"),
                fetchSite);
    }

    /**
     * A malformed Authorization header was an unauthenticated 500 with an empty text/html body, an FFDC incident and
     * about 4.5 KB of log each: after the sign-in mechanism answered, Liberty's WebProviderAuthenticatorProxy parsed
     * any header starting with "Basic " again for its audit record and failed on bad base64 (NullPointerException) or
     * a value without a colon (StringIndexOutOfBoundsException), on the API and the page alike, and on a valid login
     * sent with extra spaces. Every such header, in any scheme, now answers 401 with the Basic challenge and
     * BILLING0302E, counts as a failed sign-in of its address, and is logged at most once a minute. Each case comes
     * from an address of its own (127.0.0.20 on), so that the count of one does not lock the next.
     */
    @Test
    void aMalformedAuthorizationHeaderIsRefusedWith401AndAMessageId() throws Exception {
        String host = "Host: localhost:" + TestEnv.HTTP_PORT + "\r\n";
        String valid = Base64.getEncoder().encodeToString((Api.READER.name() + ":" + Api.READER.password())
                .getBytes(StandardCharsets.UTF_8));
        String logged = serverLog();
        List<String[]> cases = List.of(
                new String[] {"/billing/api/inbox", "Authorization: Basic !!!!"},
                new String[] {"/billing/api/inbox", "Authorization: Basic bm9jb2xvbg=="}, // "nocolon"
                new String[] {"/billing/api/inbox", "Authorization: Basic"},
                new String[] {"/billing/api/inbox", "Authorization: Basic "},
                new String[] {"/billing/api/inbox", "Authorization:"},
                new String[] {"/billing/api/inbox", "Authorization:  Basic   " + valid + "  "},
                new String[] {"/billing/api/inbox", "Authorization: Basic\t" + valid},
                new String[] {"/billing/api/inbox", "Authorization: Basic " + valid + " " + valid},
                new String[] {"/billing/api/inbox", "Authorization: Basic " + valid.substring(1)},
                new String[] {"/billing/api/inbox", "Authorization: basic bm9jb2xvbg=="},
                new String[] {"/billing/api/inbox", "Authorization: Bearer " + valid},
                new String[] {"/billing/api/inbox", "Authorization: Basic //46eA=="}, // FF FE ':' 'x', not UTF-8
                new String[] {"/billing/api/inbox", "Authorization: Basic \u00e9\u00e9\u00e9\u00e9"},
                new String[] {"/billing/api/inbox", "Authorization: Basic " + "QUFB".repeat(2_000)},
                new String[] {"/billing/api/inbox", "Authorization: Basic OnBhc3N3b3Jk"}, // ":password", no user
                new String[] {"/billing/", "Authorization: Basic !!!!"},
                new String[] {"/billing/", "Authorization: Basic bm9jb2xvbg=="},
                new String[] {"/billing/", "Authorization: Basic"},
                new String[] {"/billing/", "Authorization:  Basic   " + valid + "  "});
        List<String> wrong = new java.util.ArrayList<>();
        for (int i = 0; i < cases.size(); i++) {
            String path = cases.get(i)[0];
            String header = cases.get(i)[1];
            String answer = raw("127.0.0." + (20 + i), "GET", path, host + header + "\r\n");
            if (!answer.startsWith("HTTP/1.1 401 ") || !answer.contains("\r\nWWW-Authenticate: Basic realm=\"billing\"")
                    || !answer.contains("application/json") || !answer.contains("{\"error\":\"BILLING0302E: ")) {
                wrong.add(path + " " + header.substring(0, Math.min(header.length(), 80)) + ": "
                        + answer.substring(0, Math.min(answer.length(), 600)));
            }
        }
        assertTrue(wrong.isEmpty(), wrong.size() + " of " + cases.size() + " not refused as malformed:\n"
                + String.join("\n\n", wrong));
        // five from one address lock it, as five wrong passwords do
        for (int i = 0; i < 5; i++) {
            assertTrue(raw("127.0.0.6", "GET", "/billing/api/inbox", host + "Authorization: Basic !!!!\r\n")
                    .startsWith("HTTP/1.1 401 "), "malformed " + (i + 1));
        }
        String locked = raw("127.0.0.6", "GET", "/billing/api/inbox", host + basic(Api.READER));
        assertTrue(locked.startsWith("HTTP/1.1 429 ") && locked.contains("BILLING0263E"), locked);
        // no header: the challenge, its body the container's text as before (no 401 error page runs any more)
        String none = raw("127.0.0.1", "GET", "/billing/api/inbox", host);
        assertTrue(none.startsWith("HTTP/1.1 401 ") && none.contains("\r\nWWW-Authenticate: Basic realm=\"billing\"")
                && none.contains("{\"error\":\"BILLING0253E: GET /billing/api/inbox answered 401 (Unauthorized).\"}"),
                none);
        // the well-formed login still passes, the scheme in any case (RFC 9110 section 11.1)
        assertTrue(raw("127.0.0.1", "GET", "/billing/api/inbox", host + "Authorization: basic " + valid + "\r\n")
                .startsWith("HTTP/1.1 200 "));
        String log = serverLog().substring(logged.length());
        assertTrue(!log.contains("SRVE0315E") && !log.contains("StringIndexOutOfBoundsException")
                && !log.contains("FFDC1015I"), log.substring(0, Math.min(log.length(), 2_000)));
        long refusalsLogged = log.lines().filter(line -> line.contains("BILLING0302E")).count();
        assertTrue(refusalsLogged >= 1 && refusalsLogged <= 2, "logged at most once a minute: " + refusalsLogged);
    }

    /** The Arquillian server's log, as the client sees it (src/test/liberty, server inbox-it-HTTP_PORT). */
    private static String serverLog() throws Exception {
        return Files.readString(Path.of("target", "liberty", "wlp", "usr", "servers", "inbox-it-" + TestEnv.HTTP_PORT,
                "logs", "messages.log"), StandardCharsets.UTF_8);
    }

    /**
     * 100 wrong passwords in 2 s were 100 quick 401s, with nothing to alert on. Five failures of one user name, or from
     * one client address, within the lockout (the test server's PT3S) lock it: its sign-ins answer 429 with
     * Retry-After, even with the right password, and the lock is logged once with BILLING0262W; after the lockout the
     * right password works again. The test signs in from addresses of its own (127.0.0.3 to .5), so that the lock of
     * an address does not reach the other tests' 127.0.0.1.
     */
    @Test
    void repeatedFailedSignInsLockTheUserAndTheAddressForAWhile() throws Exception {
        String host = "Host: localhost:" + TestEnv.HTTP_PORT + "\r\n";
        String guesser = "127.0.0.3";
        for (int i = 0; i < 5; i++) {
            String answer = raw(guesser, "GET", "/billing/api/inbox", host
                    + basic(new Api.User("guess-" + i + "-" + UUID.randomUUID(), "wrong")));
            assertTrue(answer.startsWith("HTTP/1.1 401 "), "failure " + (i + 1) + ": " + answer);
        }
        String locked = raw(guesser, "GET", "/billing/api/inbox", host + basic(Api.OPERATOR));
        // the reason phrase RFC 6585 section 4 names: Liberty's status table lacks 429 and sent "429 Undefined"
        assertTrue(locked.startsWith("HTTP/1.1 429 Too Many Requests\r\n") && locked.contains("BILLING0263E")
                && locked.toLowerCase(java.util.Locale.ROOT).contains("\r\nretry-after: "), "the address is locked, "
                + "whoever signs in from it, the right password too: " + locked);
        assertTrue(raw("127.0.0.4", "GET", "/billing/api/inbox", host + basic(Api.OPERATOR)).startsWith("HTTP/1.1 200 "),
                "the same user from another address");

        for (int i = 0; i < 5; i++) {
            String answer = raw("127.0.0.4", "GET", "/billing/api/inbox", host
                    + basic(new Api.User(Api.READER.name(), "wrong-" + i)));
            assertTrue(answer.startsWith("HTTP/1.1 401 "), "failure " + (i + 1) + ": " + answer);
        }
        String user = raw("127.0.0.5", "GET", "/billing/api/inbox", host + basic(Api.READER));
        assertTrue(user.startsWith("HTTP/1.1 429 ") && user.contains("BILLING0263E"), "the user is locked wherever it "
                + "signs in from: " + user);
        Waiting.await("the locks logged").atMost(Duration.ofSeconds(30)).until(() -> serverLog().contains(
                "BILLING0262W: Sign-ins of address " + guesser + " are refused until") && serverLog().contains(
                "BILLING0262W: Sign-ins of user " + Api.READER.name() + " are refused until"));
        Waiting.await("the reader's lock to end").atMost(Duration.ofSeconds(30)).until(() -> raw("127.0.0.5", "GET",
                "/billing/api/inbox", host + basic(Api.READER)).startsWith("HTTP/1.1 200 "));
    }
}
