package io.github.jakartainbox.inbox.claim;

import io.github.jakartainbox.inbox.InboxConfig;
import io.github.jakartainbox.inbox.UnprocessableEventException;
import io.github.jakartainbox.inbox.database.InboxDatabase;
import io.github.jakartainbox.inbox.deadletter.InboxDeadLetters;
import io.github.jakartainbox.inbox.database.InboxTransactions;
import io.github.jakartainbox.inbox.consumer.ConsumerSettings;
import io.github.jakartainbox.inbox.incoming.Delivery;
import io.github.jakartainbox.inbox.logging.InboxMessage;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.LocalDate;
import java.util.Arrays;
import org.eclipse.microprofile.config.ConfigProvider;

/**
 * The claim: a read of the key and, when nothing committed is there, an {@code INSERT ... ON CONFLICT DO NOTHING},
 * one statement through the JTA-enlisted datasource, in the caller's transaction. The read only saves a duplicate the
 * insert; the INSERT's unique key decides. PostgreSQL decides between racing transactions: an insert that meets an
 * uncommitted row with the same key waits for that transaction; when it commits the insert does nothing
 * (duplicate), when it rolls back the insert proceeds. No unique violation is raised, so the transaction stays usable
 * after a duplicate (PostgreSQL docs, "INSERT ... ON CONFLICT", and "Transaction Isolation", Read Committed).
 */
@ApplicationScoped
public class InboxClaim {

    static final String CLAIM_SQL = "INSERT INTO inbox (consumer, event_id, payload_sha256, processed_at) "
            + "VALUES (?, ?, ?, now()) ON CONFLICT (consumer, event_id) DO NOTHING";

    /** Partitioned mode: the key includes the event's month, which is the same on every delivery. */
    static final String CLAIM_MONTHLY_SQL = "INSERT INTO inbox (consumer, event_id, payload_sha256, event_month, "
            + "processed_at) VALUES (?, ?, ?, ?, now()) ON CONFLICT (consumer, event_id, event_month) DO NOTHING";

    /**
     * The claim and, for a duplicate, the stored fingerprint, in one statement: a first delivery and a duplicate
     * each cost one round trip. It reads the key first ({@code existing}) and inserts only when nothing is there, so
     * a duplicate costs one primary-key lookup and no insert at all (1.2 times the duplicates a second of an INSERT that
     * meets the key followed by a join, the same rate for new events: docs/benchmarks.md). A key
     * it does not see is inserted with {@code ON CONFLICT DO NOTHING}, which waits for a racing transaction's
     * uncommitted row with the same key. It returns one row: {@code (true, NULL)} for a new event,
     * {@code (false, stored fingerprint)} for a duplicate, and no row when a racing first delivery committed while
     * the INSERT waited: the statement's snapshot cannot see that row, so then, and only then,
     * {@link #FINGERPRINT_SQL} reads it with a new snapshot (PostgreSQL docs, "WITH Queries", data-modifying
     * statements share one snapshot; "Transaction Isolation", Read Committed).
     */
    static final String CLAIM_READ_SQL = "WITH existing AS (SELECT payload_sha256 FROM inbox "
            + "WHERE consumer = ? AND event_id = ?), "
            + "claim AS (INSERT INTO inbox (consumer, event_id, payload_sha256, processed_at) "
            + "SELECT ?, ?, ?, now() WHERE NOT EXISTS (SELECT FROM existing) "
            + "ON CONFLICT (consumer, event_id) DO NOTHING RETURNING 1) "
            + "SELECT true, NULL::bytea FROM claim UNION ALL SELECT false, payload_sha256 FROM existing";
    static final String CLAIM_READ_MONTHLY_SQL = "WITH existing AS (SELECT payload_sha256 FROM inbox "
            + "WHERE consumer = ? AND event_id = ? AND event_month = ?), "
            + "claim AS (INSERT INTO inbox (consumer, event_id, payload_sha256, event_month, processed_at) "
            + "SELECT ?, ?, ?, ?, now() WHERE NOT EXISTS (SELECT FROM existing) "
            + "ON CONFLICT (consumer, event_id, event_month) DO NOTHING RETURNING 1) "
            + "SELECT true, NULL::bytea FROM claim UNION ALL SELECT false, payload_sha256 FROM existing";

