package io.github.jakartainbox.inbox.retention;

import static io.github.jakartainbox.testing.Waiting.lastValue;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.jakartainbox.billing.SampleEvents.Event;
import io.github.jakartainbox.billing.SampleEvents;
import io.github.jakartainbox.testing.Db;
import io.github.jakartainbox.testing.Deployments;
import io.github.jakartainbox.testing.TestEnv;
import io.github.jakartainbox.testing.Waiting;
import io.github.jakartainbox.testing.probes.OutageDuringPurgeTask;
import jakarta.enterprise.inject.spi.CDI;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.shrinkwrap.api.spec.WebArchive;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The retention purge on Liberty and PostgreSQL: the boundary, other consumers, two purgers at once, a purge of
 * a million rows while events are consumed, and the EJB timer (every 10 s on the test server).
 */
@ExtendWith(ArquillianExtension.class)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class InboxPurgeIT {

    /** How long a purge run (the timer's, or another test's) may hold the lease. */
    private static final Duration LEASE_WAIT = Duration.ofSeconds(30);

    private final Db db = Db.lazy();
    private final ExecutorService threads = Executors.newFixedThreadPool(2);

    @Deployment
    static WebArchive deployment() {
        return Deployments.billingWithProbes();
    }

    @AfterEach
    void stopThreads() throws InterruptedException {
        threads.shutdownNow();
        threads.awaitTermination(2, TimeUnit.MINUTES);
    }

    private static InboxPurge purge() {
        return CDI.current().select(InboxPurge.class).get();
    }

    /** Runs the purge until a run of this thread completes (the timer may hold the lease for a moment). */
    private static PurgeResult purgeNow() throws InterruptedException {
        PurgeResult result = lastValue(Waiting.await().atMost(LEASE_WAIT).pollInterval(Duration.ofMillis(50)),
                () -> purge().purgeExpired(), PurgeResult::ran);
        if (!result.ran()) {
            throw new AssertionError("the purge lease never became free");
        }
        assertNull(result.error());
        return result;
    }

    private long rows(String consumer) {
        return db.number("SELECT count(*) FROM inbox WHERE consumer = ?", consumer);
    }

    /** Inserts {@code count} rows for a consumer, processed {@code age} ago (by the database's clock). */
    private void seed(String consumer, long count, String age) {
        db.number("WITH s AS (INSERT INTO inbox (consumer, event_id, processed_at) SELECT ?, 'seed-' || g, "
                + "now() - CAST(? AS interval) FROM generate_series(1, ?) g RETURNING 1) SELECT count(*) FROM s",
                consumer, age, count);
    }

    @Test
    @Order(1)
    void rowsOlderThanTheRetentionArePurgedYoungerOnesAndOtherConsumersKept() throws Exception {
        String run = UUID.randomUUID().toString().substring(0, 8);
        String consumer = "purge-" + run;
        db.number("WITH s AS (INSERT INTO inbox (consumer, event_id, processed_at) VALUES "
                + "(?, 'just-inside', now() - interval '14 days' + interval '1 second'), "
                + "(?, 'just-outside', now() - interval '14 days' - interval '1 second'), "
                + "('purge-long', ?, now() - interval '20 days') RETURNING 1) SELECT count(*) FROM s",
                consumer, consumer, "kept-" + run);
        purgeNow();
        assertEquals(1, db.number("SELECT count(*) FROM inbox WHERE consumer = ? AND event_id = 'just-inside'",
                consumer), "retention minus 1 s survives");
        assertEquals(0, db.number("SELECT count(*) FROM inbox WHERE consumer = ? AND event_id = 'just-outside'",
                consumer), "retention plus 1 s is purged");
        assertEquals(1, db.number("SELECT count(*) FROM inbox WHERE consumer = 'purge-long' AND event_id = ?",
                "kept-" + run), "a consumer with a 30-day retention keeps its 20-day-old row");
        db.number("WITH d AS (DELETE FROM inbox WHERE consumer = ? RETURNING 1) SELECT count(*) FROM d", consumer);
    }

    /** Waits until no purge run holds the lease, then reads: total rows deleted so far, rows now expired. */
    private long[] quietTotals() throws InterruptedException {
        String sql = "SELECT total_deleted || ' ' || (SELECT count(*) FROM inbox WHERE consumer <> 'purge-long' "
                + "AND processed_at < now() - interval '14 days') FROM inbox_purge_state WHERE owner IS NULL";
        String row = lastValue(Waiting.await().atMost(LEASE_WAIT).pollInterval(Duration.ofMillis(50)),
                () -> db.text(sql), text -> text != null);
        if (row == null) {
            throw new AssertionError("a purge run held the lease for 30 s");
        }
        String[] parts = row.split(" ");
        return new long[] {Long.parseLong(parts[0]), Long.parseLong(parts[1])};
    }

    @Test
    @Order(2)
    void twoPurgersAtOnceDeleteEachRowOnceWithoutError() throws Exception {
        String consumer = "purge-race-" + UUID.randomUUID().toString().substring(0, 8);
        seed(consumer, 20_000, "15 days");
        long[] before = quietTotals();
        assertTrue(before[1] >= 20_000, "expired rows before: " + before[1]);
        Future<PurgeResult> first = threads.submit(() -> purge().purgeExpired());
        Future<PurgeResult> second = threads.submit(() -> purge().purgeExpired());
        PurgeResult a = first.get(2, TimeUnit.MINUTES);
        PurgeResult b = second.get(2, TimeUnit.MINUTES);
        assertNull(a.error(), a.toString());
        assertNull(b.error(), b.toString());
        assertTrue(!a.ran() || !b.ran() || a.deleted() + b.deleted() <= before[1],
                "runs that overlap cannot both hold the lease: " + a + " " + b);
        // the timer (every 10 s) may have held the lease meanwhile; let runs go on until the rows are gone
        for (int i = 0; i < 100 && rows(consumer) > 0; i++) {
            purgeNow();
        }
        assertEquals(0, rows(consumer), "all expired rows gone");
        long[] after = quietTotals();
        assertEquals(0, after[1]);
        assertEquals(before[1], after[0] - before[0],
                "the purge runs (these two and any timer run) together deleted each expired row exactly once");
    }

    @Test
    @Order(3)
    void millionExpiredRowsArePurgedInBatchesWhileEventsAreConsumedOnce() throws Exception {
        String consumer = "purge-bulk-" + UUID.randomUUID().toString().substring(0, 8);
        seed(consumer, 1_000_000, "30 days");
        assertEquals(1_000_000, rows(consumer));
        long batchesBefore = db.number("SELECT total_batches FROM inbox_purge_state");

        Future<List<PurgeResult>> purging = threads.submit(() -> {
            List<PurgeResult> runs = new ArrayList<>();
            // ends when the test does (shutdownNow): a purge left running would hold the lease for the tests after
            while (rows(consumer) > 0 && !Thread.currentThread().isInterrupted()) {
                runs.add(purge().purgeExpired());
            }
            return runs;
        });
        String orderPrefix = "purge-live-" + UUID.randomUUID();
        List<Event> events = SampleEvents.events(orderPrefix, 300);
        long sendStarted = System.nanoTime();
        try (KafkaProducer<String, String> producer = SampleEvents.producer(TestEnv.BOOTSTRAP)) {
            for (Event e : events) {
                SampleEvents.send(producer, TestEnv.ORDERS_TOPIC, List.of(e, e));
                Thread.sleep(20); // the events arrive while the purge runs, not all at once
            }
        }
        long invoiced = db.await(Duration.ofMinutes(3), n -> n == 300,
                "SELECT count(*) FROM invoice WHERE order_id LIKE ?", orderPrefix + "-%");
        List<PurgeResult> runs = purging.get(5, TimeUnit.MINUTES);
        quietTotals(); // the timer's run, if it did the work, has recorded its batches
        System.out.printf("purge of 1,000,000 rows: %s; events sent over %d ms%n", runs,
                TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - sendStarted));

        assertEquals(300, invoiced, "every event processed while the purge ran");
        assertEquals(300, db.number("SELECT count(DISTINCT order_id) FROM invoice WHERE order_id LIKE ?",
                orderPrefix + "-%"), "and processed once");
        assertEquals(0, rows(consumer), "all expired rows purged");
        // whichever run did the work (this test's or the timer's), it took 1,000,000 / 5000 transactions at least
        long batches = db.number("SELECT total_batches FROM inbox_purge_state") - batchesBefore;
        assertTrue(batches >= 200, "in batches of inbox.purge.batch-size (5000): " + batches);
        assertTrue(runs.stream().allMatch(r -> r.error() == null), runs.toString());
    }

    @Test
    @Order(4)
    void theEjbTimerRunsThePurgeOnItsSchedule() throws Exception {
        String before = db.text("SELECT coalesce(last_started_at::text, '') FROM inbox_purge_state");
        String now = lastValue(Waiting.await().atMost(Duration.ofSeconds(40)).pollInterval(Duration.ofMillis(500)),
                () -> db.text("SELECT coalesce(last_started_at::text, '') FROM inbox_purge_state"),
                started -> !started.equals(before));
        assertNotEquals(before, now, "the timer (every 10 s) started a purge run");
        assertNull(db.text("SELECT last_error FROM inbox_purge_state"));
    }

    @Test
    @Order(5)
    void inboxAndPurgeFiguresAreMetrics() throws Exception {
        String body = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build().send(HttpRequest.newBuilder(
                URI.create(TestEnv.url("/metrics?scope=application"))).build(),
                HttpResponse.BodyHandlers.ofString()).body();
        long deleted = db.number("SELECT total_deleted FROM inbox_purge_state");
        Matcher purged = Pattern.compile("(?m)^inbox_purge_deleted_rows\\{[^}]*\\} ([0-9.E]+)$").matcher(body);
        assertTrue(purged.find(), body);
        assertTrue(Double.parseDouble(purged.group(1)) >= 1_000_000, "the million rows purged above: " + purged.group(1)
                + " (table: " + deleted + ")");
        Matcher processed = Pattern.compile("(?m)^inbox_processed\\{consumer=\"billing\"[^}]*\\} ([0-9.E]+)$")
                .matcher(body);
        assertTrue(processed.find(), body);
        assertTrue(Double.parseDouble(processed.group(1)) >= 300, processed.group(1));
        assertTrue(body.contains("inbox_purge_overdue"), body);
    }

    /**
     * A run that ends while the database refuses connections cannot give its lease back; the next run of the same
     * server gives it back first, so the purge resumes at once when the database answers, instead of after the
     * lease's expiry ({@code inbox.purge.lease}, PT10M).
     */
    @Test
    @Order(6)
    void aRunCutByAnOutageDoesNotHoldThePurgeAfterTheDatabaseIsBack() throws Exception {
        assertTrue(OutageDuringPurgeTask.cutAPurgeRunByAnOutage(System.getenv().getOrDefault("DB_NAME", "billing")),
                "a purge run met the outage"); // this run or the timer's
        // the timer's run may hold the lease for a moment
        PurgeResult result = lastValue(Waiting.await().atMost(Duration.ofSeconds(30))
                .pollInterval(Duration.ofMillis(200)), () -> purge().purgeExpired(), PurgeResult::ran);
        assertTrue(result.ran(), "a purge runs within 30 s of the database answering again, not after the lease "
                + "expired: " + result + ", state " + db.text("SELECT owner || ' until ' || leased_until "
                + "FROM inbox_purge_state"));
    }
}
