package io.github.jakartainbox.inbox.deadletter;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.jakartainbox.billing.SampleEvents;
import io.github.jakartainbox.testing.Api;
import io.github.jakartainbox.testing.Db;
import io.github.jakartainbox.testing.Deployments;
import io.github.jakartainbox.testing.OrderRecords;
import io.github.jakartainbox.testing.TestEnv;
import jakarta.json.Json;
import jakarta.json.JsonArray;
import jakarta.json.JsonObject;
import jakarta.json.JsonReader;
import java.io.StringReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.util.Base64;
import java.util.List;
import java.util.UUID;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.container.test.api.RunAsClient;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.shrinkwrap.api.spec.WebArchive;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Re-drives aimed at one consumer of orders.confirmed, and each dead letter's history, over HTTP against the running
 * service with its two Kafka consumers of the topic (billing, analytics). Until the re-drive carried its aim, every
 * consumer that had not processed the event processed the re-sent record: re-driving analytics' dead letter made
 * billing invoice an event billing never failed on.
 */
@ExtendWith(ArquillianExtension.class)
@RunAsClient
class DeadLetterRedriveIT {

    private static final String API = TestEnv.url("/billing/api");
    private static final Duration WAIT = Duration.ofSeconds(90);
    private static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    private final Db db = Db.overJdbc(System.getenv().getOrDefault("DB_NAME", "billing"));

    @Deployment
    static WebArchive deployment() {
        return Deployments.billingWithProbes();
    }