    /** Run only after a race (see {@link #CLAIM_READ_SQL}). */
    static final String FINGERPRINT_SQL = "SELECT payload_sha256 FROM inbox WHERE consumer = ? AND event_id = ?";
    static final String FINGERPRINT_MONTHLY_SQL = FINGERPRINT_SQL + " AND event_month = ?";

    /**
     * A group's claim ({@link #claimAll}): one INSERT of many events, in event-id order, so that two transactions
     * claiming overlapping events take their row locks in the same order and cannot deadlock on each other. Unlike
     * the single claim it does not read the keys first: for a group of new events, the usual case, a hundred lookups
     * that find nothing cost a fifth of the group's claim (0.79 times the groups a second, docs/benchmarks.md), where
     * one event's lookup is lost in its commit.
     */
    static final String CLAIM_ALL_SQL = "INSERT INTO inbox (consumer, event_id, payload_sha256, processed_at) "
            + "SELECT ?, e, decode(f, 'hex'), now() FROM unnest(?::text[], ?::text[]) AS t(e, f) ORDER BY e "
            + "ON CONFLICT (consumer, event_id) DO NOTHING RETURNING event_id, NULL::text";
    static final String CLAIM_ALL_MONTHLY_SQL = "INSERT INTO inbox (consumer, event_id, payload_sha256, event_month, "
            + "processed_at) SELECT ?, e, decode(f, 'hex'), m::date, now() "
            + "FROM unnest(?::text[], ?::text[], ?::text[]) AS t(e, f, m) ORDER BY e, m "
            + "ON CONFLICT (consumer, event_id, event_month) DO NOTHING RETURNING event_id, event_month::text";
    /**
     * The stored fingerprints of a group's events that were not inserted (a new snapshot: a racer's rows show), one
     * primary-key lookup per event: {@code LATERAL ... OFFSET 0} keeps the planner from turning them into a scan of
     * the consumer's rows, which a generic plan made while the table was small would otherwise keep until the next
     * ANALYZE ({@code event_id = ANY(?)} did).
     */
    static final String FINGERPRINTS_SQL = "SELECT k.e, NULL::text, i.payload_sha256 FROM unnest(?::text[]) AS k(e) "
            + "CROSS JOIN LATERAL (SELECT payload_sha256 FROM inbox WHERE consumer = ? AND event_id = k.e OFFSET 0) i";
    static final String FINGERPRINTS_MONTHLY_SQL = "SELECT k.e, k.m, i.payload_sha256 "
            + "FROM unnest(?::text[], ?::text[]) AS k(e, m) CROSS JOIN LATERAL (SELECT payload_sha256 FROM inbox "
            + "WHERE consumer = ? AND event_id = k.e AND event_month = k.m::date OFFSET 0) i";
    /**
     * Gives back the row a group claimed for an event it then did not deliver (it was cut short): run as one JDBC
     * batch of primary-key deletes, whose plan stays a key lookup however small the table was when it was made.
     */
    static final String RELEASE_SQL = "DELETE FROM inbox WHERE consumer = ? AND event_id = ?";
    static final String RELEASE_MONTHLY_SQL = RELEASE_SQL + " AND event_month = ?";

    /**
     * One event of a group's claim.
     *
     * @param eventId     the normalized event id
     * @param fingerprint the payload's SHA-256, {@code null} when not kept
     * @param month       the event's month in partitioned mode, {@code null} otherwise
     */
    public record Claim(String eventId, byte[] fingerprint, LocalDate month) {

        String key() {
            return month == null ? eventId : eventId + '\u0000' + month;
        }

        /**
         * @param otherId          an event id
         * @param otherFingerprint a fingerprint, {@code null} when not kept
         * @param otherMonth       a month, {@code null} unless partitioned
         * @return whether they are this key's
         */
        public boolean sameAs(String otherId, byte[] otherFingerprint, LocalDate otherMonth) {
            return eventId.equals(otherId) && java.util.Objects.equals(month, otherMonth)
                    && Arrays.equals(fingerprint, otherFingerprint);
        }
    }

