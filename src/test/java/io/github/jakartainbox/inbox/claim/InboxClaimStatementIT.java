package io.github.jakartainbox.inbox.claim;

import io.github.jakartainbox.inbox.database.InboxDatabase;
import io.github.jakartainbox.inbox.eventid.EventMonths;
import io.github.jakartainbox.testing.TestDatabases;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.LocalDate;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * The claim's statements ({@link InboxClaim#claimOn}) on a real PostgreSQL (database inbox_claim_statement_it, made
 * afresh, plain and partitioned tables): a new event, a duplicate, a different payload under a processed id, and the
 * race in which the claim's INSERT waits on another transaction's uncommitted row of the same event, which then
 * commits (the one-statement read cannot see that row: the second statement must) or rolls back (the claim wins).
 */
class InboxClaimStatementIT {

    private static final String DB = "inbox_claim_statement_it";
    private static final String PARTITIONED_DB = "inbox_claim_statement_monthly_it";
    private static PGSimpleDataSource plain;
    private static PGSimpleDataSource monthly;
    private static final ExecutorService racer = Executors.newSingleThreadExecutor();

    @BeforeAll
    static void inboxes() throws SQLException {
        plain = TestDatabases.fresh(DB);
        InboxDatabase.flyway(plain, false).migrate();
        monthly = TestDatabases.fresh(PARTITIONED_DB);
        InboxDatabase.flyway(monthly, true).migrate();
    }

    @AfterAll
    static void stop() {
        racer.shutdownNow();
    }

