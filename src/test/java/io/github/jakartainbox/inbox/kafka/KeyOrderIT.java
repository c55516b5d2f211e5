package io.github.jakartainbox.inbox.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.jakartainbox.billing.SampleEvents;
import io.github.jakartainbox.testing.Api;
import io.github.jakartainbox.testing.Db;
import io.github.jakartainbox.testing.Deployments;
import io.github.jakartainbox.testing.KeyOrderProbes;
import io.github.jakartainbox.testing.TestEnv;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
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
 * Issue 43: per-key order kept around dead letters ({@code dead-letter.order=key}) on the {@code inbox-kafka}
 * connector, grouped and per record, on real Liberty, Kafka and PostgreSQL. Key A's first event fails (a poison
 * payload) and is dead-lettered; A's later events are parked while key B's, in the same partition, are processed;
 * a re-drive of A's sequence is refused while another server holds its lease, then, with the poison fixed, applies
 * A's events in order, each once ({@link KeyOrderProbe} records each event's sequence number). A whole sequence is
 * discarded, and others are re-driven in one bulk call.
 */
@ExtendWith(ArquillianExtension.class)
@RunAsClient
class KeyOrderIT {

    private static final Duration WAIT = Duration.ofSeconds(90);
    private static final String RUN = UUID.randomUUID().toString().substring(0, 8);
    private static final String API = TestEnv.url("/billing/api");
    private static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    private final Db db = Db.overJdbc();

    @Deployment
    static WebArchive deployment() throws Exception {
        return Deployments.billingWithProbes().addAsLibrary(KeyOrderProbes.archive(KeyOrderIT::topic,
                "mp.messaging.incoming.probe-key-single.group.max-size=1\n"));
    }

    private static String topic(String channel) {
        return "it." + channel + "." + RUN;
    }

    @Test
    void groupedDeliveryKeepsKeyOrderAroundDeadLetter() throws Exception {
        keyOrderKept("probe-key-grouped");
    }

    @Test
    void perRecordDeliveryKeepsKeyOrderAroundDeadLetter() throws Exception {
        keyOrderKept("probe-key-single");
    }

