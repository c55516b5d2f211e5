package io.github.jakartainbox.inbox.health;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.jakartainbox.testing.Api;
import io.github.jakartainbox.testing.BillingServer;
import io.github.jakartainbox.testing.TestEnv;
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
import java.util.Properties;
import java.util.UUID;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Readiness of the packaged billing service through normal starts (issue 26): a server that starts, or starts again
 * after a kill -9 into a group whose rebalance waits for a member (here a consumer of the test's that stopped
 * polling), shows its channels as {@code starting} (UP), never DOWN, until they consume. Before, every such start
 * read DOWN (HEALTH0103E "last heartbeated never ago") until the rebalance ended, up to a minute.
 */
class ReadinessRestartIT {

    private static final Duration WAIT = Duration.ofMinutes(3);
    private static final List<String> CHANNELS = List.of("orders-billing", "orders-analytics", "orders-status",
            "invoices-mailer");
    private static final Map<String, String> ENV = environment();

    /** Every readiness answer read during a start, in order. */
    private final List<JsonObject> answers = new ArrayList<>();

    /** Own topic and groups; the example's shape (6 partitions, 2 copies per order channel), not the other ITs'. */
    private static Map<String, String> environment() {
        Map<String, String> env = BillingServer.channels("ready-" + UUID.randomUUID().toString().substring(0, 8));
        env.put("BILLING_ORDERS_CONFIRMED_PARTITIONS", "6");
        env.put("MP_MESSAGING_INCOMING_ORDERS_BILLING_CONCURRENCY", "2");
        env.put("MP_MESSAGING_INCOMING_ORDERS_ANALYTICS_CONCURRENCY", "2");
        return Map.copyOf(env);
    }

    @AfterEach
    void stopServer() throws Exception {
        BillingServer.run("stop", ENV);
    }

    @Test
    void aStartAndAStartAfterAKillIntoAWaitingRebalanceShowStartingChannelsNeverDown() throws Exception {
        BillingServer.run("start", ENV);
        awaitConsuming();
        List<JsonObject> firstStart = List.copyOf(answers);
        assertNeverDown(firstStart);
        // the service created its topic with 6 partitions, which the channel's 2 copies share
        await().atMost(WAIT).pollInterval(Duration.ofMillis(500)).until(() -> {
            JsonObject data = channelsCheck(readiness()).getJsonObject("data");
            return data.getInt("orders-billing.assigned-partitions") == 6
                    && data.containsKey("orders-billing.client.inbox-kafka-orders-billing-2");
        });

        BillingServer.kill();
        // a member of the billing group that joined and then does not poll: the server's join waits for it to rejoin
        // (up to its max.poll.interval.ms) until it leaves, as a rebalance waits for a slow or dead member (the old
        // code read DOWN, "last heartbeated never ago", all that time)
        KafkaConsumer<String, String> holder = holder();
        try {
            answers.clear();
            BillingServer.run("start", ENV);
            awaitAnswer(a -> state(a, "orders-billing").startsWith("starting")
                    || "DOWN".equals(channelsStatus(a)));
        } finally {
            holder.close(); // leaves the group: the rebalance completes
        }
        awaitConsuming();
        assertNeverDown(answers);
        long starting = answers.stream().filter(a -> state(a, "orders-billing").startsWith("starting")).count();
        assertTrue(starting > 0, "orders-billing read 'starting' while its group's rebalance waited; answers: "
                + answers);
        System.out.printf("readiness: %d answers in the first start, %d after the kill (%d of them 'starting' for "
                + "orders-billing), none DOWN%n", firstStart.size(), answers.size(), starting);
    }

    /** @return a consumer in the server's billing group that holds partitions and then does not poll */
    private static KafkaConsumer<String, String> holder() {
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, TestEnv.BOOTSTRAP);
        p.put(ConsumerConfig.GROUP_ID_CONFIG, ENV.get("MP_MESSAGING_INCOMING_ORDERS_BILLING_GROUP_ID"));
        p.put(ConsumerConfig.MAX_POLL_INTERVAL_MS_CONFIG, "300000");
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        KafkaConsumer<String, String> holder = new KafkaConsumer<>(p);
        holder.subscribe(List.of(ENV.get("MP_MESSAGING_INCOMING_ORDERS_BILLING_TOPIC")));
        // joins once the killed server's members have timed out (their session, 45 s)
        await().atMost(WAIT).until(() -> {
            holder.poll(Duration.ofMillis(500));
            return !holder.assignment().isEmpty();
        });
        return holder;
    }

    /** Reads /health/ready every 250 ms, keeping each answer, until every channel is consuming. */
    private void awaitConsuming() {
        awaitAnswer(body -> CHANNELS.stream().allMatch(c -> state(body, c).equals("consuming")));
    }

    /** Reads /health/ready every 250 ms, keeping each answer, until one satisfies {@code done}. */
    private void awaitAnswer(java.util.function.Predicate<JsonObject> done) {
        await().atMost(WAIT).pollInterval(Duration.ofMillis(250)).ignoreException(IOException.class).until(() -> {
            JsonObject body = readiness();
            answers.add(body);
            return done.test(body);
        });
    }

    /** @return /health/ready's answer, with its HTTP status as "httpStatus" */
    private static JsonObject readiness() throws Exception {
        HttpResponse<String> response = Api.call("GET", TestEnv.url("/health/ready"), null);
        try (JsonReader reader = Json.createReader(new StringReader(response.body()))) {
            return Json.createObjectBuilder(reader.readObject()).add("httpStatus", response.statusCode()).build();
        }
    }

    private static void assertNeverDown(List<JsonObject> read) {
        assertTrue(!read.isEmpty(), "readiness answered");
        for (JsonObject answer : read) {
            // no check at all while the application starts (mpHealth answers 503 with no checks then)
            assertTrue(!"DOWN".equals(channelsStatus(answer)), "inbox-channels during a start: " + answer);
        }
    }

    /** @return the inbox-channels check's status, empty when the answer has no such check */
    private static String channelsStatus(JsonObject answer) {
        return answer.getJsonArray("checks").stream().map(v -> v.asJsonObject())
                .filter(c -> c.getString("name").equals("inbox-channels")).map(c -> c.getString("status"))
                .findFirst().orElse("");
    }

    private static JsonObject channelsCheck(JsonObject answer) {
        return answer.getJsonArray("checks").stream().map(v -> v.asJsonObject())
                .filter(c -> c.getString("name").equals("inbox-channels")).findFirst()
                .orElseThrow(() -> new AssertionError("no inbox-channels check in " + answer));
    }

    private static String state(JsonObject answer, String channel) {
        if (channelsStatus(answer).isEmpty()) {
            return "";
        }
        JsonObject data = channelsCheck(answer).getJsonObject("data");
        return data == null ? "" : data.getString(channel + ".state", "");
    }
}
