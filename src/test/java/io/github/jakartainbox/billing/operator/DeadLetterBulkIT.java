package io.github.jakartainbox.billing.operator;

import io.github.jakartainbox.billing.SampleEvents;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.jakartainbox.testing.Api;
import io.github.jakartainbox.testing.Db;
import io.github.jakartainbox.testing.Deployments;
import io.github.jakartainbox.testing.OrderRecords;
import io.github.jakartainbox.testing.TestEnv;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.stream.Collectors;
import java.util.stream.LongStream;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.container.test.api.RunAsClient;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.shrinkwrap.api.spec.WebArchive;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Dead letters by group ({@code GET /dead-letters/groups}) and in bulk ({@code POST /dead-letters/bulk}), over HTTP
 * against the running service: poison events sent to the topic are dead-lettered, grouped by their failure's
 * message id, and discarded in one call; bad bulk bodies are 4xx with an id.
 */
@ExtendWith(ArquillianExtension.class)
@RunAsClient
class DeadLetterBulkIT {

    private static final String API = TestEnv.url("/billing/api");
    private static final Duration WAIT = Duration.ofSeconds(90);
    /** An amount with more decimals than JPY has: refused by both consumers with this id. */
    private static final String FAILURE = "BILLING0216E";

    private final Db db = Db.overJdbc(System.getenv().getOrDefault("DB_NAME", "billing"));

    @Deployment
    static WebArchive deployment() {
        return Deployments.billingWithProbes();
    }

    private static HttpResponse<String> bulk(String json, Api.User user) throws Exception {
        return Api.call("POST", API + "/dead-letters/bulk", user, "application/json",
                json.getBytes(StandardCharsets.UTF_8));
    }

    private long open(String consumer) {
        return db.number("SELECT count(*) FROM inbox_dead_letter WHERE consumer = ? AND error LIKE ? "
                + "AND redriven_at IS NULL AND discarded_at IS NULL", consumer, FAILURE + ":%");
    }

    @Test
    void aGroupOfThreePoisonEventsIsListedAndDiscardedInOneCall() throws Exception {
        // rows of this group left by other tests: out of the way first
        HttpResponse<String> cleared = bulk("{\"action\":\"discard\",\"consumer\":\"billing\",\"failure\":\"" + FAILURE
                + "\"}", Api.OPERATOR);
        assertEquals(200, cleared.statusCode(), cleared.body());
        assertEquals(0, open("billing"));
        HttpResponse<String> clearedOther = bulk("{\"action\":\"discard\",\"consumer\":\"analytics\",\"failure\":\""
                + FAILURE + "\"}", Api.OPERATOR);
        assertEquals(200, clearedOther.statusCode(), clearedOther.body());
        assertEquals(0, open("analytics"));

        String run = UUID.randomUUID().toString().substring(0, 8);
        List<String> poison = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            poison.add(SampleEvents.event(UUID.randomUUID().toString(), "bulk-" + run + "-" + i, "5.55", "JPY").json());
        }
        OrderRecords.sendThenMarker(db, "bulk-" + run, poison);
        assertEquals(3, db.await(WAIT, n -> n == 3, "SELECT count(*) FROM inbox_dead_letter WHERE consumer = "
                + "'billing' AND error LIKE ? AND redriven_at IS NULL AND discarded_at IS NULL", FAILURE + ":%"));

        HttpResponse<String> groups = Api.call("GET", API + "/dead-letters/groups", Api.READER);
        assertEquals(200, groups.statusCode(), "a reader may see the groups: " + groups.body());
        assertTrue(groups.body().matches("(?s).*\\{[^}]*\"consumer\":\"billing\"[^}]*\"count\":3[^}]*\"failure\":\""
                + FAILURE + "\"[^}]*}.*"), groups.body());
        assertTrue(groups.body().contains("\"firstFailedAt\"") && groups.body().contains("\"lastFailedAt\""),
                groups.body());

        HttpResponse<String> refused = bulk("{\"action\":\"discard\",\"consumer\":\"billing\",\"failure\":\""
                + FAILURE + "\"}", Api.READER);
        assertEquals(403, refused.statusCode(), "a reader may not act on them");
        assertEquals(3, open("billing"));

