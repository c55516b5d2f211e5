package io.github.jakartainbox.inbox.jms;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.jakartainbox.billing.SampleEvents.Event;
import io.github.jakartainbox.billing.SampleEvents;
import io.github.jakartainbox.testing.Api;
import io.github.jakartainbox.testing.Db;
import io.github.jakartainbox.testing.Deployments;
import io.github.jakartainbox.testing.TestEnv;
import io.github.jakartainbox.testing.Waiting;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Duration;
import java.util.Base64;
import java.util.UUID;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.shrinkwrap.api.spec.WebArchive;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A database outage does not use up a message-driven bean's attempts. As a client: the tests' database refuses
 * connections ({@code ALLOW_CONNECTIONS false}, its sessions ended) while an order goes to the JMS queue of consumer
 * {@code billing-jms} ({@code POST /billing/api/jms/orders}; 3 attempts, {@code jms.outage-wait} PT2S in the test
 * server): its deliveries wait out the outage and roll back, more of them than {@code retry.max-attempts}; once the
 * database is back the order is invoiced once, and nothing is dead-lettered. The deliveries are counted from the
 * server's log ({@code INBOX0705W} lines with the event id). And a {@code billing-jms} dead letter is re-driven to
 * its JMS queue by the operator API.
 */
@ExtendWith(ArquillianExtension.class)
class JmsOutageIT {

    private static final String DB_NAME = System.getenv().getOrDefault("DB_NAME", "billing");
    private static final Path LOG = Path.of(System.getProperty("wlp.dir", "target/liberty/wlp"), "usr/servers",
            System.getProperty("it.server.name", "inbox-it-9081"), "logs/messages.log");

    @Deployment(testable = false)
    static WebArchive deployment() {
        return Deployments.billingWithProbes();
    }

    private static void admin(String... sql) throws Exception {
        try (Connection c = DriverManager.getConnection("jdbc:postgresql://127.0.0.1:5432/postgres", "postgres", "");
             Statement s = c.createStatement()) {
            for (String statement : sql) {
                s.execute(statement);
            }
        }
    }

    private static long outageWaits(String eventId) throws Exception {
        return Files.readAllLines(LOG, StandardCharsets.UTF_8).stream()
                .filter(l -> l.contains("INBOX0705W") && l.contains(eventId)).count();
    }