    /** What a claim found. */
    public enum Result {
        /** This transaction now owns the event: process it. */
        NEW,
        /** The consumer has already processed the event (same payload, or no fingerprint to compare): skip it. */
        DUPLICATE,
        /** The consumer has processed this event id with a different payload: skip it and report it. */
        CONFLICTING_PAYLOAD
    }

    /** Per consumer: claim statements, events, nanoseconds ({@link #times}). */
    private final java.util.Map<String, java.util.concurrent.atomic.LongAdder[]> times =
            new java.util.concurrent.ConcurrentHashMap<>();

    @Inject
    InboxDatabase database;
    @Inject
    InboxTransactions transactions;

    /** {@code inbox.dead-letter.redrive-lease}, read at the first claim that resolves dead letters. */
    private volatile Duration redriveLease;

    private Duration redriveLease() {
        Duration lease = redriveLease;
        if (lease == null) {
            lease = InboxConfig.DEAD_LETTER_REDRIVE_LEASE.get(ConfigProvider.getConfig());
            redriveLease = lease;
        }
        return lease;
    }

    /**
     * Makes or checks the inbox tables now, outside any transaction (Flyway commits on its own).
     *
     * @throws IllegalStateException (INBOX0002E, INBOX0003E) when the datasource or the tables are wrong
     */
    public void ready() {
        database.dataSource();
    }

    /**
     * @param consumer the consumer's settings
     * @param delivery the delivery
     * @param eventId  its normalized event id
     * @return the event's month in partitioned mode, {@code null} otherwise
     * @throws UnprocessableEventException in partitioned mode, when the event carries no usable time
     */
    public LocalDate partitionMonth(ConsumerSettings consumer, Delivery delivery, String eventId) {
        return database.partitioned() ? consumer.eventTime().month(delivery, eventId) : null;
    }

    /**
     * @param consumer    the consumer name
     * @param eventId     the normalized event id
     * @param fingerprint the payload's SHA-256 ({@link Delivery#fingerprint()}), {@code null} when not kept
     * @param month       the event's month in partitioned mode ({@link #partitionMonth}), {@code null} otherwise
     * @return what the claim found
     * @throws SQLException          when a statement fails; the transaction must then roll back
     * @throws UnprocessableEventException in partitioned mode, when no partition holds the event's month
     * @throws IllegalStateException when no JTA transaction is active: an inbox row committed apart from the
     *                               business change would be wrong
     */
    public Result claim(String consumer, String eventId, byte[] fingerprint, LocalDate month) throws SQLException {
        if (!transactions.isActive()) {
            throw new IllegalStateException(InboxMessage.INBOX0009E.format());
        }
        long start = System.nanoTime();
        try (Connection connection = database.connection()) {
            Result result = claimOn(connection, consumer, eventId, fingerprint, month);
            if (result == Result.NEW) {
                // processed in this transaction, or not at all: a dead letter of the event is resolved with it
                InboxDeadLetters.resolveProcessed(connection, consumer, java.util.List.of(eventId),
                        java.util.Collections.singletonList(fingerprint), redriveLease());
            }
            return result;
        } catch (SQLException e) {
            if (month != null && "23514".equals(e.getSQLState())) {
                throw new UnprocessableEventException(InboxMessage.INBOX0232E.format(month), e);
            }
            throw e;
        } finally {
            timed(consumer, 1, start);
        }
    }