        HttpResponse<String> discarded = bulk("{\"action\":\"discard\",\"consumer\":\"billing\",\"failure\":\""
                + FAILURE + "\"}", Api.OPERATOR);
        assertEquals(200, discarded.statusCode(), discarded.body());
        assertTrue(discarded.body().contains("\"selected\":3") && discarded.body().contains("\"done\":3")
                && discarded.body().contains("\"alreadyTaken\":0") && discarded.body().contains("\"refused\":{}"),
                discarded.body());
        assertEquals(0, open("billing"), "none of the group is open");
        assertEquals(3, db.number("SELECT count(*) FROM " + Db.DEAD_LETTERS + " WHERE consumer = 'billing' AND payload LIKE ? "
                + "AND discarded_at IS NOT NULL AND resolved_by = 'operator'", "%bulk-" + run + "-%"));
        assertEquals(3, open("analytics"), "the other consumer's group is left alone");
    }

    /**
     * A group's {@code redrivable} counts the rows a re-drive would send: not those without an event id, nor those
     * whose consumer processed the event (a same-id-other-payload dead letter, INBOX0103E, always). Before, it counted
     * every row with an event id, and the page offered "Re-drive all" for a group whose every re-drive is refused.
     */
    @Test
    void aGroupCountsAsRedrivableOnlyTheRowsAReDriveWouldSend() throws Exception {
        String consumer = "bulk-groups-" + UUID.randomUUID().toString().substring(0, 8);
        String processed = UUID.randomUUID().toString();
        db.number("INSERT INTO inbox (consumer, event_id, processed_at) VALUES (?, ?, now()) RETURNING 1", consumer,
                processed);
        for (String eventId : new String[] {processed, UUID.randomUUID().toString(), null}) {
            db.number("INSERT INTO inbox_dead_letter (consumer, event_id, payload_ref, error, attempts) VALUES (?, ?, "
                    + "decode(?, 'hex'), 'INBOX0103E: simulated', 1) RETURNING id", consumer, eventId,
                    db.deadLetterPayload("{\"x\":\"" + eventId + "\"}"));
        }
        HttpResponse<String> groups = Api.call("GET", API + "/dead-letters/groups?limit=1000", Api.READER);
        assertEquals(200, groups.statusCode(), groups.body());
        assertTrue(groups.body().matches("(?s).*\\{[^}]*\"consumer\":\"" + consumer + "\"[^}]*\"count\":3[^}]*"
                + "\"redrivable\":1[^}]*}.*"), groups.body());
        db.number("UPDATE inbox_dead_letter SET discarded_at = now() WHERE consumer = ? RETURNING 1", consumer);
    }

    /** By ids: each row as the single call does it; refusals are counted by their message id. */
    @Test
    void aReDriveByIdsCountsWhatWasDoneTakenAndRefused() throws Exception {
        String eventId = UUID.randomUUID().toString();
        String orderId = "bulk-ids-" + eventId;
        long good = db.number("INSERT INTO inbox_dead_letter (consumer, event_id, payload_ref, error, attempts, "
                + "payload_sha256) VALUES ('billing', ?, decode(?, 'hex'), 'simulated', 3, sha256(convert_to(?, 'UTF8'))) "
                + "RETURNING id", eventId, db.deadLetterPayload(SampleEvents.event(eventId, orderId, "3.00", "EUR").json()),
                SampleEvents.event(eventId, orderId, "3.00", "EUR").json());
        long noId = db.number("INSERT INTO inbox_dead_letter (consumer, event_id, payload_ref, error, attempts) "
                + "VALUES ('billing', NULL, decode(?, 'hex'), 'simulated', 1) RETURNING id",
                db.deadLetterPayload("{\"x\":\"" + eventId + "\"}"));
        long claimed = db.number("INSERT INTO inbox_dead_letter (consumer, event_id, payload_ref, error, attempts, "
                + "redrive_claimed_at, redrive_claimed_by) VALUES ('billing', ?, decode(?, 'hex'), 'simulated', 1, now(), "
                + "'other') RETURNING id", UUID.randomUUID().toString(), db.deadLetterPayload("{}"));
        HttpResponse<String> answer = bulk("{\"action\":\"redrive\",\"ids\":[" + good + "," + noId + "," + claimed
                + "]}", Api.OPERATOR);
        assertEquals(200, answer.statusCode(), answer.body());
        assertTrue(answer.body().contains("\"selected\":3") && answer.body().contains("\"done\":1")
                && answer.body().contains("\"alreadyTaken\":1") && answer.body().contains("\"BILLING0245E\":{\"count\":1"),
                answer.body());
        assertEquals(1, db.await(WAIT, n -> n == 1, "SELECT count(*) FROM invoice WHERE order_id = ?", orderId));
        db.number("UPDATE inbox_dead_letter SET discarded_at = now() WHERE id IN (?, ?) RETURNING 1", noId, claimed);
    }

    @Test
    void badBulkBodiesAndBoundsAre4xxWithAnId() throws Exception {
        String tooMany = LongStream.rangeClosed(1, 1001).mapToObj(Long::toString).collect(Collectors.joining(","));
        List<String[]> cases = List.of(
                new String[] {"{\"action\":\"redrive\",\"ids\":[" + tooMany + "]}", "400", "BILLING0242E"},
                new String[] {"not json", "400", "BILLING0241E"},
                new String[] {"[1]", "400", "BILLING0241E"},
                // a member named twice: the last one won, and discarded row 3 of a call that named 999999 first
                new String[] {"{\"ids\":[999999],\"action\":\"discard\",\"ids\":[3]}", "400", "BILLING0241E"},
                new String[] {"{\"action\":\"redrive\",\"action\":\"discard\",\"ids\":[1]}", "400",
                        "BILLING0241E"},
                new String[] {"{\"action\":\"discard\",\"idz\":[1],\"ids\":[1]}", "400", "BILLING0241E"},
                new String[] {"{\"action\":\"explode\",\"ids\":[1]}", "400", "BILLING0241E"},
                new String[] {"{\"action\":\"discard\"}", "400", "BILLING0241E"},
                new String[] {"{\"action\":\"discard\",\"ids\":[1],\"consumer\":\"billing\"}", "400", "BILLING0241E"},
                new String[] {"{\"action\":\"discard\",\"ids\":[]}", "400", "BILLING0241E"},
                new String[] {"{\"action\":\"discard\",\"ids\":[0]}", "400", "BILLING0241E"},
                new String[] {"{\"action\":\"discard\",\"ids\":[\"1\"]}", "400", "BILLING0241E"},
                new String[] {"{\"action\":\"discard\",\"ids\":[99999999999999999999]}", "400", "BILLING0241E"},
                new String[] {"{\"action\":\"discard\",\"consumer\":\"nobody\",\"failure\":\"X\"}", "400", "BILLING0238E"},
                new String[] {"{\"action\":\"discard\",\"consumer\":\"billing\",\"failure\":\"" + "x".repeat(201) + "\"}",
                        "400", "BILLING0238E"},
                new String[] {"{\"action\":\"discard\",\"consumer\":\"billing\",\"failure\":\"a\\u0000b\"}", "400",
                        "BILLING0238E"},
                new String[] {"{\"action\":\"discard\",\"consumer\":\"billing\"}", "400", "BILLING0241E"},
                new String[] {"{\"action\":\"discard\",\"ids\":[1]," + "\"p\":\"" + "x".repeat(70_000) + "\"}", "413",
                        "BILLING0241E"});
        for (String[] c : cases) {
            HttpResponse<String> answer = bulk(c[0], Api.OPERATOR);
            String shown = c[0].length() > 80 ? c[0].substring(0, 80) + "..." : c[0];
            assertEquals(Integer.parseInt(c[1]), answer.statusCode(), shown + " -> " + answer.body());
            assertTrue(answer.body().contains("\"" + c[2] + ": "), shown + " -> " + answer.body());
        }
        HttpResponse<String> groups = Api.call("GET", API + "/dead-letters/groups?limit=1001", Api.READER);
        assertEquals(400, groups.statusCode());
        assertTrue(groups.body().contains("BILLING0236E"), groups.body());
        HttpResponse<String> notJson = Api.call("POST", API + "/dead-letters/bulk", Api.OPERATOR, "text/plain",
                "{\"action\":\"discard\",\"ids\":[1]}".getBytes(StandardCharsets.UTF_8));
        assertEquals(415, notJson.statusCode(), notJson.body());
        assertTrue(notJson.body().contains("BILLING0232E"), notJson.body());
    }
}