    private static HttpResponse<String> asOperator(String method, String path, String body) throws Exception {
        HttpRequest request = HttpRequest.newBuilder(URI.create(TestEnv.url(path)))
                .header("Content-Type", "application/json")
                .header("Authorization", "Basic " + Base64.getEncoder().encodeToString(("operator:"
                        + Api.OPERATOR.password()).getBytes(StandardCharsets.UTF_8)))
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody()
                        : HttpRequest.BodyPublishers.ofString(body)).build();
        return HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build().send(request, HttpResponse.BodyHandlers.ofString());
    }

    /**
     * The database refuses the invoice (a CHECK constraint the test adds: SQLState 23514, permanent), so the JMS
     * message is dead-lettered and consumed; with the constraint gone, the operator's re-drive sends the stored
     * body to the JMS queue again and the order is invoiced once.
     */
    @Test
    void aDeadLetterOfTheJmsConsumerIsReDrivenToItsQueue() throws Exception {
        String prefix = "jms-redrive-" + UUID.randomUUID().toString().substring(0, 8);
        Event e = SampleEvents.event(UUID.randomUUID().toString(), prefix + "-1", "12.00", "EUR");
        String constraint = "refuse_" + prefix.replace('-', '_');
        try (Connection c = DriverManager.getConnection("jdbc:postgresql://127.0.0.1:5432/" + DB_NAME, "postgres",
                "");
             Statement s = c.createStatement()) {
            s.execute("ALTER TABLE invoice ADD CONSTRAINT " + constraint + " CHECK (order_id NOT LIKE '" + prefix
                    + "%') NOT VALID");
            try {
                assertEquals(202, asOperator("POST", "/billing/api/jms/orders", e.json()).statusCode());
                Db db = Db.overJdbc(DB_NAME);
                assertEquals(1, db.await(Duration.ofSeconds(60), n -> n >= 1, "SELECT count(*) FROM inbox_dead_letter "
                        + "WHERE consumer = 'billing-jms' AND event_id = ?", e.eventId()), "dead-lettered");
                String error = db.text("SELECT error FROM inbox_dead_letter WHERE consumer = 'billing-jms' "
                        + "AND event_id = ?", e.eventId());
                assertTrue(error.contains("INBOX0208E") && error.contains("23514"), error);
            } finally {
                s.execute("ALTER TABLE invoice DROP CONSTRAINT IF EXISTS " + constraint);
            }
        }
        Db db = Db.overJdbc(DB_NAME);
        long id = db.number("SELECT id FROM inbox_dead_letter WHERE consumer = 'billing-jms' AND event_id = ?",
                e.eventId());
        HttpResponse<String> redrive = asOperator("POST", "/billing/api/dead-letters/" + id + "/redrive", null);
        assertEquals(200, redrive.statusCode(), redrive.body());
        assertEquals(1, db.await(Duration.ofSeconds(60), n -> n >= 1, "SELECT count(*) FROM invoice WHERE order_id = ?",
                e.orderId()), "the re-driven message is consumed by billing-jms and invoiced");
        assertEquals(1, db.number("SELECT count(*) FROM inbox WHERE consumer = 'billing-jms' AND event_id = ?",
                e.eventId()));
        assertEquals(1, db.number("SELECT count(*) FROM inbox_dead_letter WHERE consumer = 'billing-jms' AND "
                + "event_id = ? AND redriven_at IS NOT NULL AND resolved_by = 'operator'", e.eventId()));
        assertEquals(0, db.number("SELECT count(*) FROM inbox WHERE consumer = 'billing' AND event_id = ?",
                e.eventId()), "not sent to the Kafka consumers");
    }

    @Test
    void anOutageLongerThanTheAttemptsDoesNotDeadLetterTheMessage() throws Exception {
        Event e = SampleEvents.event(UUID.randomUUID().toString(), "jms-outage-" + UUID.randomUUID(), "10.00", "EUR");
        admin("ALTER DATABASE " + DB_NAME + " ALLOW_CONNECTIONS false",
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '" + DB_NAME + "'");
        long waits;
        try {
            HttpRequest send = HttpRequest.newBuilder(URI.create(TestEnv.url("/billing/api/jms/orders")))
                    .header("Content-Type", "application/json")
                    .header("Authorization", "Basic " + Base64.getEncoder().encodeToString(("operator:"
                            + Api.OPERATOR.password()).getBytes(StandardCharsets.UTF_8)))
                    .POST(HttpRequest.BodyPublishers.ofString(e.json())).build();
            assertEquals(202, HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build().send(send, HttpResponse.BodyHandlers.ofString()).statusCode(),
                    "the send needs no database");
            waits = Waiting.lastValue(Waiting.await().atMost(Duration.ofSeconds(90))
                    .pollInterval(Duration.ofMillis(500)), () -> outageWaits(e.eventId()), n -> n >= 5);
        } finally {
            admin("ALTER DATABASE " + DB_NAME + " ALLOW_CONNECTIONS true");
        }
        assertTrue(waits >= 5, "the message was delivered into the outage at least 5 times (retry.max-attempts 3), "
                + "each waiting it out: " + waits);
        Db db = Db.overJdbc(DB_NAME);
        assertEquals(1, db.await(Duration.ofSeconds(90), n -> n >= 1,
                "SELECT count(*) FROM invoice WHERE order_id = ?", e.orderId()), "invoiced once the database is back");
        assertEquals(1, db.number("SELECT count(*) FROM inbox WHERE consumer = 'billing-jms' AND event_id = ?",
                e.eventId()));
        assertEquals(0, db.number("SELECT count(*) FROM inbox_dead_letter WHERE consumer = 'billing-jms' AND "
                + "event_id = ?", e.eventId()), "an outage is not the event's fault");
    }
}
