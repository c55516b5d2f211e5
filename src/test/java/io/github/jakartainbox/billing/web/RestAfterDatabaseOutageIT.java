package io.github.jakartainbox.billing.web;

import io.github.jakartainbox.billing.SampleEvents;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.jakartainbox.testing.Api;
import io.github.jakartainbox.testing.Db;
import io.github.jakartainbox.testing.Deployments;
import io.github.jakartainbox.testing.TestEnv;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.container.test.api.RunAsClient;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.shrinkwrap.api.spec.WebArchive;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Issue 14, case 5: after the database ended every connection of the service (a restart, a failover,
 * {@code pg_terminate_backend}), an operator's first call of each REST endpoint works: the pool does not hand out
 * a dead connection.
 */
@ExtendWith(ArquillianExtension.class)
@RunAsClient
class RestAfterDatabaseOutageIT {

    private static final String API = TestEnv.url("/billing/api");
    private static final String DATABASE = System.getenv().getOrDefault("DB_NAME", "billing");
    private final Db db = Db.overJdbc(DATABASE);
    private final Db admin = Db.overJdbc("postgres");

    @Deployment
    static WebArchive deployment() {
        return Deployments.billingWithProbes();
    }

    /** Ends every connection to the service's database, waiting until each is gone; returns how many there were. */
    private long endAllConnections() {
        return admin.number("SELECT count(*) FILTER (WHERE pg_terminate_backend(pid, 10000)) FROM pg_stat_activity "
                + "WHERE datname = ? AND pid <> pg_backend_pid()", DATABASE);
    }

    private long deadLetter() {
        String eventId = UUID.randomUUID().toString();
        return db.number("INSERT INTO inbox_dead_letter (consumer, event_id, payload_ref, error, attempts) "
                + "VALUES ('billing', ?, decode(?, 'hex'), 'simulated failure', 3) RETURNING id", eventId,
                db.deadLetterPayload(SampleEvents.event(eventId, "after-restart-" + eventId, "2.00", "EUR").json()));
    }

    private record Call(String method, String path, Api.User user) {
    }

    @Test
    void theFirstCallOfEachEndpointAfterTheDatabaseEndedAllConnectionsAnswers200() throws Exception {
        long redrive = deadLetter();
        long discard = deadLetter();
        List<Call> calls = List.of(
                new Call("GET", "/invoices/count", Api.READER),
                new Call("GET", "/invoices?limit=1", Api.READER),
                new Call("GET", "/inbox", Api.READER),
                new Call("GET", "/inbox/purge", Api.READER),
                new Call("GET", "/dead-letters?limit=1", Api.OPERATOR),
                new Call("POST", "/dead-letters/" + redrive + "/redrive", Api.OPERATOR),
                new Call("DELETE", "/dead-letters/" + discard, Api.OPERATOR));
        for (Call call : calls.subList(0, 5)) { // fill the pool with connections the restart will kill
            assertEquals(200, Api.call(call.method(), API + call.path(), call.user()).statusCode(), call.path());
        }
        for (Call call : calls) {
            // a call the pool serves with a connection, so that there is one to end: the call before may have
            // needed none (an answer from memory), and the pool opens connections only on demand; again when the
            // pool dropped it meanwhile (a purge of the whole pool after the last outage, by another thread)
            await("the service had connections to end").atMost(Duration.ofSeconds(30)).until(() -> {
                assertEquals(200, Api.call("GET", API + "/invoices/count", Api.READER).statusCode());
                return endAllConnections() > 0;
            });
            HttpResponse<String> response = Api.call(call.method(), API + call.path(), call.user());
            assertEquals(200, response.statusCode(), call.method() + " " + call.path() + " right after the "
                    + "database ended all connections: " + response.body());
        }
    }

    /**
     * While the database refuses connections, each read answers 503 with Retry-After and a JSON body that names no
     * internals (not 500 with Liberty's HTML page, nor an empty body with the exception's text in a response header);
     * once it accepts them again, 200.
     */
    @Test
    void whileTheDatabaseRefusesConnectionsTheApiAnswers503WithRetryAfter() throws Exception {
        List<Call> calls = List.of(
                new Call("GET", "/invoices/count", Api.READER),
                new Call("GET", "/inbox", Api.READER),
                new Call("GET", "/inbox/purge", Api.READER),
                new Call("GET", "/dead-letters?limit=1", Api.OPERATOR));
        for (Call call : calls) { // a running service: each endpoint answered once (a first call also deploys it)
            assertEquals(200, Api.call(call.method(), API + call.path(), call.user()).statusCode(), call.path());
        }
        admin.execute("ALTER DATABASE " + DATABASE + " ALLOW_CONNECTIONS false");
        try {
            endAllConnections();
            for (Call call : calls) {
                long started = System.nanoTime();
                HttpResponse<String> response = Api.call(call.method(), API + call.path(), call.user());
                Duration took = Duration.ofNanos(System.nanoTime() - started);
                String what = call.method() + " " + call.path() + " while the database refuses connections: ";
                // a client's or a load balancer's timeout must see the 503, not a wait (10 s before the bound)
                assertTrue(took.compareTo(Duration.ofSeconds(1)) < 0, what + "answered after " + took);
                assertEquals(503, response.statusCode(), what + response.body());
                assertEquals("10", response.headers().firstValue("Retry-After").orElse(null), what);
                assertTrue(response.headers().firstValue("Content-Type").orElse("").startsWith("application/json"),
                        what + response.headers().map());
                assertTrue(response.body().contains("BILLING0213W") && !response.body().contains("SQL")
                        && response.body().contains("/billing/api" + call.path().replaceFirst("\\?.*", "") + " answered")
                        && !response.body().contains("Exception"), what + response.body());
                for (var header : response.headers().map().entrySet()) {
                    assertTrue(!header.getKey().contains("Exception") && header.getValue().stream()
                            .noneMatch(v -> v.contains("Exception")), what + "header " + header);
                }
            }
        } finally {
            admin.execute("ALTER DATABASE " + DATABASE + " ALLOW_CONNECTIONS true");
        }
        for (Call call : calls) {
            assertEquals(200, Api.call(call.method(), API + call.path(), call.user()).statusCode(), call.path());
        }
    }
}
