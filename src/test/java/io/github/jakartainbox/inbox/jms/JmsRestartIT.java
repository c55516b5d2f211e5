package io.github.jakartainbox.inbox.jms;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.jakartainbox.billing.SampleEvents.Event;
import io.github.jakartainbox.billing.SampleEvents;
import io.github.jakartainbox.testing.Api;
import io.github.jakartainbox.testing.BillingServer;
import io.github.jakartainbox.testing.Db;
import io.github.jakartainbox.testing.Effects;
import io.github.jakartainbox.testing.TestEnv;
import io.github.jakartainbox.testing.TestFiles;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The deployed billing service (server "billing") is killed with SIGKILL while order events flow into its JMS queue
 * {@code orders.confirmed} (embedded messaging engine, persistent messages in the file store under the server's
 * directory) and the message-driven bean {@code billing-jms} consumes them. Events go in through {@code POST
 * /billing/api/jms/orders}, each once or more (duplicates); after the restart the producer sends again every event
 * whose send was not answered 202 (at-least-once), as a producer would. Afterwards every event has exactly one
 * invoice and one inbox row, and nothing was dead-lettered. Its own database ({@code <DB_NAME>_jmsrestart}); one
 * bean instance ({@code JMS_MAX_CONCURRENCY=1}) so that a backlog waits in the store when the kill comes.
 */
class JmsRestartIT {

    private static final Duration WAIT = Duration.ofMinutes(3);
    private static final int EVENTS = 500;
    private static final int DUPLICATES = 150;
    private static final int PRODUCERS = 4;
    private static final String DATABASE = System.getenv().getOrDefault("DB_NAME", "billing") + "_jmsrestart";
    private static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(Duration.ofSeconds(5)).build();

    private static Map<String, String> serverEnvironment = Map.of();

    /**
     * Stops the server and empties its messaging store: a run that fails between the kill and the restart leaves
     * persistent messages there, which the next server made from this directory would consume into its own database.
     */
    @AfterEach
    void stopServer() throws Exception {
        BillingServer.run("stop", serverEnvironment);
        TestFiles.deleteTree(BillingServer.WLP.resolve("usr/servers/" + BillingServer.NAME + "/messaging"));
    }

    @Test
    void aKillMidStreamLeavesOneInvoicePerJmsMessage() throws Exception {
        Db.recreate(DATABASE);
        Db db = Db.overJdbc(DATABASE);
        String run = "jmsrestart-" + UUID.randomUUID().toString().substring(0, 8);
        serverEnvironment = environment(run);
        List<Event> events = SampleEvents.events(run, EVENTS);
        List<Event> deliveries = SampleEvents.withDuplicates(events, DUPLICATES, new Random(7));
        String processed = "SELECT count(*) FROM inbox i JOIN invoice v ON v.event_id = i.event_id "
                + "WHERE i.consumer = 'billing-jms' AND v.order_id LIKE ?";
        String pattern = run + "-%";

        BillingServer.startAndAwaitReady(serverEnvironment, WAIT);
        Set<String> confirmed = ConcurrentHashMap.newKeySet();
        // four senders, so that the sends outpace the one bean instance and a backlog waits in the store (with one
        // sender the bean kept up once in CI, and the kill found nothing waiting)
        List<Thread> producers = new java.util.ArrayList<>();
        for (int t = 0; t < PRODUCERS; t++) {
            int first = t;
            Thread producer = new Thread(() -> {
                for (int i = first; i < deliveries.size(); i += PRODUCERS) {
                    Event e = deliveries.get(i);
                    try {
                        if (post(e.json()) == 202) {
                            confirmed.add(e.eventId());
                        }
                    } catch (Exception stopped) {
                        return; // the server is gone: the rest is sent again after the restart
                    }
                }
            }, "jms-restart-producer-" + t);
            producers.add(producer);
            producer.start();
        }
        long beforeKill = db.await(WAIT, n -> n >= EVENTS / 3, processed, pattern);
        BillingServer.kill();
        int sentAtKill = confirmed.size();
        for (Thread producer : producers) {
            producer.join(Duration.ofMinutes(2).toMillis());
        }
        long atKill = db.number(processed, pattern);
        System.out.printf("kill -9 with %d of %d events processed, %d events' sends answered 202 (a backlog of about "
                + "%d in the queue's store)%n", atKill, EVENTS, sentAtKill, sentAtKill - atKill);
        assertTrue(beforeKill >= EVENTS / 3 && atKill < EVENTS, "killed mid-stream: " + atKill + " of " + EVENTS);
        // events answered 202 but not processed at the kill are never sent again by this test: only the engine's
        // persistent store can deliver them after the restart
        assertTrue(sentAtKill > atKill, "a backlog waited in the queue's store at the kill: " + sentAtKill
                + " sent, " + atKill + " processed");

        BillingServer.startAndAwaitReady(serverEnvironment, WAIT);
        int resent = 0;
        for (Event e : events) {
            if (!confirmed.contains(e.eventId())) {
                assertEquals(202, post(e.json()), "resend of " + e.eventId());
                resent++;
            }
        }
        System.out.printf("after the restart: %d events sent again (no 202 before the kill)%n", resent);
        long done = db.await(WAIT, n -> n >= EVENTS, processed, pattern);

        assertEquals(EVENTS, done, "every event processed by billing-jms");
        Effects.assertOneInvoicePerEventNoneDeadLettered(db, EVENTS, pattern, "%" + run + "%");
        Thread.sleep(2000); // late redeliveries of consumed messages would add nothing
        assertEquals(EVENTS, db.number("SELECT count(*) FROM invoice WHERE order_id LIKE ?", pattern));
        assertEquals(EVENTS, db.number("SELECT count(*) FROM inbox WHERE consumer = 'billing-jms' AND event_id IN "
                + "(SELECT event_id FROM invoice WHERE order_id LIKE ?)", pattern), "one inbox row per event");
    }

    /** The server's own database, channels and topics (nothing of other tests' events), one bean instance. */
    private static Map<String, String> environment(String run) {
        Map<String, String> all = BillingServer.channels(run);
        all.put("DB_NAME", DATABASE);
        all.put("JMS_MAX_CONCURRENCY", "1");
        return Map.copyOf(all);
    }

    private static int post(String json) throws IOException, InterruptedException {
        HttpRequest request = HttpRequest.newBuilder(URI.create(TestEnv.url("/billing/api/jms/orders")))
                .timeout(Duration.ofSeconds(30)).header("Content-Type", "application/json")
                .header("Authorization", "Basic " + Base64.getEncoder().encodeToString(("operator:"
                        + Api.OPERATOR.password()).getBytes(StandardCharsets.UTF_8)))
                .POST(HttpRequest.BodyPublishers.ofString(json)).build();
        return HTTP.send(request, HttpResponse.BodyHandlers.discarding()).statusCode();
    }



}
