package io.github.jakartainbox.inbox.database;

import static io.github.jakartainbox.testing.Waiting.reached;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.jakartainbox.testing.Waiting;
import io.github.jakartainbox.xa.XaPostgres;
import io.github.jakartainbox.xa.XaServer;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;
import org.awaitility.core.ConditionFactory;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * The optional XA mode (docs/xa.md) on a real Liberty with its transaction manager: the inbox and the
 * business data in two PostgreSQL databases behind two XA datasources ({@code PGXADataSource}), and a JMS send on
 * Liberty's embedded messaging engine together with a database write; both commit with two-phase commit, or
 * neither does. Also the start-up checks' real refusals, and recovery after Liberty is killed between prepare and
 * commit.
 *
 * <p>Its own PostgreSQL cluster ({@link XaPostgres}, port {@code XA_PG_PORT}, default 25432, made by initdb under
 * {@code target/}) runs with {@code max_prepared_transactions = 20}; the machine's shared PostgreSQL on 5432, which
 * runs with 0 and must not be changed, serves only as the refused case. Its own Liberty server
 * ({@code src/test/xa/server.xml}, {@link XaServer}, HTTP port {@code HTTP_PORT + 2}) with WARs made of the
 * library jar. One server lifetime serves every test but the last, which kills it and starts it again.
 *
 * <p>Run alone: {@code bin/test -Drestart.only -Dit.test=XaIT -Dfailsafe.failIfNoSpecifiedTests=false} (or the
 * same {@code mvn verify} arguments).
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class XaIT {

    private static final Path WLP = Path.of(System.getProperty("wlp.dir", "target/liberty/wlp"));
    private static final Path WAR = Path.of(System.getProperty("war.file", "target/billing.war"));
    private static final int PG_PORT = Integer.parseInt(System.getenv().getOrDefault("XA_PG_PORT", "25432"));
    private static final int HTTP_PORT = Integer.parseInt(System.getenv().getOrDefault("HTTP_PORT", "9081")) + 2;
    private static final String INBOX_DB = "billing_it_xa_inbox";
    private static final String LEDGER_DB = "billing_it_xa_ledger";
    private static final String DEFERRABLE_DB = "billing_it_xa_deferrable";
    /** On the shared PostgreSQL: named after the HTTP port, so that checkouts running at once do not share it. */
    private static final String MPT0_DB = "billing_it_xa_mpt0_" + HTTP_PORT;
    private static final Duration WAIT = Duration.ofMinutes(2);

    private static XaPostgres postgres;
    private static XaServer server;

    @BeforeAll
    static void start() throws Exception {
        postgres = new XaPostgres(PG_PORT, WLP.getParent().getParent().resolve("xa-postgres"));
        postgres.start(20);
        for (String db : List.of(INBOX_DB, LEDGER_DB, DEFERRABLE_DB)) {
            postgres.recreate(db);
        }
        // the ledger's order id is unique, checked at commit: a second booking of one order passes its INSERT and
        // fails the ledger's PREPARE TRANSACTION
        postgres.execute(LEDGER_DB, "CREATE TABLE ledger (event_id text NOT NULL, order_id text NOT NULL, "
                + "CONSTRAINT ledger_order_uq UNIQUE (order_id) DEFERRABLE INITIALLY DEFERRED)");
        postgres.execute(INBOX_DB, "CREATE TABLE notice (event_id text NOT NULL, order_id text NOT NULL)");
        // an inbox whose key a DBA made DEFERRABLE
        PGSimpleDataSource deferrable = new PGSimpleDataSource();
        deferrable.setUrl("jdbc:postgresql://127.0.0.1:" + PG_PORT + "/" + DEFERRABLE_DB);
        deferrable.setUser("postgres");
        InboxDatabase.flyway(deferrable, false).migrate();
        postgres.execute(DEFERRABLE_DB, "ALTER TABLE inbox DROP CONSTRAINT inbox_pkey, ADD CONSTRAINT inbox_pkey "
                + "PRIMARY KEY (consumer, event_id) DEFERRABLE INITIALLY IMMEDIATE");
        // a database of the shared PostgreSQL (max_prepared_transactions = 0): only made, never reconfigured
        try (Connection c = DriverManager.getConnection("jdbc:postgresql://127.0.0.1:5432/postgres", "postgres", "");
             Statement s = c.createStatement()) {
            s.execute("DROP DATABASE IF EXISTS " + MPT0_DB + " WITH (FORCE)");
            s.execute("CREATE DATABASE " + MPT0_DB);
        }

        server = new XaServer(WLP, WAR, "inbox-xa-" + HTTP_PORT, HTTP_PORT, Map.of("XA_PG_PORT",
                String.valueOf(PG_PORT), "XA_MPT0_DB", MPT0_DB));
        server.deploy("xa", Map.of("inbox.datasource", "jdbc/inbox"));
        server.deploy("mpt0", Map.of("inbox.datasource", "jdbc/mpt0"));
        server.deploy("deferrable", Map.of("inbox.datasource", "jdbc/deferrable"));
        server.start("xa");
    }

    @AfterAll
    static void stop() throws Exception {
        if (server != null) {
            server.stop();
        }
        if (postgres != null) {
            postgres.stop();
        }
        try (Connection c = DriverManager.getConnection("jdbc:postgresql://127.0.0.1:5432/postgres", "postgres", "");
             Statement s = c.createStatement()) {
            s.execute("DROP DATABASE IF EXISTS " + MPT0_DB + " WITH (FORCE)");
        }
    }

    @Test
    @Order(1)
    void theStartUpChecksRefuseAnXaInboxWithoutPreparedTransactionsAndADeferrableInboxKey() throws Exception {
        awaitLog("INBOX0800E");
        awaitLog("INBOX0801E");
        List<String> mpt0 = server.logLines("INBOX0800E");
        assertTrue(mpt0.stream().anyMatch(l -> l.contains("jdbc/mpt0") && l.contains("max_prepared_transactions = 0")),
                "INBOX0800E names the datasource and the setting: " + mpt0);
        List<String> deferrable = server.logLines("INBOX0801E");
        assertTrue(deferrable.stream().anyMatch(l -> l.contains("inbox_pkey") && l.contains("jdbc/deferrable")
                        && l.contains("ADD CONSTRAINT inbox_pkey PRIMARY KEY (consumer, event_id)")), "INBOX0801E names the constraint and the fix: " + deferrable);
        assertTrue(server.logLines("INBOX0800E").stream().noneMatch(l -> l.contains("jdbc/inbox")),
                "the XA inbox on a server with prepared transactions is accepted");
        assertTrue(server.logLines("INBOX0802I").stream().anyMatch(l -> l.contains("jdbc/inbox") && l.contains("20")),
                "INBOX0802I: jdbc/inbox is XA, 20 prepared transactions");
        // and the refused applications process nothing
        for (String app : List.of("mpt0", "deferrable")) {
            XaServer.Response response = server.post("/" + app + "/xa/ledger", event(id(), id()));
            assertNotEquals(200, response.status(), app + " must not process: " + response);
            System.out.printf("refused application %s answers %d: %s%n", app, response.status(),
                    response.body().lines().findFirst().orElse(""));
        }
        System.out.println("start-up of the refused applications: " + server.logLines("CWWKZ000"));
        server.undeploy("mpt0");
        server.undeploy("deferrable");
    }

    @Test
    @Order(2)
    void theInboxAndTheLedgerInTwoDatabasesCommitTogether() throws Exception {
        String eventId = id();
        assertEquals("processed", ledger(eventId, id(), "NONE"));
        assertEquals(1, inboxRows(eventId));
        assertEquals(1, postgres.number(LEDGER_DB, "SELECT count(*) FROM ledger WHERE event_id = '" + eventId + "'"));
        assertNoPreparedTransactions();
    }

    @Test
    @Order(3)
    void aFailureAfterTheLedgerRowCommitsNeitherDatabase() throws Exception {
        String eventId = id();
        ledger(eventId, id(), "FAIL_AFTER_WORK"); // dead-lettered after its one attempt (max-attempts 1)
        assertEquals(0, inboxRows(eventId), "no inbox row");
        assertEquals(0, postgres.number(LEDGER_DB, "SELECT count(*) FROM ledger WHERE event_id = '" + eventId + "'"),
                "no ledger row");
        assertDeadLettered(eventId, "injected failure after the ledger row");
        assertNoPreparedTransactions();
    }

    /**
     * The ledger's unique order id is checked at commit, so a second event for one order passes its INSERT and
     * fails at the ledger's PREPARE TRANSACTION, with the inbox's claim done (and, when Liberty prepared the inbox
     * first, prepared): the transaction manager rolls the inbox back too.
     */
    @Test
    @Order(4)
    void aFailedPrepareOfTheLedgerRollsTheInboxBack() throws Exception {
        String order = id();
        String first = id();
        String second = id();
        assertEquals("processed", ledger(first, order, "NONE"));
        ledger(second, order, "NONE");
        assertEquals(0, inboxRows(second), "the second event's claim rolled back");
        assertEquals(List.of(first), postgres.texts(LEDGER_DB, "SELECT event_id FROM ledger WHERE order_id = '"
                + order + "'"));
        // the reason is what the commit threw: Liberty's RollbackException, which does not carry PostgreSQL's error
        assertDeadLettered(second, "RollbackException");
        assertNoPreparedTransactions();
    }

    /**
     * Duplicates, one after the other and racing: a claim that meets a row of a transaction in doubt (prepared, not
     * yet committed) waits for its outcome like one that meets an uncommitted row, and then does nothing.
     */
    @Test
    @Order(5)
    void duplicatesAreSkippedInXaMode() throws Exception {
        String eventId = id();
        String order = id();
        assertEquals("processed", ledger(eventId, order, "NONE"));
        assertEquals("skipped", ledger(eventId, order, "NONE"));
        List<String> racing = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            racing.add(id());
        }
        List<CompletableFuture<HttpResponse<String>>> calls = new ArrayList<>();
        for (int copy = 0; copy < 3; copy++) {
            for (String id : racing) {
                calls.add(server.postAsync("/xa/xa/ledger?fault=NONE", event(id, "order-" + id)));
            }
        }
        long processed = 0;
        for (CompletableFuture<HttpResponse<String>> call : calls) {
            String body;
            try {
                body = call.get(90, TimeUnit.SECONDS).body();
            } catch (TimeoutException e) {
                throw new AssertionError("a racing delivery has no answer after 90 s; PostgreSQL's sessions: "
                        + postgres.texts("postgres", "SELECT datname || ' ' || state || ' ' || coalesce(wait_event, '')"
                        + " || ' ' || left(query, 80) FROM pg_stat_activity WHERE datname LIKE 'billing_it_xa%'"));
            }
            assertTrue(body.equals("processed") || body.equals("skipped"), body);
            processed += body.equals("processed") ? 1 : 0;
        }
        assertEquals(racing.size(), processed, "one delivery of each event processed, the others skipped");
        for (String id : racing) {
            assertEquals(1, postgres.number(LEDGER_DB, "SELECT count(*) FROM ledger WHERE event_id = '" + id + "'"));
            assertEquals(1, inboxRows(id));
        }
        assertEquals(1, postgres.number(LEDGER_DB, "SELECT count(*) FROM ledger WHERE event_id = '" + eventId + "'"));
        assertEquals(0, postgres.number(INBOX_DB, "SELECT count(*) FROM inbox_dead_letter WHERE consumer = "
                + "'xa-ledger' AND event_id IN ('" + eventId + "', '" + String.join("', '", racing) + "')"));
        assertNoPreparedTransactions();
    }

    @Test
    @Order(6)
    void aJmsSendAndADatabaseWriteCommitTogether() throws Exception {
        String eventId = id();
        assertEquals("processed", jms(eventId, "NONE"));
        assertEquals("1", server.get("/xa/xa/queue?event_id=" + eventId).body(), "the message is on the queue");
        assertEquals(1, postgres.number(INBOX_DB, "SELECT count(*) FROM notice WHERE event_id = '" + eventId + "'"));
        assertEquals(1, inboxRows(eventId));
        assertEquals("skipped", jms(eventId, "NONE"), "a duplicate sends nothing");
        assertEquals("1", server.get("/xa/xa/queue?event_id=" + eventId).body());
        assertNoPreparedTransactions();
    }

    @Test
    @Order(7)
    void aFailureAfterTheJmsSendSendsNothingAndWritesNothing() throws Exception {
        String eventId = id();
        jms(eventId, "FAIL_AFTER_WORK");
        assertEquals("0", server.get("/xa/xa/queue?event_id=" + eventId).body(), "no message on the queue");
        assertEquals(0, postgres.number(INBOX_DB, "SELECT count(*) FROM notice WHERE event_id = '" + eventId + "'"));
        assertEquals(0, inboxRows(eventId));
        assertDeadLettered(eventId, "injected failure after the JMS send");
        assertNoPreparedTransactions();
    }

    /**
     * Liberty killed between prepare and commit, made deterministic with PostgreSQL's synchronous replication:
     *
     * <ol>
     *   <li>The cluster gets {@code synchronous_standby_names} naming a standby that never connects (ALTER SYSTEM,
     *       pg_reload_conf). From then on a commit with {@code synchronous_commit = on} (the default) writes and
     *       flushes its commit record locally and then waits for that standby, for ever; a read-only query does
     *       not wait.</li>
     *   <li>The business method (fault {@code HOLD_COMMIT}) runs {@code SET LOCAL synchronous_commit = local} on
     *       both of its connections (the inbox's, the ledger's). {@code SET LOCAL} lasts until the transaction
     *       ends, and a prepared transaction ends at {@code PREPARE TRANSACTION}: both prepares return at once,
     *       while the {@code COMMIT PREPARED} that the transaction manager then sends on the same session runs
     *       with the session's setting again, {@code on}, and waits.</li>
     *   <li>So Liberty logs its commit decision, sends its first {@code COMMIT PREPARED}, and that one waits. The
     *       test sees exactly one backend waiting on {@code SyncRep} and both transactions still in
     *       {@code pg_prepared_xacts} (a waiting COMMIT PREPARED keeps its entry until it ends): the other resource
     *       is prepared and not committed. Then it kills Liberty (SIGKILL).</li>
     *   <li>It resets the setting: the waiting COMMIT PREPARED completes (its commit record was durable already;
     *       PostgreSQL's documented behaviour for a cancelled wait), and the other transaction stays prepared: in
     *       doubt, which only Liberty's recovery can resolve. The test checks that exactly one remains.</li>
     *   <li>Liberty starts again and recovers from its transaction log: it commits the remaining branch. The test
     *       waits until {@code pg_prepared_xacts} is empty on both databases and checks that the event's effect is
     *       there once in each, then delivers the event again: skipped.</li>
     * </ol>
     */
    @Test
    @Order(8)
    void afterAKillBetweenPrepareAndCommitRecoveryCommitsTheEventOnce() throws Exception {
        String eventId = id();
        String order = id();
        postgres.execute("postgres", "ALTER SYSTEM SET synchronous_standby_names = 'xa_standby_never_connects'",
                "SELECT pg_reload_conf()");
        String blocked;
        String inDoubt;
        try {
            CompletableFuture<HttpResponse<String>> call = server.postAsync("/xa/xa/ledger?fault=HOLD_COMMIT",
                    event(eventId, order));
            AtomicReference<List<String>> waitingNow = new AtomicReference<>(List.of());
            reached(poll(100), () -> {
                waitingNow.set(postgres.texts("postgres",
                        "SELECT datname FROM pg_stat_activity WHERE wait_event = 'SyncRep'"));
                if (waitingNow.get().size() == 1 && prepared() == 2) {
                    return true;
                }
                assertFalse(call.isDone(), () -> "the call ended before the commit waited: " + call.join().body());
                return false;
            });
            List<String> waiting = waitingNow.get();
            assertEquals(1, waiting.size(), "one COMMIT PREPARED waits");
            assertEquals(2, prepared(), "both branches are still in pg_prepared_xacts");
            blocked = waiting.get(0);
            inDoubt = blocked.equals(INBOX_DB) ? LEDGER_DB : INBOX_DB;
            System.out.printf("Liberty committed %s first (its COMMIT PREPARED waits); %s is prepared: kill -9%n",
                    blocked, inDoubt);
            server.kill();
        } finally {
            postgres.execute("postgres", "ALTER SYSTEM RESET synchronous_standby_names", "SELECT pg_reload_conf()");
        }
        reached(poll(100), () -> postgres.number("postgres",
                "SELECT count(*) FROM pg_stat_activity WHERE wait_event = 'SyncRep'") == 0);
        assertEquals(List.of(inDoubt), postgres.texts("postgres", "SELECT database FROM pg_prepared_xacts"),
                "after the kill one branch is in doubt");
        assertEquals(0, effect(inDoubt, eventId), "its effect is not visible while in doubt");
        assertEquals(1, effect(blocked, eventId), "the branch committed before the kill is");

        server.start("xa");
        reached(poll(250), () -> prepared() == 0);
        assertNoPreparedTransactions();
        assertEquals(1, effect(INBOX_DB, eventId), "the inbox row, once");
        assertEquals(1, effect(LEDGER_DB, eventId), "the ledger row, once");
        System.out.println("recovery: " + server.logLines("WTRN"));
        assertEquals("skipped", ledger(eventId, order, "NONE"), "delivered again: a duplicate");
        assertEquals(0, postgres.number(INBOX_DB, "SELECT count(*) FROM inbox_dead_letter WHERE event_id = '"
                + eventId + "'"), "nothing dead-lettered");
        assertEquals(1, effect(LEDGER_DB, eventId));
    }

    private static long effect(String database, String eventId) throws Exception {
        return database.equals(INBOX_DB) ? inboxRows(eventId)
                : postgres.number(LEDGER_DB, "SELECT count(*) FROM ledger WHERE event_id = '" + eventId + "'");
    }

    private static String ledger(String eventId, String order, String fault) throws Exception {
        XaServer.Response response = server.post("/xa/xa/ledger?fault=" + fault, event(eventId, order));
        assertEquals(200, response.status(), response.body());
        return response.body();
    }

    private static String jms(String eventId, String fault) throws Exception {
        XaServer.Response response = server.post("/xa/xa/jms?fault=" + fault, event(eventId, id()));
        assertEquals(200, response.status(), response.body());
        return response.body();
    }

    private static long inboxRows(String eventId) throws Exception {
        return postgres.number(INBOX_DB, "SELECT count(*) FROM inbox WHERE event_id = '" + eventId + "'");
    }

    private static long prepared() throws Exception {
        return postgres.number("postgres", "SELECT count(*) FROM pg_prepared_xacts");
    }

    private static void assertNoPreparedTransactions() throws Exception {
        assertEquals(List.of(), postgres.texts("postgres", "SELECT database || ' ' || gid FROM pg_prepared_xacts"),
                "no transaction in doubt on either database");
    }

    private static void assertDeadLettered(String eventId, String reason) throws Exception {
        List<String> errors = postgres.texts(INBOX_DB, "SELECT error FROM inbox_dead_letter WHERE event_id = '"
                + eventId + "'");
        assertEquals(1, errors.size(), "one dead letter");
        assertTrue(errors.get(0).contains(reason), errors.get(0));
    }

    private static void awaitLog(String text) {
        reached(poll(250), () -> !server.logLines(text).isEmpty());
    }

    /** @return a wait of {@link #WAIT} at most, reading every {@code millis} ms */
    private static ConditionFactory poll(long millis) {
        return Waiting.await().atMost(WAIT).pollInterval(Duration.ofMillis(millis));
    }

    private static String event(String eventId, String order) {
        return "{\"event_id\":\"" + eventId + "\",\"order_id\":\"" + order + "\"}";
    }

    private static String id() {
        return UUID.randomUUID().toString();
    }
}
