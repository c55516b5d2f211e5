package io.github.jakartainbox.inbox.health;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.jakartainbox.testing.Db;
import io.github.jakartainbox.testing.Deployments;
import io.github.jakartainbox.testing.TestEnv;
import io.github.jakartainbox.testing.Waiting;
import io.github.jakartainbox.testing.probes.FailingDeserializer;
import jakarta.json.Json;
import jakarta.json.JsonObject;
import jakarta.json.JsonReader;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Duration;
import java.util.Properties;
import java.util.function.Predicate;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.shrinkwrap.api.spec.WebArchive;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * MicroProfile Health on the test server, as a Kubernetes probe sees it (HTTP, no login): readiness follows the
 * inbox database and each {@code @Idempotent} channel; liveness ignores the database; an overdue purge and open
 * dead letters show in the data. The database is stopped for this server only (its own database refuses
 * connections for a while), and the channel shut down is the test channel "probe-health", last.
 */
@ExtendWith(ArquillianExtension.class)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class HealthIT {

    private static final Duration WAIT = Duration.ofSeconds(90);
    /** How long a Kubernetes probe waits for an answer by default ({@code timeoutSeconds}). */
    private static final Duration PROBE_TIMEOUT = Duration.ofSeconds(1);
    private static final String DB_NAME = System.getenv().getOrDefault("DB_NAME", "billing");
    private static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    private final Db db = Db.overJdbc();

    @Deployment(testable = false)
    static WebArchive deployment() {
        return Deployments.billingWithProbes();
    }

    private record Health(int status, JsonObject body) {
        JsonObject check(String name) {
            return body.getJsonArray("checks").stream().map(v -> v.asJsonObject())
                    .filter(c -> c.getString("name").equals(name)).findFirst()
                    .orElseThrow(() -> new AssertionError("no check " + name + " in " + body));
        }

        String state(String name) {
            return check(name).getString("status");
        }

        String data(String name, String key) {
            JsonObject data = check(name).getJsonObject("data");
            return data == null || !data.containsKey(key) ? null : data.get(key).toString().replace("\"", "");
        }
    }

    private static Health get(String path) throws Exception {
        return get(path, Duration.ofSeconds(30));
    }

    /** A GET that fails the test (HttpTimeoutException) when the answer takes longer than {@code timeout}. */
    private static Health get(String path, Duration timeout) throws Exception {
        HttpResponse<String> response = HTTP.send(HttpRequest.newBuilder(URI.create(TestEnv.url(path)))
                .timeout(timeout).GET().build(), HttpResponse.BodyHandlers.ofString());
        try (JsonReader reader = Json.createReader(new StringReader(response.body()))) {
            return new Health(response.statusCode(), reader.readObject());
        }
    }

    /** Reads /health/ready until {@code done} holds or WAIT passes; returns the last answer either way. */
    private static Health awaitReady(Predicate<Health> done) throws Exception {
        return Waiting.lastValue(Waiting.await().atMost(WAIT).pollInterval(Duration.ofMillis(500)),
                () -> get("/health/ready"), health -> holds(done, health));
    }

    /** A body without the check or datum the condition reads is one that does not meet it yet. */
    private static boolean holds(Predicate<Health> done, Health health) {
        try {
            return done.test(health);
        } catch (RuntimeException missing) {
            return false;
        }
    }

    /** Runs statements on the maintenance database "postgres" as the superuser (the test database's own state). */
    private static void admin(String... sql) throws Exception {
        try (Connection c = DriverManager.getConnection("jdbc:postgresql://127.0.0.1:5432/postgres", "postgres", "");
             Statement s = c.createStatement()) {
            for (String statement : sql) {
                s.execute(statement);
            }
        }
    }

    @Test
    @Order(1)
    void readinessIsUpWhenTheDatabaseAnswersTheSchemaIsCurrentAndEveryKafkaChannelConsumes() throws Exception {
        String[] channels = {"orders-billing", "orders-analytics", "probe-kafka", "probe-health", "orders-status"};
        // UP comes before "consuming": a channel still joining its group is "starting" (UP) within the start grace
        Health ready = awaitReady(h -> h.status() == 200 && java.util.Arrays.stream(channels)
                .allMatch(c -> "consuming".equals(h.data("inbox-channels", c + ".state"))));
        assertEquals(200, ready.status(), "readiness: " + ready.body());
        assertEquals("UP", ready.state("inbox-database"));
        assertEquals(ready.data("inbox-database", "schema-expected"), ready.data("inbox-database", "schema-version"),
                "the schema is at the version the application ships");
        assertEquals("UP", ready.state("inbox-channels"));
        for (String channel : channels) {
            assertEquals("consuming", ready.data("inbox-channels", channel + ".state"), channel + ": " + ready.body());
        }
        // a channel without an inbox is watched too: liberty-kafka shuts it down as silently
        assertEquals(InboxChannelsCheck.NO_INBOX, ready.data("inbox-channels", "orders-status.consumer"),
                ready.body().toString());
        assertEquals("billing", ready.data("inbox-channels", "orders-billing.consumer"));
        assertEquals("UP", ready.state("billing-unmailed-invoices"), ready.body().toString());
        assertTrue(Long.parseLong(ready.data("billing-unmailed-invoices", "unmailed")) >= 0,
                "the compensation query's count is in the readiness data: " + ready.body());
        assertEquals("PT10M", ready.data("billing-unmailed-invoices", "older-than"));
        // the purge timer's first run came before the tables were made at start and failed with INBOX0008E, which
        // readiness then showed (purge-last-error, purge-overdue true) while UP
        String log = Files.readString(Path.of("target/liberty/wlp/usr/servers/inbox-it-" + TestEnv.HTTP_PORT
                + "/logs/messages.log"), StandardCharsets.UTF_8);
        assertFalse(log.contains("INBOX0008E"), "no purge (nor anything else) used the inbox before it was ready");
    }

    @Test
    @Order(2)
    void openDeadLettersAreCountedPerConsumerWithTheAgeOfTheOldest() throws Exception {
        String consumer = "health-dl-" + System.nanoTime();
        db.number("INSERT INTO inbox_dead_letter (consumer, event_id, error, attempts, first_failed_at) "
                + "VALUES (?, 'e1', 'simulated failure', 3, now() - interval '2 hours') RETURNING id", consumer);
        db.number("INSERT INTO inbox_dead_letter (consumer, event_id, error, attempts) "
                + "VALUES (?, 'e2', 'simulated failure', 3) RETURNING id", consumer);
        try {
            Health ready = get("/health/ready");
            assertEquals("2", ready.data("inbox-database", "dead-letters." + consumer), ready.body().toString());
            Duration age = Duration.parse(ready.data("inbox-database", "dead-letters." + consumer + ".oldest-age"));
            assertTrue(age.compareTo(Duration.ofHours(2)) >= 0, "the oldest failed 2 hours ago: " + age);
        } finally {
            db.number("WITH d AS (UPDATE inbox_dead_letter SET discarded_at = now(), resolved_by = 'HealthIT' "
                    + "WHERE consumer = ? RETURNING 1) SELECT count(*) FROM d", consumer);
        }
    }

    @Test
    @Order(3)
    void anOverduePurgeShowsInTheDataButKeepsReadinessUp() throws Exception {
        // another "server" holds the purge lease, so this server's timer cannot run and clear the state meanwhile
        db.number("WITH u AS (UPDATE inbox_purge_state SET owner = 'HealthIT', leased_until = now() + interval '1 hour', "
                + "last_started_at = now() - interval '3 hours', last_finished_at = now() - interval '3 hours', "
                + "last_error = NULL RETURNING 1) SELECT count(*) FROM u");
        try {
            Health ready = get("/health/ready");
            assertEquals("true", ready.data("inbox-database", "purge-overdue"), ready.body().toString());
            assertEquals("UP", ready.state("inbox-database"), "an overdue purge alone does not take the server out");
        } finally {
            db.number("WITH u AS (UPDATE inbox_purge_state SET owner = NULL, leased_until = NULL, "
                    + "last_finished_at = now() RETURNING 1) SELECT count(*) FROM u");
        }
        assertEquals("false", get("/health/ready").data("inbox-database", "purge-overdue"));
    }

    @Test
    @Order(4)
    void aDatabaseThatRefusesWritesMakesReadinessDownWhileItLasts() throws Exception {
        // every new session read-only (SQLSTATE 25006 for each write), as the consumers meet it: they wait, so must
        // the load balancer
        admin("ALTER DATABASE " + DB_NAME + " SET default_transaction_read_only = on",
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '" + DB_NAME + "'");
        try {
            Health ready = awaitReady(h -> "DOWN".equals(h.state("inbox-database")));
            assertEquals(503, ready.status(), ready.body().toString());
            String reason = ready.data("inbox-database", "reason");
            assertTrue(reason.startsWith("HEALTH0003E") && reason.contains("read-only"), ready.body().toString());
        } finally {
            admin("ALTER DATABASE " + DB_NAME + " RESET default_transaction_read_only",
                    "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '" + DB_NAME + "'");
        }
        Health again = awaitReady(h -> "UP".equals(h.state("inbox-database")));
        assertEquals("UP", again.state("inbox-database"), "up again once the database takes writes: " + again.body());
    }

    @Test
    @Order(5)
    void aStoppedDatabaseMakesReadinessDownWhileLivenessStaysUp() throws Exception {
        admin("ALTER DATABASE " + DB_NAME + " ALLOW_CONNECTIONS false",
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '" + DB_NAME + "'");
        try {
            // a probe waits 1 s (Kubernetes' default timeoutSeconds): each answer must come within it, saying DOWN
            for (int i = 0; i < 3; i++) {
                long started = System.nanoTime();
                Health ready = get("/health/ready", PROBE_TIMEOUT);
                Duration took = Duration.ofNanos(System.nanoTime() - started);
                assertEquals(503, ready.status(), "read " + i + " after " + took + ": " + ready.body());
                assertEquals("DOWN", ready.state("inbox-database"));
                assertTrue(ready.data("inbox-database", "reason").startsWith("HEALTH0001E"), ready.body().toString());
            }
            Health live = get("/health/live");
            assertEquals(200, live.status(), "liveness: a restart would not bring the database back: " + live.body());
            assertEquals("UP", live.body().getString("status"));
        } finally {
            admin("ALTER DATABASE " + DB_NAME + " ALLOW_CONNECTIONS true");
        }
        Health again = awaitReady(h -> "UP".equals(h.state("inbox-database")));
        assertEquals("UP", again.state("inbox-database"), "up again once the database answers: " + again.body());
    }

    @Test
    @Order(6)
    void aChannelLibertyKafkaShutDownMakesReadinessDownNamingIt() throws Exception {
        Health before = awaitReady(h -> "consuming".equals(h.data("inbox-channels", "probe-health.state"))
                && !"0".equals(h.data("inbox-channels", "probe-health.assigned-partitions")));
        assertEquals("consuming", before.data("inbox-channels", "probe-health.state"), before.body().toString());
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, TestEnv.BOOTSTRAP);
        p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(p)) {
            producer.send(new ProducerRecord<>("it.probe.health", "k", FailingDeserializer.POISON)).get();
        }
        Health ready = awaitReady(h -> "DOWN".equals(h.state("inbox-channels")));
        assertEquals(503, ready.status(), ready.body().toString());
        assertEquals("DOWN", ready.state("inbox-channels"));
        assertTrue(ready.data("inbox-channels", "probe-health.state").startsWith("HEALTH010"),
                "the shut channel is named: " + ready.body());
        assertEquals("consuming", ready.data("inbox-channels", "orders-billing.state"), "the others go on");
        assertEquals("UP", get("/health/live").body().getString("status"));
    }
}