    private static byte[] sha(String payload) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(payload.getBytes(StandardCharsets.UTF_8));
        } catch (NoSuchAlgorithmException e) {
            throw new AssertionError(e);
        }
    }

    /** One claim in its own committed transaction. */
    private static InboxClaim.Result claim(PGSimpleDataSource db, String eventId, byte[] fingerprint, LocalDate month)
            throws SQLException {
        try (Connection c = db.getConnection()) {
            c.setAutoCommit(false);
            InboxClaim.Result result = InboxClaim.claimOn(c, "billing", eventId, fingerprint, month);
            c.commit();
            return result;
        }
    }

    private static long rows(PGSimpleDataSource db, String eventId) throws SQLException {
        try (Connection c = db.getConnection();
             PreparedStatement ps = c.prepareStatement("SELECT count(*) FROM inbox WHERE event_id = ?")) {
            ps.setString(1, eventId);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getLong(1);
            }
        }
    }

    @Test
    void aNewEventThenTheSamePayloadThenAnotherPayload() throws Exception {
        inBothModes((db, month) -> {
            String id = UUID.randomUUID().toString();
            assertEquals(InboxClaim.Result.NEW, claim(db, id, sha("a"), month));
            assertEquals(InboxClaim.Result.DUPLICATE, claim(db, id, sha("a"), month));
            assertEquals(InboxClaim.Result.CONFLICTING_PAYLOAD, claim(db, id, sha("b"), month));
            assertEquals(InboxClaim.Result.DUPLICATE, claim(db, id, null, month), "no fingerprint: nothing to compare");
            assertEquals(1, rows(db, id));
        });
    }

    @Test
    void withoutAFingerprintTheInsertDecidesAlone() throws SQLException {
        String id = UUID.randomUUID().toString();
        assertEquals(InboxClaim.Result.NEW, claim(plain, id, null, null));
        assertEquals(InboxClaim.Result.DUPLICATE, claim(plain, id, sha("a"), null),
                "a row stored without a fingerprint is a duplicate whatever the payload");
    }

    @Test
    void aRacingDeliveryThatCommitsWhileTheClaimWaitsIsSeenBySecondStatement() throws Exception {
        inBothModes((db, month) -> {
            for (boolean samePayload : new boolean[] {true, false}) {
                String id = UUID.randomUUID().toString();
                InboxClaim.Result result = race(db, month, id, sha("a"), samePayload ? sha("a") : sha("b"), true);
                assertEquals(samePayload ? InboxClaim.Result.DUPLICATE : InboxClaim.Result.CONFLICTING_PAYLOAD, result,
                        "month " + month);
                assertEquals(1, rows(db, id));
            }
        });
    }

    @Test
    void aRacingDeliveryThatRollsBackLeavesTheEventToTheClaim() throws Exception {
        inBothModes((db, month) -> {
            String id = UUID.randomUUID().toString();
            assertEquals(InboxClaim.Result.NEW, race(db, month, id, sha("a"), sha("a"), false), "month " + month);
            assertEquals(1, rows(db, id));
        });
    }

    /** A group's claims in one statement, committed; what each found. */
    private static InboxClaim.Result[] claimAll(PGSimpleDataSource db, java.util.List<InboxClaim.Claim> claims)
            throws SQLException {
        try (Connection c = db.getConnection()) {
            c.setAutoCommit(false);
            InboxClaim.Result[] results = InboxClaim.claimAllOn(c, "billing", claims);
            c.commit();
            return results;
        }
    }

    @Test
    void aGroupsClaimFindsWhatOneClaimPerEventWouldFind() throws Exception {
        inBothModes((db, month) -> {
            String processed = UUID.randomUUID().toString();
            String other = UUID.randomUUID().toString();
            assertEquals(InboxClaim.Result.NEW, claim(db, processed, sha("p"), month));
            assertEquals(InboxClaim.Result.NEW, claim(db, other, sha("o"), month));
            String a = UUID.randomUUID().toString();
            String b = UUID.randomUUID().toString();
            String c = UUID.randomUUID().toString();
            InboxClaim.Result[] results = claimAll(db, java.util.List.of(
                    new InboxClaim.Claim(b, sha("b"), month),
                    new InboxClaim.Claim(processed, sha("p"), month),
                    new InboxClaim.Claim(other, sha("changed"), month),
                    new InboxClaim.Claim(a, sha("a"), month),
                    new InboxClaim.Claim(b, sha("b"), month),
                    new InboxClaim.Claim(a, sha("a, changed"), month),
                    new InboxClaim.Claim(c, null, month)));
            assertEquals(java.util.List.of(InboxClaim.Result.NEW, InboxClaim.Result.DUPLICATE,
                    InboxClaim.Result.CONFLICTING_PAYLOAD, InboxClaim.Result.NEW, InboxClaim.Result.DUPLICATE,
                    InboxClaim.Result.CONFLICTING_PAYLOAD, InboxClaim.Result.NEW), java.util.List.of(results));
            for (String id : new String[] {processed, other, a, b, c}) {
                assertEquals(1, rows(db, id), id);
            }
            assertEquals(InboxClaim.Result.DUPLICATE, claim(db, a, sha("a"), month), "a's first payload was kept");
        });
    }

    @Test
    void aGroupCutShortGivesBackTheClaimsOfWhatItDidNotDeliver() throws Exception {
        inBothModes((db, month) -> {
            String kept = UUID.randomUUID().toString();
            String givenBack = UUID.randomUUID().toString();
            try (Connection c = db.getConnection()) {
                c.setAutoCommit(false);
                java.util.List<InboxClaim.Claim> claims = java.util.List.of(
                        new InboxClaim.Claim(kept, sha("k"), month), new InboxClaim.Claim(givenBack, sha("g"), month));
                InboxClaim.claimAllOn(c, "billing", claims);
                assertEquals(1, InboxClaim.releaseOn(c, "billing",
                        java.util.List.of(new InboxClaim.Claim(givenBack, sha("g"), month))));
                c.commit();
            }
            assertEquals(1, rows(db, kept));
            assertEquals(0, rows(db, givenBack));
        });
    }

    @Test
    void aGroupsClaimWaitsForARacerAndSeesItsCommit() throws Exception {
        inBothModes((db, month) -> {
            String raced = UUID.randomUUID().toString();
            String racedSame = UUID.randomUUID().toString();
            String fresh = UUID.randomUUID().toString();
            try (Connection holder = db.getConnection()) {
                holder.setAutoCommit(false);
                assertEquals(InboxClaim.Result.NEW, InboxClaim.claimOn(holder, "billing", raced, sha("r"), month));
                assertEquals(InboxClaim.Result.NEW, InboxClaim.claimOn(holder, "billing", racedSame, sha("s"), month));
                Future<InboxClaim.Result[]> waiting = racer.submit(() -> claimAll(db, java.util.List.of(
                        new InboxClaim.Claim(fresh, sha("f"), month), new InboxClaim.Claim(raced, sha("other"), month),
                        new InboxClaim.Claim(racedSame, sha("s"), month))));
                assertFalse(waitedOut(waiting), "the group's claim must wait on the racer's rows");
                holder.commit();
                assertEquals(java.util.List.of(InboxClaim.Result.NEW, InboxClaim.Result.CONFLICTING_PAYLOAD,
                        InboxClaim.Result.DUPLICATE), java.util.List.of(waiting.get(30, TimeUnit.SECONDS)),
                        "month " + month);
            }
            for (String id : new String[] {raced, racedSame, fresh}) {
                assertEquals(1, rows(db, id), id);
            }
        });
    }

    @Test
    void aGroupsClaimWaitsForARacerThatRollsBackAndClaimsItsEvent() throws Exception {
        inBothModes((db, month) -> {
            String raced = UUID.randomUUID().toString();
            String processed = UUID.randomUUID().toString();
            assertEquals(InboxClaim.Result.NEW, claim(db, processed, sha("p"), month));
            try (Connection holder = db.getConnection()) {
                holder.setAutoCommit(false);
                assertEquals(InboxClaim.Result.NEW, InboxClaim.claimOn(holder, "billing", raced, sha("r"), month));
                Future<InboxClaim.Result[]> waiting = racer.submit(() -> claimAll(db, java.util.List.of(
                        new InboxClaim.Claim(raced, sha("r"), month),
                        new InboxClaim.Claim(processed, sha("p"), month))));
                assertFalse(waitedOut(waiting), "the group's claim must wait on the racer's row");
                holder.rollback();
                assertEquals(java.util.List.of(InboxClaim.Result.NEW, InboxClaim.Result.DUPLICATE),
                        java.util.List.of(waiting.get(30, TimeUnit.SECONDS)), "month " + month);
            }
            assertEquals(1, rows(db, raced));
        });
    }

    /**
     * The first delivery inserts its row and holds its transaction open; the second claims on another connection
     * and must wait on the key; then the first commits or rolls back.
     */
    private static InboxClaim.Result race(PGSimpleDataSource db, LocalDate month, String id, byte[] first,
                                          byte[] second, boolean commitFirst) throws Exception {
        try (Connection holder = db.getConnection()) {
            holder.setAutoCommit(false);
            assertEquals(InboxClaim.Result.NEW, InboxClaim.claimOn(holder, "billing", id, first, month));
            Future<InboxClaim.Result> waiting = racer.submit(() -> claim(db, id, second, month));
            assertFalse(waitedOut(waiting), "the second claim must wait on the first transaction's row");
            if (commitFirst) {
                holder.commit();
            } else {
                holder.rollback();
            }
            return waiting.get(30, TimeUnit.SECONDS);
        }
    }

    /**
     * A generic plan made while the inbox is small and not analyzed (what pgjdbc's server-side prepared statement
     * keeps until the next ANALYZE, and autovacuum may be off) must still read a group's keys by primary key, never
     * by scanning the consumer's rows: that scan grows with the table, on every group. (With {@code event_id =
     * ANY(?)} the plan here would be a bitmap scan of the consumer's rows.)
     */
    @Test
    void aGroupsReadsStayPrimaryKeyLookupsUnderAGenericPlanMadeOnASmallInbox() throws SQLException {
        PGSimpleDataSource emptyPlain = TestDatabases.fresh(DB + "_plans");
        InboxDatabase.flyway(emptyPlain, false).migrate();
        PGSimpleDataSource emptyMonthly = TestDatabases.fresh(PARTITIONED_DB + "_plans");
        InboxDatabase.flyway(emptyMonthly, true).migrate();
        for (PGSimpleDataSource db : new PGSimpleDataSource[] {emptyPlain, emptyMonthly}) {
            try (Connection c = db.getConnection(); java.sql.Statement s = c.createStatement()) {
                s.execute(db == emptyPlain
                        ? "INSERT INTO inbox (consumer, event_id) SELECT 'billing', 'seed-' || k "
                                + "FROM generate_series(1, 50) k"
                        : "INSERT INTO inbox (consumer, event_id, event_month) SELECT 'billing', 'seed-' || k, "
                                + "date_trunc('month', now())::date FROM generate_series(1, 50) k");
            }
        }
        String id = "'e-1'";
        String ids = "'{e-1,e-2}'";
        String month = "date_trunc('month', now())::date";
        String months = "ARRAY[" + month + ", " + month + "]::text[]";
        assertPrimaryKeyLookups(emptyPlain, InboxClaim.FINGERPRINTS_SQL, "text[], text", ids, "'billing'");
        assertPrimaryKeyLookups(emptyPlain, InboxClaim.CLAIM_READ_SQL, "text, text, text, text, bytea",
                "'billing'", id, "'billing'", id, "'\\x00'");
        assertPrimaryKeyLookups(emptyPlain, InboxClaim.RELEASE_SQL, "text, text", "'billing'", id);
        assertPrimaryKeyLookups(emptyMonthly, InboxClaim.FINGERPRINTS_MONTHLY_SQL, "text[], text[], text",
                ids, months, "'billing'");
        assertPrimaryKeyLookups(emptyMonthly, InboxClaim.CLAIM_READ_MONTHLY_SQL,
                "text, text, date, text, text, bytea, date",
                "'billing'", id, month, "'billing'", id, "'\\x00'", month);
        assertPrimaryKeyLookups(emptyMonthly, InboxClaim.RELEASE_MONTHLY_SQL, "text, text, date",
                "'billing'", id, month);
    }

    /** Prepares {@code sql} under a forced generic plan, explains it for {@code values}, checks the plan. */
    private static void assertPrimaryKeyLookups(PGSimpleDataSource db, String sql, String types, String... values)
            throws SQLException {
        StringBuilder numbered = new StringBuilder();
        int n = 0;
        for (char ch : sql.toCharArray()) {
            numbered.append(ch == '?' ? "$" + ++n : String.valueOf(ch));
        }
        assertEquals(n, values.length, sql);
        StringBuilder plan = new StringBuilder();
        try (Connection c = db.getConnection(); java.sql.Statement s = c.createStatement()) {
            s.execute("SET plan_cache_mode = force_generic_plan");
            s.execute("PREPARE checked(" + types + ") AS " + numbered);
            try (ResultSet rows = s.executeQuery("EXPLAIN EXECUTE checked(" + String.join(", ", values) + ")")) {
                while (rows.next()) {
                    plan.append(rows.getString(1)).append('\n');
                }
            }
        }
        String text = plan.toString();
        org.junit.jupiter.api.Assertions.assertTrue(text.contains("_pkey"), "no primary-key lookup in:\n" + text);
        assertFalse(text.contains("Seq Scan on inbox") || text.contains("processed_at_idx"),
                "a scan of the consumer's rows in:\n" + text);
    }

    /** A test on one inbox: the plain one ({@code month} null) or the partitioned one (this month). */
    private interface ModeTest {
        void run(PGSimpleDataSource db, LocalDate month) throws Exception;
    }

    /** Runs {@code test} on the plain inbox, then on the partitioned one. */
    private static void inBothModes(ModeTest test) throws Exception {
        test.run(plain, null);
        test.run(monthly, EventMonths.monthOf(java.time.Instant.now()));
    }

    /** @return whether the claim finished within 500 ms (it should not: it waits on the other's row) */
    private static boolean waitedOut(Future<?> claim) throws Exception {
        try {
            claim.get(500, TimeUnit.MILLISECONDS);
            return true;
        } catch (TimeoutException e) {
            return false;
        }
    }
}
