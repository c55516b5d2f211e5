package io.github.jakartainbox.inbox.failure;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.jakartainbox.billing.SampleEvents;
import io.github.jakartainbox.testing.Api;
import io.github.jakartainbox.testing.Db;
import io.github.jakartainbox.testing.Deployments;
import io.github.jakartainbox.testing.TestEnv;
import java.net.http.HttpResponse;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.container.test.api.RunAsClient;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.shrinkwrap.api.spec.WebArchive;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Issue 14, case 2: a lock held on the business table for longer than the database's {@code lock_timeout} makes
 * every attempt fail with SQLState 55P03 for a while. That is transient: the delivery waits on its transient budget
 * and every event ends as an invoice, none as a dead letter. (Before the failure policy classified it, 3 attempts and
 * 0.6 s of backoff were used up and the event in flight was dead-lettered: 19 invoices and 1 dead letter.)
 */
@ExtendWith(ArquillianExtension.class)
@RunAsClient
class TransientDatabaseErrorsIT {

    private static final String DATABASE = System.getenv().getOrDefault("DB_NAME", "billing");
    private static final Duration WAIT = Duration.ofSeconds(120);
    private static final int EVENTS = 20;
    private static final Pattern TRANSIENT_WAITS =
            Pattern.compile("\"consumer\":\"billing\"[^}]*\"transientWaits\":(\\d+)");

    private final Db db = Db.overJdbc(DATABASE);

    @Deployment(testable = false)
    static WebArchive deployment() {
        return Deployments.billingWithProbes();
    }

    /**
     * New connections get the setting; the pool's old ones are ended (consumers wait that outage out, and the pool
     * validates a connection before handing it out, so the next test's start finds no stale one).
     */
    private void databaseSetting(String sql) throws Exception {
        try (Connection connection = DriverManager.getConnection("jdbc:postgresql://127.0.0.1:5432/" + DATABASE,
                "postgres", ""); Statement statement = connection.createStatement()) {
            statement.execute(sql);
            statement.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = "
                    + "current_database() AND pid <> pg_backend_pid()");
        }
    }

    @AfterEach
    void resetLockTimeout() throws Exception {
        databaseSetting("ALTER DATABASE \"" + DATABASE + "\" RESET lock_timeout");
    }

    private static long transientWaits() throws Exception {
        HttpResponse<String> inbox = Api.call("GET", TestEnv.url("/billing/api/inbox"), Api.READER);
        assertEquals(200, inbox.statusCode(), inbox.body());
        Matcher m = TRANSIENT_WAITS.matcher(inbox.body());
        return m.find() ? Long.parseLong(m.group(1)) : 0;
    }

    @Test
    void aLockHeldLongerThanTheLockTimeoutDelaysEventsButDeadLettersNone() throws Exception {
        databaseSetting("ALTER DATABASE \"" + DATABASE + "\" SET lock_timeout = '1s'");
        String run = "lock-" + UUID.randomUUID();
        try (KafkaProducer<String, String> producer = SampleEvents.producer(TestEnv.BOOTSTRAP)) {
            // the service works (its pool reconnected) before the lock is taken
            SampleEvents.Event warmUp = SampleEvents.event(UUID.randomUUID().toString(), "warm-up-" + run, "1.00", "EUR");
            SampleEvents.send(producer, TestEnv.ORDERS_TOPIC, List.of(warmUp));
            assertEquals(1, db.await(WAIT, n -> n == 1, "SELECT count(*) FROM invoice WHERE order_id = ?",
                    warmUp.orderId()));
            long waitsBefore = transientWaits();
            List<SampleEvents.Event> events = SampleEvents.events(run, EVENTS);
            try (Connection locker = DriverManager.getConnection("jdbc:postgresql://127.0.0.1:5432/" + DATABASE,
                    "postgres", ""); Statement statement = locker.createStatement()) {
                locker.setAutoCommit(false);
                statement.execute("SET lock_timeout = 0");
                statement.execute("LOCK TABLE invoice IN ACCESS EXCLUSIVE MODE");
                SampleEvents.send(producer, TestEnv.ORDERS_TOPIC, events);
                Thread.sleep(10_000); // the lock is held 10 s, ten times the lock_timeout
                locker.rollback();
            }
            assertEquals(EVENTS, db.await(WAIT, n -> n == EVENTS,
                    "SELECT count(*) FROM invoice WHERE order_id LIKE ?", run + "-%"), "one invoice per event");
            assertEquals(0, db.number("SELECT count(*) FROM " + Db.DEAD_LETTERS + " WHERE consumer = 'billing' "
                    + "AND payload LIKE ?", "%" + run + "-%"), "no good event was dead-lettered");
            assertTrue(transientWaits() > waitsBefore, "the lock made billing wait (lock timeouts were retried)");
        }
    }
}