    private void keyOrderKept(String consumer) throws Exception {
        String a = "A-" + consumer + "-" + RUN;
        String b = "B-" + consumer + "-" + RUN;
        List<String> aIds = new ArrayList<>();
        List<String> bIds = new ArrayList<>();
        for (int i = 0; i < 7; i++) {
            aIds.add(UUID.randomUUID().toString());
            bIds.add(UUID.randomUUID().toString());
        }
        db.number("INSERT INTO key_order_poison (event_id) VALUES (?) RETURNING 1", aIds.get(0));
        try (KafkaProducer<String, String> producer = SampleEvents.producer(TestEnv.BOOTSTRAP)) {
            for (int seq = 1; seq <= 5; seq++) {
                producer.send(new ProducerRecord<>(topic(consumer), a, event(aIds.get(seq - 1), a, seq)));
                producer.send(new ProducerRecord<>(topic(consumer), b, event(bIds.get(seq - 1), b, seq)));
            }
            producer.flush();
        }

        // B flows; A's first is dead-lettered and its four later events are parked, not processed
        assertEquals(5, db.await(WAIT, n -> n == 5, "SELECT count(*) FROM key_order_effect WHERE consumer = ? "
                + "AND record_key = ?", consumer, b), "B's five processed");
        assertEquals(4, db.await(WAIT, n -> n == 4, PARKED, consumer, a), "A's later four parked");
        assertEquals(0, effects(consumer, a), "no event of A reached the method while its first is dead-lettered");
        long head = db.number("SELECT head_dead_letter_id FROM inbox_key_sequence WHERE consumer = ? "
                + "AND record_key = ?", consumer, a);
        assertEquals(head, db.number("SELECT id FROM inbox_dead_letter WHERE consumer = ? AND event_id = ?",
                consumer, aIds.get(0)), "A's first event's dead letter heads the sequence");
        assertEquals(List.of("1", "2", "3", "4", "5"), db.texts("SELECT seq::text FROM key_order_effect "
                + "WHERE consumer = ? AND record_key = ? ORDER BY id", consumer, b), "B in order");

        // operators see the sequence as one item
        HttpResponse<String> listed = call("GET", API + "/dead-letters/sequences?consumer=" + consumer);
        assertEquals(200, listed.statusCode(), listed.body());
        assertTrue(listed.body().contains("\"key\":\"" + a + "\"") && listed.body().contains("\"parked\":4"),
                listed.body());

        // another server's live re-drive of A: this one is refused and delivers nothing
        db.number("UPDATE inbox_key_sequence SET redrive_claimed_at = now(), redrive_claimed_by = 'other-server' "
                + "WHERE consumer = ? AND record_key = ? RETURNING 1", consumer, a);
        HttpResponse<String> refused = call("POST", redrive(consumer, a));
        assertEquals(409, refused.statusCode(), refused.body());
        assertTrue(refused.body().contains("BILLING0267E") && refused.body().contains("other-server"),
                refused.body());
        assertEquals(0, effects(consumer, a));
        db.number("UPDATE inbox_key_sequence SET redrive_claimed_at = NULL, redrive_claimed_by = NULL "
                + "WHERE consumer = ? AND record_key = ? RETURNING 1", consumer, a);

        // an event of A arriving meanwhile waits behind the others
        try (KafkaProducer<String, String> producer = SampleEvents.producer(TestEnv.BOOTSTRAP)) {
            producer.send(new ProducerRecord<>(topic(consumer), a, event(aIds.get(5), a, 6))).get();
        }
        assertEquals(5, db.await(WAIT, n -> n == 5, PARKED, consumer, a), "A's sixth parked behind the others");

        // the head fixed, the re-drive applies A's six in order, each once, and closes the sequence
        db.number("DELETE FROM key_order_poison WHERE event_id = ? RETURNING 1", aIds.get(0));
        HttpResponse<String> redriven = call("POST", redrive(consumer, a));
        assertEquals(200, redriven.statusCode(), redriven.body());
        assertTrue(redriven.body().contains("\"status\":\"CLOSED\"") && redriven.body().contains("\"delivered\":6"),
                redriven.body());
        assertEquals(List.of("1", "2", "3", "4", "5", "6"), db.texts("SELECT seq::text FROM key_order_effect "
                + "WHERE consumer = ? AND record_key = ? ORDER BY id", consumer, a), "A in order, none twice");
        assertEquals(0, db.number("SELECT count(*) FROM inbox_key_sequence WHERE consumer = ?", consumer));
        assertEquals(0, db.number("SELECT count(*) FROM inbox_parked p JOIN inbox_key_sequence s "
                + "ON s.id = p.sequence_id WHERE s.consumer = ?", consumer));
        assertEquals(1, db.number("SELECT count(*) FROM inbox_dead_letter WHERE id = ? AND redriven_at IS NOT NULL",
                head), "the head's dead letter is resolved by its processing");

        // the sequence closed: A's next event is processed as it comes, a second re-drive finds nothing
        try (KafkaProducer<String, String> producer = SampleEvents.producer(TestEnv.BOOTSTRAP)) {
            producer.send(new ProducerRecord<>(topic(consumer), a, event(aIds.get(6), a, 7))).get();
        }
        assertEquals(7, db.await(WAIT, n -> n == 7, "SELECT count(*) FROM key_order_effect WHERE consumer = ? "
                + "AND record_key = ?", consumer, a), "A's seventh processed as it came");
        HttpResponse<String> nothing = call("POST", redrive(consumer, a));
        assertEquals(404, nothing.statusCode(), nothing.body());
        assertTrue(nothing.body().contains("BILLING0268E"), nothing.body());
        assertEquals(7, db.number("SELECT count(DISTINCT event_id) FROM key_order_effect WHERE consumer = ? "
                + "AND record_key = ?", consumer, a), "each of A's effects once");
    }

    /**
     * A re-drive of the head's dead letter alone (as {@code InboxRedrives} sends it: its claim taken, the record
     * aimed at the consumer and naming the dead letter) is not parked behind itself: with nothing behind it, it
     * closes the sequence; with a record behind it, that record waits for the sequence's re-drive, after the head.
     */
    @Test
    void aRedriveOfTheHeadAloneIsProcessedAndLeavesTheSequence() throws Exception {
        String consumer = "probe-key-grouped";
        String c = "C-" + RUN;
        String d = "D-" + RUN;
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            ids.add(UUID.randomUUID().toString());
        }
        db.number("INSERT INTO key_order_poison (event_id) VALUES (?), (?) RETURNING 1", ids.get(0), ids.get(2));
        try (KafkaProducer<String, String> producer = SampleEvents.producer(TestEnv.BOOTSTRAP)) {
            producer.send(new ProducerRecord<>(topic(consumer), c, event(ids.get(0), c, 1))).get();
            producer.send(new ProducerRecord<>(topic(consumer), d, event(ids.get(2), d, 1))).get();
            producer.send(new ProducerRecord<>(topic(consumer), d, event(ids.get(3), d, 2))).get();
        }
        assertEquals(1, db.await(WAIT, n -> n == 1, PARKED, consumer, d), "D's second parked behind D's first");
        assertEquals(1, db.await(WAIT, n -> n == 1, "SELECT count(*) FROM inbox_key_sequence WHERE consumer = ? "
                + "AND record_key = ?", consumer, c), "C's first heads C's sequence");
        db.number("DELETE FROM key_order_poison WHERE event_id IN (?, ?) RETURNING 1", ids.get(0), ids.get(2));

