package io.github.jakartainbox.it;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import jakarta.json.Json;
import jakarta.json.JsonObject;
import jakarta.json.JsonReader;
import java.io.IOException;
import java.io.StringReader;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Readiness of the packaged billing service through normal starts (issue 26): a server that starts, or starts again
 * after a kill -9 (its group still holds the dead members until their session times out, 45 s), shows its channels as
 * {@code starting} (UP), never DOWN, until they consume. Before, every such start read DOWN (HEALTH0103E "last
 * heartbeated never ago") for up to a minute.
 */
class ReadinessRestartIT {

    private static final Duration WAIT = Duration.ofMinutes(3);
    private static final List<String> CHANNELS = List.of("orders-billing", "orders-analytics", "orders-status",
            "invoices-mailer");
    private static final Map<String, String> ENV = Map.copyOf(
            BillingServer.channels("ready-" + UUID.randomUUID().toString().substring(0, 8)));

    /** Every readiness answer read during a start, in order. */
    private final List<JsonObject> answers = new ArrayList<>();

    @AfterEach
    void stopServer() throws Exception {
        BillingServer.run("stop", ENV);
    }

    @Test
    void aStartAndAStartAfterAKillShowStartingChannelsAndNeverDown() throws Exception {
        BillingServer.run("start", ENV);
        awaitConsuming();
        List<JsonObject> firstStart = List.copyOf(answers);
        assertNeverDown(firstStart);

        BillingServer.kill();
        answers.clear();
        BillingServer.run("start", ENV);
        awaitConsuming();
        assertNeverDown(answers);
        assertTrue(answers.stream().anyMatch(a -> CHANNELS.stream().anyMatch(c -> state(a, c).startsWith("starting"))),
                "after a kill the group waits for the dead members' session timeout: some channel read 'starting' "
                        + "first; answers: " + answers);
        System.out.printf("readiness: %d answers in the first start, %d after the kill, none DOWN%n",
                firstStart.size(), answers.size());
    }

    /** Reads /health/ready every 250 ms, keeping each answer, until every channel is consuming. */
    private void awaitConsuming() {
        await().atMost(WAIT).pollInterval(Duration.ofMillis(250)).ignoreException(IOException.class).until(() -> {
            HttpResponse<String> response = Api.call("GET", TestEnv.url("/health/ready"), null);
            JsonObject body;
            try (JsonReader reader = Json.createReader(new StringReader(response.body()))) {
                body = Json.createObjectBuilder(reader.readObject()).add("httpStatus", response.statusCode()).build();
            }
            answers.add(body);
            return CHANNELS.stream().allMatch(c -> state(body, c).equals("consuming"));
        });
    }

    private static void assertNeverDown(List<JsonObject> read) {
        assertTrue(!read.isEmpty(), "readiness answered");
        for (JsonObject answer : read) {
            assertEquals("UP", channelsCheck(answer).getString("status"), "inbox-channels during a start: " + answer);
        }
    }

    private static JsonObject channelsCheck(JsonObject answer) {
        return answer.getJsonArray("checks").stream().map(v -> v.asJsonObject())
                .filter(c -> c.getString("name").equals("inbox-channels")).findFirst()
                .orElseThrow(() -> new AssertionError("no inbox-channels check in " + answer));
    }

    private static String state(JsonObject answer, String channel) {
        JsonObject data = channelsCheck(answer).getJsonObject("data");
        return data == null ? "" : data.getString(channel + ".state", "");
    }
}