    /**
     * Claims many events in the caller's transaction with one statement (and a second only when some were already
     * claimed, to compare fingerprints): what {@link #claim} decides for each, in the same order. An event id that
     * occurs twice in the list is claimed by its first occurrence; the later ones are duplicates of it (or
     * conflicting payloads).
     *
     * @param consumer the consumer name
     * @param claims   the events, in delivery order
     * @return what the claim found for each event, in the order of {@code claims}
     * @throws SQLException          when a statement fails; the transaction must then roll back
     * @throws UnprocessableEventException in partitioned mode, when no partition holds an event's month
     * @throws IllegalStateException when no JTA transaction is active (INBOX0009E)
     */
    public Result[] claimAll(String consumer, java.util.List<Claim> claims) throws SQLException {
        if (!transactions.isActive()) {
            throw new IllegalStateException(InboxMessage.INBOX0009E.format());
        }
        long start = System.nanoTime();
        try (Connection connection = database.connection()) {
            return claimAllOn(connection, consumer, claims);
        } catch (SQLException e) {
            if ("23514".equals(e.getSQLState()) && !claims.isEmpty() && claims.get(0).month() != null) {
                throw new UnprocessableEventException(InboxMessage.INBOX0232E.format(
                        claims.stream().map(Claim::month).distinct().toList()), e);
            }
            throw e;
        } finally {
            timed(consumer, claims.size(), start);
        }
    }

    /**
     * What a consumer's claims cost on this server since it started, for the metrics.
     *
     * @param statements claim statements run ({@link #claim}: one event; {@link #claimAll}: a group's)
     * @param events     events those statements claimed or found
     * @param nanos      time spent in them, connection included, in nanoseconds
     */
    public record Times(long statements, long events, long nanos) {
    }

    /**
     * @param consumer the consumer name
     * @return its claims' figures on this server since it started; zeros before its first claim
     */
    public Times times(String consumer) {
        java.util.concurrent.atomic.LongAdder[] t = times.get(consumer);
        return t == null ? new Times(0, 0, 0) : new Times(t[0].sum(), t[1].sum(), t[2].sum());
    }

    private void timed(String consumer, int events, long start) {
        java.util.concurrent.atomic.LongAdder[] t = times.computeIfAbsent(consumer, c -> new java.util.concurrent
                .atomic.LongAdder[] {new java.util.concurrent.atomic.LongAdder(),
                new java.util.concurrent.atomic.LongAdder(), new java.util.concurrent.atomic.LongAdder()});
        t[0].increment();
        t[1].add(events);
        t[2].add(System.nanoTime() - start);
    }

    /**
     * Resolves, in the caller's transaction, the open dead letters of the events a group claimed and delivered
     * ({@link InboxDeadLetters#resolveProcessed}).
     *
     * @param consumer the consumer name
     * @param claims   the events the group processed (each one that {@link #claimAll} found {@code NEW})
     * @throws SQLException when the statement fails; the transaction must then roll back
     */
    public void resolveDeadLetters(String consumer, java.util.List<Claim> claims) throws SQLException {
        if (claims.isEmpty()) {
            return;
        }
        try (Connection connection = database.connection()) {
            InboxDeadLetters.resolveProcessed(connection, consumer, claims.stream().map(Claim::eventId).toList(),
                    claims.stream().map(Claim::fingerprint).collect(java.util.stream.Collectors.toList()),
                    redriveLease());
        }
    }

    /**
     * Deletes, in the caller's transaction, the rows that {@link #claimAll} inserted for events the group then did
     * not deliver, so that its commit claims only what it processed.
     *
     * @param consumer the consumer name
     * @param claims   the events to give back (each one that {@link #claimAll} found {@code NEW})
     * @throws SQLException when the statement fails; the transaction must then roll back
     */
    public void release(String consumer, java.util.List<Claim> claims) throws SQLException {
        if (claims.isEmpty()) {
            return;
        }
        try (Connection connection = database.connection()) {
            releaseOn(connection, consumer, claims);
        }
    }

    /**
     * {@link #release}'s statements on a connection whose transaction the caller owns (also used by tests).
     *
     * @param connection a connection in the group's transaction
     * @param consumer   the consumer name
     * @param claims     the events to give back
     * @return how many rows were deleted
     * @throws SQLException when a statement fails
     */
    static int releaseOn(Connection connection, String consumer, java.util.List<Claim> claims) throws SQLException {
        boolean monthly = !claims.isEmpty() && claims.get(0).month() != null;
        try (PreparedStatement delete = connection.prepareStatement(monthly ? RELEASE_MONTHLY_SQL : RELEASE_SQL)) {
            for (Claim claim : claims) {
                delete.setString(1, consumer);
                delete.setString(2, claim.eventId());
                if (monthly) {
                    delete.setObject(3, claim.month());
                }
                delete.addBatch();
            }
            int deleted = 0;
            for (int count : delete.executeBatch()) {
                deleted += Math.max(count, 0);
            }
            return deleted;
        }
    }

