package io.github.jakartainbox.billing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.jakartainbox.billing.SampleEvents.Event;
import io.github.jakartainbox.testing.Api;
import io.github.jakartainbox.testing.BillingServer;
import io.github.jakartainbox.testing.Db;
import io.github.jakartainbox.testing.Effects;
import io.github.jakartainbox.testing.TestEnv;
import io.github.jakartainbox.testing.Waiting;
import java.io.IOException;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.awaitility.core.ConditionFactory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The deployed billing service (server "billing", the packaged WAR) is stopped gracefully and killed with
 * SIGKILL while it consumes 1,000 events delivered 1,300 times and a backlog of 10,000 more sent just before the
 * graceful stop (which must let the groups in flight finish before the EJB module stops); afterwards every event has exactly one invoice
 * and one inbox row per consumer. Runs after the Arquillian tests, against the same broker, once with the plain
 * inbox (the tests' database) and once partitioned by month (a fresh database, migrated at start).
 */
class LibertyRestartIT {

    private static final Duration WAIT = Duration.ofMinutes(3);
    private static final int EVENTS = 1000;
    private static final int DUPLICATES = 300;
    /** Events sent just before the graceful stop: enough to keep both consumers busy until the stop reaches them. */
    private static final int STOP_BACKLOG = 10_000;

    private static final String PLAIN_DB = System.getenv().getOrDefault("DB_NAME", "billing");
    private static final String MONTHLY_DB = PLAIN_DB + "_monthly";

    /** Environment of the server process: which database, which inbox mode (MicroProfile Config reads env). */
    private static Map<String, String> serverEnvironment = Map.of();
    private Db db = Db.overJdbc();

    /** Each test leaves the server stopped, passed or failed, so that the next one can start it. */
    @AfterEach
    void stopServer() throws Exception {
        BillingServer.run("stop", serverEnvironment);
    }

    @Test
    void plainInboxKeepsEveryEventToOneInvoiceAcrossAStopAndAKill() throws Exception {
        serverEnvironment = ownChannels(Map.of("DB_NAME", PLAIN_DB));
        db = Db.overJdbc(PLAIN_DB);
        restartMidStream();
    }

    @Test
    void monthlyPartitionedInboxKeepsEveryEventToOneInvoiceAcrossAStopAndAKill() throws Exception {
        Db.recreate(MONTHLY_DB);
        serverEnvironment = ownChannels(Map.of("DB_NAME", MONTHLY_DB, "INBOX_PARTITIONING", "monthly"));
        db = Db.overJdbc(MONTHLY_DB);
        restartMidStream();
        assertEquals("p", db.text("SELECT relkind::text FROM pg_class WHERE relname = 'inbox'"),
                "the inbox was partitioned by the migration at start");
        assertEquals(2L * (EVENTS + STOP_BACKLOG), db.number("SELECT count(*) FROM inbox i JOIN invoice v ON v.event_id = i.event_id "
                + "WHERE v.order_id LIKE 'restart-%' AND i.event_month = date_trunc('month', now() AT TIME ZONE 'UTC')::date "
                + "AND i.processed_at > now() - interval '10 minutes'"),
                "every row of the run in this month's partition (the event ids are UUIDv7s of now)");
    }

    /**
     * A method without {@code @Idempotent} on an {@code inbox-kafka} channel run in groups fails the deployment
     * naming the channel and its group size (INBOX0621E): after a rollback its records would run without a
     * transaction. The example's orders-status consumer is such a method at {@code group.max-size=1}; raised to 10
     * by the environment, the application does not start.
     */
    @Test
    void aGroupedChannelWhoseMethodHasNoInboxFailsTheDeployment() throws Exception {
        serverEnvironment = ownChannels(Map.of("DB_NAME", PLAIN_DB,
                "MP_MESSAGING_INCOMING_ORDERS_STATUS_GROUP_MAX_SIZE", "10"));
        BillingServer.run("start", serverEnvironment);
        String log = Waiting.lastValue(Waiting.await("the application's start or its failure").atMost(WAIT),
                () -> Files.readString(BillingServer.log()),
                text -> text.contains("CWWKZ0002E") || text.contains("CWWKZ0001I"));
        assertTrue(log.contains("INBOX0621E: Channel orders-status (inbox-kafka, group.max-size 10)"), log);
        assertTrue(log.contains("CWWKZ0002E") && !log.contains("CWWKZ0001I"), "the application did not start");
    }

    /**
     * A service started while its database refuses connections (a fresh database with {@code ALLOW_CONNECTIONS
     * false}, as during an outage) starts anyway, says so (INBOX0013W, BILLING0212W), reports readiness DOWN and keeps
     * its deliveries unacknowledged; once the database answers it migrates both schemas and processes every event
     * once. Before, the deployment failed and nothing started it again, while the server answered.
     */
    @Test
    void aServiceStartedDuringADatabaseOutageStartsAndCatchesUpOnceItAnswers() throws Exception {
        String database = PLAIN_DB + "_late";
        Db.recreate(database);
        allowConnections(database, false);
        try {
            serverEnvironment = ownChannels(Map.of("DB_NAME", database));
            String run = "late-" + UUID.randomUUID().toString().substring(0, 8);
            List<Event> events = SampleEvents.events(run, 50);
            try (KafkaProducer<String, String> producer = SampleEvents.producer(TestEnv.BOOTSTRAP)) {
                SampleEvents.send(producer, serverEnvironment.get("MP_MESSAGING_INCOMING_ORDERS_BILLING_TOPIC"),
                        SampleEvents.withDuplicates(events, 10, new Random(7)));
            }
            BillingServer.run("start", serverEnvironment);
            HttpResponse<String> ready = awaitStatus("/health/ready", 503);
            assertEquals(503, ready.statusCode(), "readiness DOWN while the database refuses: " + ready.body());
            assertTrue(ready.body().contains("inbox-database"), ready.body());
            assertEquals(200, awaitStatus("/billing/", 200).statusCode(), "the application started");
            String log = Files.readString(BillingServer.log());
            assertTrue(log.contains("INBOX0013W") && log.contains("BILLING0212W"), "the start says why it waits");
            assertTrue(!log.contains("CWWKZ0002E"), "no application failed to start");
            Thread.sleep(5_000); // deliveries arrive and wait
        } finally {
            allowConnections(database, true);
        }
        db = Db.overJdbc(database);
        String pattern = "late-%";
        assertEquals(1, db.await(WAIT, n -> n == 1, "SELECT count(*) FROM pg_class WHERE relname = 'invoice'"),
                "the billing tables migrated once the database answers");
        assertEquals(50, db.await(WAIT, n -> n >= 50, "SELECT count(*) FROM invoice WHERE order_id LIKE ?", pattern),
                "every event invoiced once the database answers");
        // order-status keeps no inbox: it waits out the outage itself (BILLING0215W); before, its channel was shut
        // down for good by the first delivery that met the outage, and readiness, which watched only @Idempotent
        // channels, stayed UP
        assertEquals(50, db.await(WAIT, n -> n >= 50, "SELECT count(*) FROM order_status WHERE order_id LIKE ?",
                pattern), "order-status set every order once the database answered");
        HttpResponse<String> readyAgain = awaitStatus("/health/ready", 200);
        assertEquals(200, readyAgain.statusCode(), "ready once the schemas are migrated: " + readyAgain.body());
        assertTrue(readyAgain.body().matches("(?s).*\"orders-status\\.state\"\\s*:\\s*\"consuming\".*"),
                "the channel without an inbox is consuming: " + readyAgain.body());
        assertEquals(50, db.number("SELECT count(DISTINCT order_id) FROM invoice WHERE order_id LIKE ?", pattern));
        assertEquals(50, db.number("SELECT count(*) FROM invoice WHERE order_id LIKE ?", pattern), "none twice");
        assertEquals(0, db.number("SELECT count(*) FROM inbox_dead_letter"), "none dead-lettered");
    }

    private static void allowConnections(String database, boolean allow) throws Exception {
        try (java.sql.Connection c = java.sql.DriverManager.getConnection("jdbc:postgresql://127.0.0.1:5432/postgres",
                "postgres", ""); java.sql.Statement s = c.createStatement()) {
            s.execute("ALTER DATABASE " + database + " ALLOW_CONNECTIONS " + allow);
        }
    }

    /** @return the first answer with that status, or the last answer when none came within {@link #WAIT} */
    private static HttpResponse<String> awaitStatus(String path, int status) throws Exception {
        ConditionFactory wait = Waiting.await().atMost(WAIT).pollInterval(Duration.ofMillis(500))
                .ignoreException(IOException.class); // not listening yet
        HttpResponse<String> last = Waiting.lastValue(wait, () -> Api.call("GET", TestEnv.url(path), null),
                answer -> answer.statusCode() == status);
        if (last == null) {
            throw new AssertionError("nothing answered " + path + " within " + WAIT);
        }
        return last;
    }

    /**
     * A topic and consumer groups of this test alone: on the tests' shared topic a group's committed offset stops at
     * the first Kafka transaction marker (AbortedTransactionIT writes some; liberty-kafka commits only a contiguous
     * prefix), and a new server would replay every earlier test's events into this test's fresh database.
     */
    private static Map<String, String> ownChannels(Map<String, String> environment) {
        Map<String, String> all = BillingServer.channels("restart-" + UUID.randomUUID().toString().substring(0, 8));
        all.putAll(environment);
        return Map.copyOf(all);
    }

    private void restartMidStream() throws Exception {
        String run = "restart-" + UUID.randomUUID().toString().substring(0, 8);
        List<Event> events = SampleEvents.events(run, EVENTS);
        List<Event> deliveries = SampleEvents.withDuplicates(events, DUPLICATES, new Random(42));
        String topic = serverEnvironment.get("MP_MESSAGING_INCOMING_ORDERS_BILLING_TOPIC");
        try (KafkaProducer<String, String> producer = SampleEvents.producer(TestEnv.BOOTSTRAP)) {
            SampleEvents.send(producer, topic, deliveries);
        }
        String processed = "SELECT count(*) FROM inbox i JOIN invoice v ON v.event_id = i.event_id "
                + "WHERE i.consumer = 'billing' AND v.order_id LIKE ?";
        String pattern = run + "-%";
        int total = EVENTS + STOP_BACKLOG;

        BillingServer.startAndAwaitReady(serverEnvironment, WAIT);
        db.await(WAIT, n -> n >= EVENTS / 5, processed, pattern);
        // the graceful stop comes while the consumers work through a backlog, so that groups are in flight
        CompletableFuture<Void> backlog = CompletableFuture.runAsync(() -> {
            try (KafkaProducer<String, String> producer = SampleEvents.producer(TestEnv.BOOTSTRAP)) {
                SampleEvents.send(producer, topic, SampleEvents.events(run + "-backlog", STOP_BACKLOG));
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        long before = db.await(WAIT, n -> n >= EVENTS + 200, processed, pattern);
        BillingServer.run("stop", serverEnvironment); // graceful: the groups in flight commit, the inbox-kafka offsets are committed
        backlog.get();
        long afterStop = db.number(processed, pattern);
        System.out.printf("graceful stop after %d of %d events, %d processed when it ended%n", before, total,
                afterStop);
        assertTrue(afterStop < total, "the stop came while events were still waiting (else it shows nothing)");
        assertGroupsFinishedBeforeTheEjbModuleStopped();

        BillingServer.startAndAwaitReady(serverEnvironment, WAIT);
        long beforeKill = db.await(WAIT, n -> n >= total * 3 / 5, processed, pattern);
        BillingServer.kill(); // SIGKILL: committed transactions whose offsets were not committed are delivered again
        System.out.printf("kill -9 after %d of %d events%n", beforeKill, total);

        BillingServer.startAndAwaitReady(serverEnvironment, WAIT);
        long done = db.await(WAIT, n -> n >= total, processed, pattern);
        long analytics = db.await(WAIT, n -> n >= total, "SELECT count(*) FROM inbox i JOIN invoice v "
                + "ON v.event_id = i.event_id WHERE i.consumer = 'analytics' AND v.order_id LIKE ?", pattern);

        assertEquals(total, done, "every event processed by billing");
        assertEquals(total, analytics, "every event processed by analytics");
        Effects.assertOneInvoicePerEventNoneDeadLettered(db, total, pattern, "%" + pattern + "%");
        assertEquals(2L * total, db.number("SELECT count(*) FROM inbox i JOIN invoice v ON v.event_id = i.event_id "
                + "WHERE v.order_id LIKE ?", pattern), "one inbox row per consumer and event");
    }

    /**
     * The last stop in messages.log: the inbox-kafka channels stopped (INBOX0611I) before the EJB module began to stop
     * (CNTR4003I), so no group in flight met a closed EntityManager and rolled back (INBOX0603W), and no commit met the
     * stop's wakeup (INBOX0605W). Before InboxWebStop the channels stopped only at CDI's shutdown, after the EJB module.
     */
    private static void assertGroupsFinishedBeforeTheEjbModuleStopped() throws IOException {
        String log = Files.readString(BillingServer.log());
        String stop = log.substring(Math.max(0, log.lastIndexOf("CWWKE0055I")));
        for (String fault : List.of("INBOX0603W", "closed EntityManager", "INBOX0605W")) {
            assertTrue(!stop.contains(fault), "the graceful stop logged " + fault + ":\n" + stop);
        }
        int channelsStopped = stop.indexOf("INBOX0611I");
        int ejbStopping = stop.indexOf("CNTR4003I");
        assertTrue(channelsStopped >= 0 && ejbStopping > channelsStopped,
                "the inbox-kafka channels stopped before the EJB module (INBOX0611I at " + channelsStopped
                        + ", CNTR4003I at " + ejbStopping + ")");
    }



}
