package io.github.jakartainbox.inbox.deadletter;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.jakartainbox.billing.SampleEvents;
import io.github.jakartainbox.testing.Api;
import io.github.jakartainbox.testing.Db;
import io.github.jakartainbox.testing.Deployments;
import io.github.jakartainbox.testing.TestEnv;
import jakarta.json.Json;
import jakarta.json.JsonArray;
import jakarta.json.JsonObject;
import jakarta.json.JsonReader;
import java.io.StringReader;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
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
 * A dead letter whose event its consumer processes afterwards is resolved by that processing, in the claim's
 * transaction, with history entries saying so: a re-drive whose mark was lost (the server was killed after the record
 * went out and before the row was marked) and a replay of the event. Before, both rows stayed open, counted in health
 * and the statistics, until an operator discarded them by hand.
 */
@ExtendWith(ArquillianExtension.class)
@RunAsClient
class DeadLetterResolvedByProcessingIT {

    private static final String API = TestEnv.url("/billing/api");
    private static final Duration WAIT = Duration.ofSeconds(90);

    private final Db db = Db.overJdbc(System.getenv().getOrDefault("DB_NAME", "billing"));

    @Deployment
    static WebArchive deployment() {
        return Deployments.billingWithProbes();
    }

    private static JsonArray history(long id) throws Exception {
        HttpResponse<String> answer = Api.call("GET", API + "/dead-letters/" + id + "/history", Api.OPERATOR);
        assertEquals(200, answer.statusCode(), answer.body());
        try (JsonReader reader = Json.createReader(new StringReader(answer.body()))) {
            return reader.readArray();
        }
    }

    private static List<String> kinds(JsonArray history) {
        return history.getValuesAs(JsonObject.class).stream().map(e -> e.getString("kind")).toList();
    }

    /** A dead letter as the inbox writes one, with its history entry. */
    private long deadLetter(String consumer, String eventId, String payload) {
        long id = db.number("INSERT INTO inbox_dead_letter (consumer, event_id, payload_ref, error, attempts, "
                + "payload_sha256) VALUES (?, ?, decode(?, 'hex'), 'simulated failure', 3, sha256(convert_to(?, 'UTF8'))) "
                + "RETURNING id", consumer, eventId, db.deadLetterPayload(payload), payload);
        db.number("INSERT INTO inbox_dead_letter_history (dead_letter_id, kind, attempts, error) "
                + "VALUES (?, 'failed', 3, 'simulated failure') RETURNING id", id);
        return id;
    }

    private boolean open(long id) {
        return db.number("SELECT count(*) FROM inbox_dead_letter WHERE id = ? AND redriven_at IS NULL "
                + "AND discarded_at IS NULL", id) == 1;
    }

    @Test
    void aReDriveWhoseMarkWasLostIsResolvedWhenItsConsumerProcessesTheRecord() throws Exception {
        String eventId = UUID.randomUUID().toString();
        String order = "lost-mark-" + eventId;
        SampleEvents.Event event = SampleEvents.event(eventId, order, "21.00", "EUR");
        long id = deadLetter("billing", eventId, event.json());
        // the re-drive claimed the row and its record went out; the server died before it marked the row
        db.number("UPDATE inbox_dead_letter SET redrive_claimed_at = now(), redrive_claimed_by = 'lost-operator' "
                + "WHERE id = ? RETURNING id", id);
        try (KafkaProducer<String, String> producer = SampleEvents.producer(TestEnv.BOOTSTRAP)) {
            ProducerRecord<String, String> record = new ProducerRecord<>(TestEnv.ORDERS_TOPIC, null, event.json());
            record.headers().add(InboxDeadLetters.REDRIVE_CONSUMER_HEADER, "billing".getBytes(StandardCharsets.UTF_8));
            record.headers().add(InboxDeadLetters.REDRIVE_DEAD_LETTER_HEADER,
                    String.valueOf(id).getBytes(StandardCharsets.UTF_8));
            producer.send(record).get();
        }
        await("billing invoiced the re-driven event").atMost(WAIT)
                .until(() -> db.number("SELECT count(*) FROM invoice WHERE order_id = ?", order) == 1);
        assertTrue(!open(id), "the processing resolved the dead letter");
        assertEquals(InboxDeadLetters.PROCESSED_BY + "billing",
                db.text("SELECT resolved_by FROM inbox_dead_letter WHERE id = ?", id));
        assertNull(db.text("SELECT redrive_claimed_by FROM inbox_dead_letter WHERE id = ?", id), "the claim is cleared");
        JsonArray history = history(id);
        assertEquals(List.of("failed", "redriven", "processed"), kinds(history), history.toString());
        assertEquals("lost-operator", history.getJsonObject(1).getString("actor"), "the re-drive that happened");
        assertEquals("billing", history.getJsonObject(2).getString("actor"), history.toString());
        HttpResponse<String> again = Api.call("POST", API + "/dead-letters/" + id + "/redrive", Api.OPERATOR);
        assertEquals(409, again.statusCode(), again.body());
        assertTrue(again.body().contains("resolved by " + InboxDeadLetters.PROCESSED_BY + "billing"), again.body());
    }

    @Test
    void aReplayedEventResolvesTheDeadLetterOfItsPayloadOnly() throws Exception {
        String eventId = UUID.randomUUID().toString();
        String order = "replayed-" + eventId;
        SampleEvents.Event event = SampleEvents.event(eventId, order, "22.00", "EUR");
        long same = deadLetter("analytics", eventId, event.json());
        // the same event id with another payload: never processed, so it stays open
        long other = deadLetter("analytics", eventId, SampleEvents.event(eventId, order + "-other", "23.00", "EUR").json());
        try (KafkaProducer<String, String> producer = SampleEvents.producer(TestEnv.BOOTSTRAP)) {
            producer.send(new ProducerRecord<>(TestEnv.ORDERS_TOPIC, order, event.json())).get();
        }
        await("analytics processed the replayed event").atMost(WAIT).until(() -> db.number(
                "SELECT count(*) FROM inbox WHERE consumer = 'analytics' AND event_id = ?", eventId) == 1);
        assertTrue(!open(same), "the replay's processing resolved the dead letter of its payload");
        assertEquals(List.of("failed", "processed"), kinds(history(same)));
        assertTrue(open(other), "a dead letter of another payload under the event id stays open");
        assertEquals(List.of("failed"), kinds(history(other)));
        db.number("WITH d AS (UPDATE inbox_dead_letter SET discarded_at = now(), resolved_by = 'test' WHERE id = ? "
                + "RETURNING 1) SELECT count(*) FROM d", other);
    }
}