    /**
     * {@link #claimAll}'s statements on a connection whose transaction the caller owns (also used by tests).
     *
     * @param connection a connection in the transaction that will do the business change
     * @param consumer   the consumer name
     * @param claims     the events, in delivery order; all with a month (partitioned mode) or none
     * @return what the claim found for each event, in the order of {@code claims}
     * @throws SQLException when a statement fails
     */
    public static Result[] claimAllOn(Connection connection, String consumer, java.util.List<Claim> claims)
            throws SQLException {
        Result[] results = new Result[claims.size()];
        if (claims.isEmpty()) {
            return results;
        }
        boolean monthly = claims.get(0).month() != null;
        java.util.Map<String, Integer> first = new java.util.LinkedHashMap<>();
        for (int i = 0; i < claims.size(); i++) {
            first.putIfAbsent(claims.get(i).key(), i);
        }
        java.util.List<Claim> distinct = first.values().stream().map(claims::get).toList();
        java.util.Set<String> inserted = new java.util.HashSet<>();
        try (PreparedStatement insert = connection.prepareStatement(monthly ? CLAIM_ALL_MONTHLY_SQL : CLAIM_ALL_SQL)) {
            insert.setString(1, consumer);
            insert.setArray(2, connection.createArrayOf("text",
                    distinct.stream().map(Claim::eventId).toArray(String[]::new)));
            insert.setArray(3, connection.createArrayOf("text",
                    distinct.stream().map(c -> c.fingerprint() == null ? null : hex(c.fingerprint()))
                            .toArray(String[]::new)));
            if (monthly) {
                insert.setArray(4, connection.createArrayOf("text",
                        distinct.stream().map(c -> c.month().toString()).toArray(String[]::new)));
            }
            try (ResultSet rows = insert.executeQuery()) {
                while (rows.next()) {
                    inserted.add(key(rows.getString(1), rows.getString(2)));
                }
            }
        }
        java.util.Map<String, byte[]> stored = new java.util.HashMap<>();
        java.util.List<Claim> compare = distinct.stream()
                .filter(c -> !inserted.contains(c.key()) && c.fingerprint() != null).toList();
        if (!compare.isEmpty()) {
            try (PreparedStatement select = connection.prepareStatement(monthly ? FINGERPRINTS_MONTHLY_SQL
                    : FINGERPRINTS_SQL)) {
                int p = 1;
                select.setArray(p++, connection.createArrayOf("text",
                        compare.stream().map(Claim::eventId).toArray(String[]::new)));
                if (monthly) {
                    select.setArray(p++, connection.createArrayOf("text",
                            compare.stream().map(c -> c.month().toString()).toArray(String[]::new)));
                }
                select.setString(p, consumer);
                try (ResultSet rows = select.executeQuery()) {
                    while (rows.next()) {
                        stored.put(key(rows.getString(1), rows.getString(2)), rows.getBytes(3));
                    }
                }
            }
        }
        for (int i = 0; i < claims.size(); i++) {
            Claim claim = claims.get(i);
            int firstIndex = first.get(claim.key());
            byte[] earlier;
            if (firstIndex == i) {
                if (inserted.contains(claim.key())) {
                    results[i] = Result.NEW;
                    continue;
                }
                earlier = stored.get(claim.key());
            } else {
                // a second delivery of an event within the list: compared with the first, as if it had committed
                earlier = results[firstIndex] == Result.NEW ? claims.get(firstIndex).fingerprint()
                        : stored.get(claim.key());
            }
            results[i] = claim.fingerprint() == null || earlier == null || Arrays.equals(earlier, claim.fingerprint())
                    ? Result.DUPLICATE : Result.CONFLICTING_PAYLOAD;
        }
        return results;
    }