        // a header naming the head without a re-drive claim is anyone's to write: parked like any other record
        long cHead = headRedrive(consumer, c, ids.get(0), 1, false);
        assertEquals(1, db.await(WAIT, n -> n == 1, PARKED, consumer, c), "a forged re-drive waits its turn");
        assertEquals(0, effects(consumer, c));
        db.number("DELETE FROM inbox_parked WHERE dead_letter_id IS NULL AND sequence_id = (SELECT id FROM "
                + "inbox_key_sequence WHERE consumer = ? AND record_key = ?) RETURNING 1", consumer, c);

        headRedrive(consumer, c, ids.get(0), 1, true);
        assertEquals(1, db.await(WAIT, n -> n == 1, "SELECT count(*) FROM key_order_effect WHERE consumer = ? "
                + "AND record_key = ?", consumer, c), "the head's re-drive processed");
        assertEquals(0, db.await(WAIT, n -> n == 0, "SELECT count(*) FROM inbox_key_sequence WHERE consumer = ? "
                + "AND record_key = ?", consumer, c), "nothing waited behind it: the sequence closed");
        assertEquals(1, db.number("SELECT count(*) FROM inbox_dead_letter WHERE id = ? AND redriven_at IS NOT NULL",
                cHead));

        headRedrive(consumer, d, ids.get(2), 1, true);
        assertEquals(1, db.await(WAIT, n -> n == 1, "SELECT count(*) FROM key_order_effect WHERE consumer = ? "
                + "AND record_key = ?", consumer, d), "D's head processed");
        assertEquals(1, db.number(PARKED, consumer, d), "D's second still waits for the sequence's re-drive");
        HttpResponse<String> redriven = call("POST", redrive(consumer, d));
        assertEquals(200, redriven.statusCode(), redriven.body());
        assertTrue(redriven.body().contains("\"status\":\"CLOSED\""), redriven.body());
        assertEquals(List.of("1", "2"), db.texts("SELECT seq::text FROM key_order_effect WHERE consumer = ? "
                + "AND record_key = ? ORDER BY id", consumer, d), "D in order");
    }

    /**
     * A whole sequence discarded, then two re-driven in bulk: key E's first event fails and three more are parked;
     * {@code /health/ready} shows the consumer's open sequences; the whole discard is refused while another server
     * holds E's lease, then discards E's head and keeps each parked event as a discarded dead letter with its payload,
     * none processed, and E's next event is processed as it comes. Keys F and G, each a failed head and one parked
     * event, are re-driven in one bulk call by their heads' ids (with an id that heads nothing, counted as refused),
     * each in order.
     */
    @Test
    void aWholeSequenceIsDiscardedAndOthersAreRedrivenInBulk() throws Exception {
        String consumer = "probe-key-grouped";
        String e = "E-" + RUN;
        String f = "F-" + RUN;
        String g = "G-" + RUN;
        List<String> eIds = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            eIds.add(UUID.randomUUID().toString());
        }
        String fHeadId = UUID.randomUUID().toString();
        String gHeadId = UUID.randomUUID().toString();
        db.number("INSERT INTO key_order_poison (event_id) VALUES (?), (?), (?) RETURNING 1", eIds.get(0), fHeadId,
                gHeadId);
        try (KafkaProducer<String, String> producer = SampleEvents.producer(TestEnv.BOOTSTRAP)) {
            for (int seq = 1; seq <= 4; seq++) {
                producer.send(new ProducerRecord<>(topic(consumer), e, event(eIds.get(seq - 1), e, seq)));
            }
            producer.send(new ProducerRecord<>(topic(consumer), f, event(fHeadId, f, 1)));
            producer.send(new ProducerRecord<>(topic(consumer), f, event(UUID.randomUUID().toString(), f, 2)));
            producer.send(new ProducerRecord<>(topic(consumer), g, event(gHeadId, g, 1)));
            producer.send(new ProducerRecord<>(topic(consumer), g, event(UUID.randomUUID().toString(), g, 2)));
            producer.flush();
        }
        assertEquals(3, db.await(WAIT, n -> n == 3, PARKED, consumer, e), "E's later three parked");
        assertEquals(1, db.await(WAIT, n -> n == 1, PARKED, consumer, f), "F's second parked");
        assertEquals(1, db.await(WAIT, n -> n == 1, PARKED, consumer, g), "G's second parked");

        String ready = call("GET", TestEnv.url("/health/ready")).body().replace(" ", "");
        assertTrue(ready.contains("\"sequences." + consumer + "\":")
                && ready.contains("\"sequences." + consumer + ".oldest-parked-age\":\"PT"), ready);

        // the whole discard takes the same lease as a re-drive
        db.number("UPDATE inbox_key_sequence SET redrive_claimed_at = now(), redrive_claimed_by = 'other-server' "
                + "WHERE consumer = ? AND record_key = ? RETURNING 1", consumer, e);
        HttpResponse<String> refused = call("POST", sequenceCall("discard", consumer, e));
        assertEquals(409, refused.statusCode(), refused.body());
        assertTrue(refused.body().contains("BILLING0267E") && refused.body().contains("other-server"),
                refused.body());
        assertEquals(3, db.number(PARKED, consumer, e), "nothing discarded");
        db.number("UPDATE inbox_key_sequence SET redrive_claimed_at = NULL, redrive_claimed_by = NULL "
                + "WHERE consumer = ? AND record_key = ? RETURNING 1", consumer, e);

        long eHead = db.number("SELECT head_dead_letter_id FROM inbox_key_sequence WHERE consumer = ? "
                + "AND record_key = ?", consumer, e);
        HttpResponse<String> discarded = call("POST", sequenceCall("discard", consumer, e));
        assertEquals(200, discarded.statusCode(), discarded.body());
        assertTrue(discarded.body().contains("\"status\":\"CLOSED\"")
                && discarded.body().contains("\"discarded\":4"), discarded.body());
        assertEquals(0, effects(consumer, e), "none of E processed");
        assertEquals(0, db.number("SELECT count(*) FROM inbox_key_sequence WHERE consumer = ? AND record_key = ?",
                consumer, e), "E's sequence closed");
        assertEquals(1, db.number("SELECT count(*) FROM inbox_dead_letter WHERE id = ? AND discarded_at IS NOT NULL "
                + "AND resolved_by = ?", eHead, Api.OPERATOR.name()), "the head's dead letter discarded");
        assertEquals(3, db.number("SELECT count(*) FROM inbox_dead_letter d JOIN inbox_dead_letter_payload l "
                + "USING (payload_ref) WHERE d.consumer = ? AND d.discarded_at IS NOT NULL AND d.resolved_by = ? "
                + "AND d.error LIKE 'INBOX0246W: %' AND d.error LIKE ? AND l.payload LIKE ? AND EXISTS (SELECT 1 "
                + "FROM inbox_dead_letter_history h WHERE h.dead_letter_id = d.id AND h.kind = 'discarded')",
                consumer, Api.OPERATOR.name(), "%dead letter " + eHead + " (key " + e + ")%", "%\"key\":\"" + e
                + "\"%"), "each parked event kept as a discarded dead letter with its payload and history");

        try (KafkaProducer<String, String> producer = SampleEvents.producer(TestEnv.BOOTSTRAP)) {
            producer.send(new ProducerRecord<>(topic(consumer), e, event(eIds.get(4), e, 5))).get();
        }
        assertEquals(1, db.await(WAIT, n -> n == 1, "SELECT count(*) FROM key_order_effect WHERE consumer = ? "
                + "AND record_key = ?", consumer, e), "E's next event processed as it comes");

        // F and G in one bulk call by their heads' ids
        db.number("DELETE FROM key_order_poison WHERE event_id IN (?, ?) RETURNING 1", fHeadId, gHeadId);
        long fHead = db.number("SELECT head_dead_letter_id FROM inbox_key_sequence WHERE consumer = ? "
                + "AND record_key = ?", consumer, f);
        long gHead = db.number("SELECT head_dead_letter_id FROM inbox_key_sequence WHERE consumer = ? "
                + "AND record_key = ?", consumer, g);
        HttpResponse<String> bulk = callJson(API + "/dead-letters/sequences/bulk", "{\"action\":\"redrive\","
                + "\"ids\":[" + fHead + "," + gHead + "," + eHead + "]}");
        assertEquals(200, bulk.statusCode(), bulk.body());
        assertTrue(bulk.body().contains("\"selected\":3") && bulk.body().contains("\"closed\":2")
                && bulk.body().contains("\"delivered\":4") && bulk.body().contains("\"INBOX0247E\":{\"count\":1"),
                bulk.body());
        for (String key : List.of(f, g)) {
            assertEquals(List.of("1", "2"), db.texts("SELECT seq::text FROM key_order_effect WHERE consumer = ? "
                    + "AND record_key = ? ORDER BY id", consumer, key), key + " in order");
            assertEquals(0, db.number("SELECT count(*) FROM inbox_key_sequence WHERE consumer = ? "
                    + "AND record_key = ?", consumer, key), key + "'s sequence closed");
        }
    }

    /**
     * Sends the head's record again as a re-drive of its dead letter, aimed at the consumer.
     *
     * @param claimed whether the dead letter's re-drive claim is taken first, as {@code InboxRedrives} does
     * @return the dead letter's id
     */
    private long headRedrive(String consumer, String key, String eventId, int seq, boolean claimed) throws Exception {
        long head = db.number("SELECT head_dead_letter_id FROM inbox_key_sequence WHERE consumer = ? "
                + "AND record_key = ?", consumer, key);
        if (claimed) {
            db.number("UPDATE inbox_dead_letter SET redrive_claimed_at = now(), redrive_claimed_by = 'it' "
                    + "WHERE id = ? RETURNING 1", head);
        }
        ProducerRecord<String, String> record = new ProducerRecord<>(topic(consumer), key, event(eventId, key, seq));
        record.headers().add("inbox-redrive-consumer", consumer.getBytes(StandardCharsets.UTF_8));
        record.headers().add("inbox-redrive-dead-letter", String.valueOf(head).getBytes(StandardCharsets.UTF_8));
        try (KafkaProducer<String, String> producer = SampleEvents.producer(TestEnv.BOOTSTRAP)) {
            producer.send(record).get();
        }
        return head;
    }

    private static final String PARKED = "SELECT count(*) FROM inbox_parked p JOIN inbox_key_sequence s "
            + "ON s.id = p.sequence_id WHERE s.consumer = ? AND s.record_key = ? AND p.dead_letter_id IS NULL";

    private long effects(String consumer, String key) {
        return db.number("SELECT count(*) FROM key_order_effect WHERE consumer = ? AND record_key = ?", consumer, key);
    }

    private static String event(String eventId, String key, int seq) {
        return "{\"event_id\":\"" + eventId + "\",\"key\":\"" + key + "\",\"seq\":" + seq + "}";
    }

    private static String redrive(String consumer, String key) {
        return sequenceCall("redrive", consumer, key);
    }

    private static String sequenceCall(String action, String consumer, String key) {
        return API + "/dead-letters/sequences/" + action + "?consumer=" + consumer + "&key="
                + URLEncoder.encode(key, StandardCharsets.UTF_8);
    }

    /** One POST of a JSON body as the operator. */
    private static HttpResponse<String> callJson(String url, String json) throws Exception {
        HttpRequest request = HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(120))
                .POST(HttpRequest.BodyPublishers.ofString(json)).header("Content-Type", "application/json")
                .header("Authorization", "Basic " + Base64.getEncoder().encodeToString(
                        (Api.OPERATOR.name() + ":" + Api.OPERATOR.password()).getBytes(StandardCharsets.UTF_8)))
                .build();
        return HTTP.send(request, HttpResponse.BodyHandlers.ofString());
    }

    /** One HTTP/1.1 call as the operator (see DeadLetterRedriveIT: no h2c upgrade). */
    private static HttpResponse<String> call(String method, String url) throws Exception {
        HttpRequest request = HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(120))
                .method(method, HttpRequest.BodyPublishers.noBody())
                .header("Authorization", "Basic " + Base64.getEncoder().encodeToString(
                        (Api.OPERATOR.name() + ":" + Api.OPERATOR.password()).getBytes(StandardCharsets.UTF_8)))
                .build();
        return HTTP.send(request, HttpResponse.BodyHandlers.ofString());
    }
}