    /**
     * One HTTP/1.1 call: the shared client's first request on a new connection asks for an h2c upgrade, and Liberty
     * held a POST or DELETE without a body for 30 s there (then answered GOAWAY), which no user of the API meets.
     */
    private static HttpResponse<String> call(String method, String url, Api.User user) throws Exception {
        HttpRequest request = HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(120))
                .method(method, HttpRequest.BodyPublishers.noBody())
                .header("Authorization", "Basic " + Base64.getEncoder().encodeToString(
                        (user.name() + ":" + user.password()).getBytes(StandardCharsets.UTF_8))).build();
        return HTTP.send(request, HttpResponse.BodyHandlers.ofString());
    }

    /** A dead letter as the inbox writes one (schema V9: keyed by its payload's SHA-256 too). */
    private long deadLetter(String consumer, String eventId, String payload) {
        return db.number("INSERT INTO inbox_dead_letter (consumer, event_id, payload_ref, error, attempts, payload_sha256) "
                + "VALUES (?, ?, decode(?, 'hex'), 'simulated failure', 3, sha256(convert_to(?, 'UTF8'))) RETURNING id",
                consumer, eventId, db.deadLetterPayload(payload), payload);
    }

    /** Gives a dead letter the re-drive claim a stopped server left two hours ago, far older than the lease. */
    private void claimedLongAgo(long id) {
        db.number("UPDATE inbox_dead_letter SET redrive_claimed_at = now() - interval '2 hours', "
                + "redrive_claimed_by = 'stopped-server' WHERE id = ? RETURNING id", id);
    }

    /** Marks a dead letter re-driven to {@code destination} as InboxDeadLetters.markRedriven records it. */
    private void markRedriven(long id, String consumer, String destination) {
        db.number("UPDATE inbox_dead_letter SET redriven_at = now(), resolved_by = 'test' WHERE id = ? RETURNING id",
                id);
        db.number("INSERT INTO inbox_dead_letter_history (dead_letter_id, kind, actor, target_consumer, destination) "
                + "VALUES (?, 'redriven', 'test', ?, ?) RETURNING id", id, consumer, destination);
    }

    private static JsonArray history(long id) throws Exception {
        HttpResponse<String> answer = call("GET", API + "/dead-letters/" + id + "/history", Api.OPERATOR);
        assertEquals(200, answer.statusCode(), answer.body());
        try (JsonReader reader = Json.createReader(new StringReader(answer.body()))) {
            return reader.readArray();
        }
    }

    private long inbox(String consumer, String eventId) {
        return db.number("SELECT count(*) FROM inbox WHERE consumer = ? AND event_id = ?", consumer, eventId);
    }

    /**
     * Sends a good event to the partition a re-driven record went to, and waits until billing and analytics both
     * processed it: each has handled the re-driven record (an earlier offset of that partition) by then.
     */
    private void markerAfter(JsonObject redriven) throws Exception {
        SampleEvents.Event marker = SampleEvents.event(UUID.randomUUID().toString(), "marker-" + UUID.randomUUID(),
                "1.00", "EUR");
        try (KafkaProducer<String, String> producer = SampleEvents.producer(TestEnv.BOOTSTRAP)) {
            producer.send(new ProducerRecord<>(redriven.getString("destination"), redriven.getInt("partition"),
                    marker.orderId(), marker.json())).get();
        }
        await("billing and analytics processed the marker").atMost(WAIT).pollInterval(Duration.ofMillis(200))
                .until(() -> db.number("SELECT count(*) FROM inbox WHERE event_id = ?", marker.eventId()) == 2);
    }

    private static JsonObject last(JsonArray entries, String kind) {
        JsonObject found = null;
        for (JsonObject entry : entries.getValuesAs(JsonObject.class)) {
            if (entry.getString("kind").equals(kind)) {
                found = entry;
            }
        }
        assertNotNull(found, "an entry " + kind + " in " + entries);
        return found;
    }

    @Test
    void aReDriveReachesTheDeadLettersOwnConsumerOnlyTheOtherConsumerOfTheTopicSkipsIt() throws Exception {
        // analytics failed on the event, billing never saw it (its inbox has no row): only analytics may process it
        String forAnalytics = UUID.randomUUID().toString();
        String analyticsOrder = "aimed-analytics-" + forAnalytics;
        long analytics = deadLetter("analytics", forAnalytics,
                SampleEvents.event(forAnalytics, analyticsOrder, "12.00", "EUR").json());
        // and the other way round: billing's dead letter, analytics never saw the event
        String forBilling = UUID.randomUUID().toString();
        String billingOrder = "aimed-billing-" + forBilling;
        long billing = deadLetter("billing", forBilling,
                SampleEvents.event(forBilling, billingOrder, "13.00", "EUR").json());

        HttpResponse<String> first = call("POST", API + "/dead-letters/" + analytics + "/redrive", Api.OPERATOR);
        assertEquals(200, first.statusCode(), first.body());
        HttpResponse<String> second = call("POST", API + "/dead-letters/" + billing + "/redrive?consumer=billing",
                Api.OPERATOR);
        assertEquals(200, second.statusCode(), "naming the row's own consumer is the default: " + second.body());

        await("analytics processed its re-driven event").atMost(WAIT).until(() -> inbox("analytics", forAnalytics) == 1);
        await("billing invoiced its re-driven event").atMost(WAIT)
                .until(() -> db.number("SELECT count(*) FROM invoice WHERE order_id = ?", billingOrder) == 1);
        markerAfter(last(history(analytics), "redriven"));
        markerAfter(last(history(billing), "redriven"));

        assertEquals(0, db.number("SELECT count(*) FROM invoice WHERE order_id = ?", analyticsOrder),
                "billing did not invoice analytics' re-driven event");
        assertEquals(0, inbox("billing", forAnalytics), "nor claimed it: a later delivery of it is still processed");
        assertEquals(0, inbox("analytics", forBilling), "analytics did not count billing's re-driven event");
        assertEquals(1, inbox("billing", forBilling));
    }

    /**
     * The aim on the liberty-kafka connector too (consumer probe-kafka, event id from header ce_id): a record aimed at
     * another application's consumer of the topic whose dead letter confirms the re-drive is skipped without an inbox
     * row or effect; one whose aim names no such dead letter (the headers alone, as any producer can write them) is
     * processed; so is one aimed at a consumer this application runs on other topics only (billing), whatever its dead
     * letter says: a re-drive to it cannot come on this topic; the record aimed at probe-kafka itself is processed.
     */
    @Test
    void onLibertyKafkaOnlyAnAimTheDatabaseConfirmsIsSkipped() throws Exception {
        String run = "aim-" + UUID.randomUUID().toString().substring(0, 8);
        String elsewhere = UUID.randomUUID().toString();
        String forged = UUID.randomUUID().toString();
        String here = UUID.randomUUID().toString();
        String notRead = UUID.randomUUID().toString();
        String elsewhereJson = SampleEvents.event(elsewhere, run + "-elsewhere", "5.00", "EUR").json();
        String notReadJson = SampleEvents.event(notRead, run + "-not-read", "5.00", "EUR").json();
        long redriven = deadLetter("probe-other-service", elsewhere, elsewhereJson);
        // re-driven as InboxDeadLetters.markRedriven records it: the row and its history entry aimed at its consumer
        markRedriven(redriven, "probe-other-service", TestEnv.PROBE_TOPIC);
        long billingRow = deadLetter("billing", notRead, notReadJson);
        markRedriven(billingRow, "billing", TestEnv.PROBE_TOPIC);
        try (KafkaProducer<String, String> producer = SampleEvents.producer(TestEnv.BOOTSTRAP)) {
            for (String[] r : List.of(new String[] {elsewhere, "probe-other-service", run + "-elsewhere",
                            String.valueOf(redriven)},
                    new String[] {forged, "probe-other-service", run + "-forged", String.valueOf(redriven)},
                    new String[] {notRead, "billing", run + "-not-read", String.valueOf(billingRow)},
                    new String[] {here, "probe-kafka", run + "-here", null})) {
                // the re-drive sends the dead letter's own bytes
                String value = r[0].equals(elsewhere) ? elsewhereJson : r[0].equals(notRead) ? notReadJson
                        : SampleEvents.event("ignored", r[2], "5.00", "EUR").json();
                ProducerRecord<String, String> record = new ProducerRecord<>(TestEnv.PROBE_TOPIC, run, value);
                record.headers().add("ce_id", r[0].getBytes(StandardCharsets.UTF_8));
                record.headers().add("inbox-redrive-consumer", r[1].getBytes(StandardCharsets.UTF_8));
                if (r[3] != null) {
                    record.headers().add("inbox-redrive-dead-letter", r[3].getBytes(StandardCharsets.UTF_8));
                }
                producer.send(record).get();
            }
        }
        await("the record aimed at probe-kafka was processed").atMost(WAIT)
                .until(() -> inbox("probe-kafka", here) == 1);
        assertEquals(1, db.number("SELECT count(*) FROM invoice WHERE order_id = ?", run + "-here"));
        assertEquals(0, inbox("probe-kafka", elsewhere), "the re-drive for billing its dead letter confirms: no inbox row");
        assertEquals(0, db.number("SELECT count(*) FROM invoice WHERE order_id = ?", run + "-elsewhere"),
                "and no effect");
        assertEquals(1, inbox("probe-kafka", forged),
                "a record naming that dead letter with another event id is no re-drive of it: processed");
        assertEquals(1, db.number("SELECT count(*) FROM invoice WHERE order_id = ?", run + "-forged"));
        assertEquals(1, inbox("probe-kafka", notRead), "an aim at billing, which reads no channel of this topic here, "
                + "is no re-drive on it whatever its dead letter says: processed");
        assertEquals(1, db.number("SELECT count(*) FROM invoice WHERE order_id = ?", run + "-not-read"));
    }

    /**
     * A new order whose headers aim it at analytics and name a dead letter that does not exist: billing processes it
     * (one invoice), analytics too, and billing counts the rejected aim in the API's figures.
     */
    @Test
    void aForgedAimMakesNoConsumerSkipANewOrder() throws Exception {
        String eventId = UUID.randomUUID().toString();
        String orderId = "forged-aim-" + eventId;
        long rejectedBefore = Api.figure("billing", "redriveAimsRejected");
        try (KafkaProducer<String, String> producer = SampleEvents.producer(TestEnv.BOOTSTRAP)) {
            ProducerRecord<String, String> record = new ProducerRecord<>(TestEnv.ORDERS_TOPIC, orderId,
                    SampleEvents.event(eventId, orderId, "21.00", "EUR").json());
            record.headers().add("inbox-redrive-consumer", "analytics".getBytes(StandardCharsets.UTF_8));
            record.headers().add("inbox-redrive-dead-letter", "99999".getBytes(StandardCharsets.UTF_8));
            producer.send(record).get();
        }
        await("billing and analytics processed the order").atMost(WAIT)
                .until(() -> db.number("SELECT count(*) FROM inbox WHERE event_id = ?", eventId) == 2);
        assertEquals(1, db.number("SELECT count(*) FROM invoice WHERE order_id = ?", orderId), "one invoice");
        assertEquals(0, db.number("SELECT count(*) FROM inbox_dead_letter WHERE event_id = ?", eventId),
                "no dead letter");
        assertTrue(Api.figure("billing", "redriveAimsRejected") > rejectedBefore,
                "billing counted the rejected aim in /api/inbox");
    }

    /**
     * A copy of another destination's re-drive is no re-drive to this topic: a dead letter of the mailer (a consumer
     * of invoices.issued), re-driven there, whose payload is a valid order too, sent to the orders topic with its
     * re-drive headers, makes neither billing nor analytics skip the order; nor does an aim whose only proof is a
     * re-drive claim that a stopped server left behind, older than the lease. Both are processed, and counted as
     * rejected aims.
     */
    @Test
    void aCopyOfAnotherTopicsRedriveOrAStaleClaimMakesNoConsumerSkipTheOrder() throws Exception {
        String copied = UUID.randomUUID().toString();
        String copiedOrder = "aim-copy-" + copied;
        String copiedJson = SampleEvents.event(copied, copiedOrder, "7.00", "EUR").json();
        long mailers = deadLetter("mailer", copied, copiedJson);
        markRedriven(mailers, "mailer", "invoices.issued");
        String stale = UUID.randomUUID().toString();
        String staleOrder = "aim-stale-" + stale;
        String staleJson = SampleEvents.event(stale, staleOrder, "8.00", "EUR").json();
        long analytics = deadLetter("analytics", stale, staleJson);
        claimedLongAgo(analytics);
        long rejectedBefore = Api.figure("billing", "redriveAimsRejected");
        try (KafkaProducer<String, String> producer = SampleEvents.producer(TestEnv.BOOTSTRAP)) {
            for (String[] r : List.of(new String[] {copiedOrder, copiedJson, "mailer", String.valueOf(mailers)},
                    new String[] {staleOrder, staleJson, "analytics", String.valueOf(analytics)})) {
                ProducerRecord<String, String> record = new ProducerRecord<>(TestEnv.ORDERS_TOPIC, r[0], r[1]);
                record.headers().add("inbox-redrive-consumer", r[2].getBytes(StandardCharsets.UTF_8));
                record.headers().add("inbox-redrive-dead-letter", r[3].getBytes(StandardCharsets.UTF_8));
                producer.send(record).get();
            }
        }
        await("billing and analytics processed both orders").atMost(WAIT)
                .until(() -> inbox("billing", copied) + inbox("analytics", copied) + inbox("billing", stale)
                        + inbox("analytics", stale) == 4);
        assertEquals(1, db.number("SELECT count(*) FROM invoice WHERE order_id = ?", copiedOrder),
                "the copy of the mailer's re-drive was invoiced");
        assertEquals(1, db.number("SELECT count(*) FROM invoice WHERE order_id = ?", staleOrder),
                "the order aimed by a stale claim was invoiced");
        assertTrue(Api.figure("billing", "redriveAimsRejected") >= rejectedBefore + 2,
                "billing counted both rejected aims in /api/inbox");
    }

    /**
     * A consumer that processes the event of its own dead letter closes the row; a re-drive claim older than the
     * lease (a stopped server's) is cleared without becoming a {@code redriven} history entry. Entered as one, with no
     * destination, it confirmed an aim at that consumer to the topic's other consumers, which then skipped the order:
     * {@link #aCopyOfAnotherTopicsRedriveOrAStaleClaimMakesNoConsumerSkipTheOrder} failed whenever analytics processed
     * its record before billing looked at the aim.
     */
    @Test
    void aStaleClaimIsNotEnteredAsAReDriveWhenTheConsumerProcessesTheEvent() throws Exception {
        String eventId = UUID.randomUUID().toString();
        String orderId = "stale-claim-" + eventId;
        String json = SampleEvents.event(eventId, orderId, "9.00", "EUR").json();
        long id = deadLetter("analytics", eventId, json);
        claimedLongAgo(id);
        try (KafkaProducer<String, String> producer = SampleEvents.producer(TestEnv.BOOTSTRAP)) {
            producer.send(new ProducerRecord<>(TestEnv.ORDERS_TOPIC, orderId, json)).get();
        }
        await("analytics processed the event").atMost(WAIT).until(() -> inbox("analytics", eventId) == 1);
        await("its dead letter closed").atMost(WAIT).until(() -> db.number("SELECT count(*) FROM inbox_dead_letter "
                + "WHERE id = ? AND redriven_at IS NOT NULL", id) == 1);
        assertEquals(List.of("processed"), db.texts("SELECT kind FROM inbox_dead_letter_history "
                + "WHERE dead_letter_id = ? ORDER BY id", id), "closed as processed, no re-drive entered");
    }

    /**
     * A record with a re-driven dead letter's event id and aim but other bytes (a producer's corrected event under the
     * same id, or a forgery) is no re-drive of that dead letter: analytics processes it and counts the rejected aim.
     * The dead letter was re-driven and failed again, so it is open, with its re-drive in its history.
     */
    @Test
    void aRecordWithTheDeadLettersEventIdButOtherBytesMakesNoConsumerSkipIt() throws Exception {
        String eventId = UUID.randomUUID().toString();
        String orderId = "aim-other-bytes-" + eventId;
        long id = deadLetter("billing", eventId, SampleEvents.event(eventId, orderId, "12,90", "EUR").json());
        db.number("INSERT INTO inbox_dead_letter_history (dead_letter_id, kind, actor, target_consumer, destination) "
                + "VALUES (?, 'redriven', 'test', 'billing', ?) RETURNING id", id, TestEnv.ORDERS_TOPIC);
        long rejectedBefore = Api.figure("analytics", "redriveAimsRejected");
        try (KafkaProducer<String, String> producer = SampleEvents.producer(TestEnv.BOOTSTRAP)) {
            ProducerRecord<String, String> record = new ProducerRecord<>(TestEnv.ORDERS_TOPIC, orderId,
                    SampleEvents.event(eventId, orderId, "4.00", "EUR").json());
            record.headers().add("inbox-redrive-consumer", "billing".getBytes(StandardCharsets.UTF_8));
            record.headers().add("inbox-redrive-dead-letter", String.valueOf(id).getBytes(StandardCharsets.UTF_8));
            producer.send(record).get();
        }
        await("analytics processed the record").atMost(WAIT).until(() -> inbox("analytics", eventId) == 1);
        assertTrue(Api.figure("analytics", "redriveAimsRejected") > rejectedBefore,
                "analytics counted the rejected aim in /api/inbox");
        await("billing, the consumer aimed at, processed it too").atMost(WAIT)
                .until(() -> inbox("billing", eventId) == 1);
    }

    @Test
    void consumerAllReachesEveryConsumerAndAnotherConsumersNameIsRefused() throws Exception {
        String eventId = UUID.randomUUID().toString();
        String orderId = "redrive-all-" + eventId;
        long id = deadLetter("billing", eventId, SampleEvents.event(eventId, orderId, "14.00", "EUR").json());

        HttpResponse<String> other = call("POST", API + "/dead-letters/" + id + "/redrive?consumer=analytics",
                Api.OPERATOR);
        assertEquals(400, other.statusCode(), other.body());
        assertTrue(other.body().contains("BILLING0250E: Dead letter " + id + " belongs to consumer billing"),
                other.body());
        HttpResponse<String> unknown = call("POST", API + "/dead-letters/" + id + "/redrive?consumer=nobody",
                Api.OPERATOR);
        assertEquals(400, unknown.statusCode(), unknown.body());
        assertTrue(unknown.body().contains("BILLING0238E") && unknown.body().contains("all"), unknown.body());
        assertEquals(1, db.number("SELECT count(*) FROM inbox_dead_letter WHERE id = ? AND redriven_at IS NULL", id),
                "the refused calls left the row open");

        HttpResponse<String> all = call("POST", API + "/dead-letters/" + id + "/redrive?consumer=all", Api.OPERATOR);
        assertEquals(200, all.statusCode(), all.body());
        await().atMost(WAIT).until(() -> inbox("billing", eventId) == 1 && inbox("analytics", eventId) == 1);
        JsonObject redriven = last(history(id), "redriven");
        assertFalse(redriven.containsKey("targetConsumer"), "no consumer aimed at: " + redriven);
    }

    @Test
    void aRowsHistoryHasItsFailuresReDriveAndDiscardWithWhoAndWhen() throws Exception {
        // an amount with more decimals than JPY has: both consumers dead-letter it (BILLING0216E), every time
        String eventId = UUID.randomUUID().toString();
        String orderId = "history-" + eventId;
        OffsetDateTime before = OffsetDateTime.now().minusSeconds(5);
        OrderRecords.sendThenMarker(db, orderId, List.of(SampleEvents.event(eventId, orderId, "5.55", "JPY").json()));
        long id = db.await(WAIT, n -> n > 0, "SELECT coalesce(max(id), 0) FROM inbox_dead_letter WHERE consumer = "
                + "'billing' AND event_id = ?", eventId);
        JsonArray failed = history(id);
        assertEquals(1, failed.size(), failed.toString());
        assertEquals("failed", failed.getJsonObject(0).getString("kind"));
        assertTrue(failed.getJsonObject(0).getString("error").startsWith("BILLING0216E"), failed.toString());
        assertTrue(failed.getJsonObject(0).getInt("attempts") >= 1, failed.toString());

        HttpResponse<String> redrive = call("POST", API + "/dead-letters/" + id + "/redrive", Api.OPERATOR);
        // the event fails again for billing at once: its row is open again with a second failure. When that failure
        // lands before the re-drive marks the row, the answer is 409 "sent again, but the row changed"; either way
        // the history shows the re-drive, before the failure it caused
        assertTrue(redrive.statusCode() == 200 || (redrive.statusCode() == 409
                && redrive.body().contains("BILLING0249E: Dead letter " + id + " was sent again")), redrive.body());
        await("the re-driven event failed again").atMost(WAIT).until(() -> history(id).size() == 3);
        JsonArray afterRedrive = history(id);
        assertEquals(List.of("failed", "redriven", "failed"), afterRedrive.getValuesAs(JsonObject.class).stream()
                .map(e -> e.getString("kind")).toList());
        JsonObject redriven = afterRedrive.getJsonObject(1);
        assertEquals("operator", redriven.getString("actor"), "the principal of the REST call");
        assertEquals("billing", redriven.getString("targetConsumer"));
        assertEquals(TestEnv.ORDERS_TOPIC, redriven.getString("destination"));
        assertTrue(redriven.getInt("partition") >= 0 && redriven.getJsonNumber("offset").longValue() >= 0, redriven.toString());
        OffsetDateTime redrivenAt = OffsetDateTime.parse(redriven.getString("at"));
        assertTrue(redrivenAt.isAfter(before) && redrivenAt.isBefore(OffsetDateTime.now().plusSeconds(5)),
                "when: " + redrivenAt);

        HttpResponse<String> discard = call("DELETE", API + "/dead-letters/" + id, Api.OPERATOR);
        assertEquals(200, discard.statusCode(), discard.body());
        JsonObject discarded = last(history(id), "discarded");
        assertEquals("operator", discarded.getString("actor"));
        assertFalse(OffsetDateTime.parse(discarded.getString("at")).isBefore(redrivenAt));
        assertEquals(4, history(id).size());
        // analytics' dead letter of the event, out of the way of the tests that count BILLING0216E groups
        long analytics = db.number("SELECT id FROM inbox_dead_letter WHERE consumer = 'analytics' AND event_id = ?",
                eventId);
        assertEquals(200, call("DELETE", API + "/dead-letters/" + analytics, Api.OPERATOR).statusCode());
    }

    @Test
    void theHistoryKeepsTheNewestFiftyEntriesAndAnswers4xxForBadIds() throws Exception {
        long id = deadLetter("billing", UUID.randomUUID().toString(), "{}");
        assertEquals(60, db.number("WITH added AS (INSERT INTO inbox_dead_letter_history (dead_letter_id, kind, "
                + "attempts, error) SELECT ?, 'failed', 1, 'old ' || n FROM generate_series(1, 60) n ORDER BY n "
                + "RETURNING 1) SELECT count(*) FROM added", id));
        assertEquals(200, call("DELETE", API + "/dead-letters/" + id, Api.OPERATOR).statusCode());
        JsonArray entries = history(id);
        assertEquals(50, entries.size(), "capped at InboxDeadLetters.HISTORY_LIMIT");
        assertEquals("discarded", entries.getJsonObject(49).getString("kind"), "the newest kept");
        assertEquals("old 12", entries.getJsonObject(0).getString("error"), "the oldest dropped");

        HttpResponse<String> none = call("GET", API + "/dead-letters/999999999/history", Api.OPERATOR);
        assertEquals(404, none.statusCode(), none.body());
        HttpResponse<String> bad = call("GET", API + "/dead-letters/x1/history", Api.OPERATOR);
        assertEquals(400, bad.statusCode(), bad.body());
        assertTrue(bad.body().contains("BILLING0236E"), bad.body());
        assertEquals(403, call("GET", API + "/dead-letters/" + id + "/history", Api.READER).statusCode(),
                "a failure's reason may quote payload data: operators only");
    }
}