    private static String key(String eventId, String month) {
        return month == null ? eventId : eventId + '\u0000' + month;
    }

    private static String hex(byte[] bytes) {
        return java.util.HexFormat.of().formatHex(bytes);
    }

    /**
     * The claim's statements on a connection whose transaction the caller owns. Without a fingerprint: the INSERT
     * alone. With one: {@link #CLAIM_READ_SQL}, one statement for a new event and for a duplicate, and a second
     * (the stored fingerprint) only when a racing delivery of the same event committed while the INSERT waited.
     * Also used by the benchmark.
     *
     * @param connection  a connection in the transaction that will do the business change
     * @param consumer    the consumer name
     * @param eventId     the normalized event id
     * @param fingerprint the payload's SHA-256, {@code null} when not kept
     * @param month       the event's month in partitioned mode, {@code null} otherwise
     * @return what the claim found
     * @throws SQLException when a statement fails
     */
    public static Result claimOn(Connection connection, String consumer, String eventId, byte[] fingerprint, LocalDate month)
            throws SQLException {
        if (fingerprint == null) {
            return insert(connection, consumer, eventId, null, month) ? Result.NEW : Result.DUPLICATE;
        }
        boolean inserted;
        boolean seen;
        byte[] stored = null;
        try (PreparedStatement claim = connection.prepareStatement(month == null ? CLAIM_READ_SQL
                : CLAIM_READ_MONTHLY_SQL)) {
            int p = 1;
            claim.setString(p++, consumer);
            claim.setString(p++, eventId);
            if (month != null) {
                claim.setObject(p++, month);
            }
            claim.setString(p++, consumer);
            claim.setString(p++, eventId);
            claim.setBytes(p++, fingerprint);
            if (month != null) {
                claim.setObject(p, month);
            }
            try (ResultSet row = claim.executeQuery()) {
                seen = row.next();
                inserted = seen && row.getBoolean(1);
                if (seen) {
                    stored = row.getBytes(2);
                }
            }
        }
        if (inserted) {
            return Result.NEW;
        }
        if (!seen) { // a racing first delivery committed after this statement's snapshot was taken
            stored = storedFingerprint(connection, consumer, eventId, month);
        }
        return stored == null || Arrays.equals(stored, fingerprint) ? Result.DUPLICATE : Result.CONFLICTING_PAYLOAD;
    }

    /**
     * The claim statement itself, on a connection the caller's transaction owns.
     *
     * @param connection  a connection in the transaction that will do the business change
     * @param consumer    the consumer name
     * @param eventId     the normalized event id
     * @param fingerprint the payload's SHA-256, {@code null} when not kept
     * @param month       the event's month in partitioned mode, {@code null} otherwise
     * @return {@code true} when the row was inserted (a new event), {@code false} on a conflict (a duplicate)
     * @throws SQLException when the statement fails
     */
    public static boolean insert(Connection connection, String consumer, String eventId, byte[] fingerprint,
                          LocalDate month) throws SQLException {
        try (PreparedStatement insert = connection.prepareStatement(month == null ? CLAIM_SQL : CLAIM_MONTHLY_SQL)) {
            insert.setString(1, consumer);
            insert.setString(2, eventId);
            insert.setBytes(3, fingerprint);
            if (month != null) {
                insert.setObject(4, month);
            }
            return insert.executeUpdate() == 1;
        }
    }

    /** The fingerprint stored by a racing first delivery that committed while the claim's INSERT waited for it. */
    private static byte[] storedFingerprint(Connection connection, String consumer, String eventId, LocalDate month)
            throws SQLException {
        try (PreparedStatement select = connection.prepareStatement(month == null ? FINGERPRINT_SQL
                : FINGERPRINT_MONTHLY_SQL)) {
            select.setString(1, consumer);
            select.setString(2, eventId);
            if (month != null) {
                select.setObject(3, month);
            }
            try (ResultSet row = select.executeQuery()) {
                return row.next() ? row.getBytes(1) : null;
            }
        }
    }
}
