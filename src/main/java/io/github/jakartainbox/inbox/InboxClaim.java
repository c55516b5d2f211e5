package io.github.jakartainbox.inbox;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.LocalDate;
import java.util.Arrays;

/**
 * The claim: one {@code INSERT ... ON CONFLICT DO NOTHING} through the JTA-enlisted datasource, in the caller's
 * transaction. PostgreSQL decides between racing transactions: an insert that meets an uncommitted row with the
 * same key waits for that transaction; when it commits the insert does nothing (duplicate), when it rolls back
 * the insert proceeds. No unique violation is raised, so the transaction stays usable after a duplicate
 * (PostgreSQL docs, "INSERT ... ON CONFLICT", and "Transaction Isolation", Read Committed).
 */
@ApplicationScoped
class InboxClaim {

    static final String CLAIM_SQL = "INSERT INTO inbox (consumer, event_id, payload_sha256, processed_at) "
            + "VALUES (?, ?, ?, now()) ON CONFLICT (consumer, event_id) DO NOTHING";

    /** Partitioned mode: the key includes the event's month, which is the same on every delivery. */
    static final String CLAIM_MONTHLY_SQL = "INSERT INTO inbox (consumer, event_id, payload_sha256, event_month, "
            + "processed_at) VALUES (?, ?, ?, ?, now()) ON CONFLICT (consumer, event_id, event_month) DO NOTHING";

    /**
     * The claim and, for a duplicate, the stored fingerprint, in one statement: a first delivery and a duplicate
     * each cost one round trip. The join reads the statement's snapshot, so a row that a racing transaction committed
     * while this INSERT waited on its key is not seen there; then, and only then, {@link #FINGERPRINT_SQL} reads it
     * with a new snapshot (PostgreSQL docs, "WITH Queries", data-modifying statements share the snapshot; and
     * "Transaction Isolation", Read Committed).
     */
    static final String CLAIM_READ_SQL = "WITH claim AS (" + CLAIM_SQL + " RETURNING 1) "
            + "SELECT (SELECT count(*) FROM claim), i.event_id IS NOT NULL, i.payload_sha256 "
            + "FROM (SELECT 1) AS one LEFT JOIN inbox i ON i.consumer = ? AND i.event_id = ?";
    static final String CLAIM_READ_MONTHLY_SQL = "WITH claim AS (" + CLAIM_MONTHLY_SQL + " RETURNING 1) "
            + "SELECT (SELECT count(*) FROM claim), i.event_id IS NOT NULL, i.payload_sha256 "
            + "FROM (SELECT 1) AS one LEFT JOIN inbox i ON i.consumer = ? AND i.event_id = ? AND i.event_month = ?";

    /** Run only after a race (see {@link #CLAIM_READ_SQL}). */
    static final String FINGERPRINT_SQL = "SELECT payload_sha256 FROM inbox WHERE consumer = ? AND event_id = ?";
    static final String FINGERPRINT_MONTHLY_SQL = FINGERPRINT_SQL + " AND event_month = ?";

    /** What a claim found. */
    enum Result {
        /** This transaction now owns the event: process it. */
        NEW,
        /** The consumer has already processed the event (same payload, or no fingerprint to compare): skip it. */
        DUPLICATE,
        /** The consumer has processed this event id with a different payload: skip it and report it. */
        CONFLICTING_PAYLOAD
    }

    @Inject
    InboxDatabase database;
    @Inject
    InboxTransactions transactions;

    /**
     * Makes or checks the inbox tables now, outside any transaction (Flyway commits on its own).
     *
     * @throws IllegalStateException (INBOX0002E, INBOX0003E) when the datasource or the tables are wrong
     */
    void ready() {
        database.dataSource();
    }

    /**
     * @param consumer the consumer's settings
     * @param delivery the delivery
     * @param eventId  its normalized event id
     * @return the event's month in partitioned mode, {@code null} otherwise
     * @throws UnprocessableEventException in partitioned mode, when the event carries no usable time
     */
    LocalDate partitionMonth(ConsumerSettings consumer, Delivery delivery, String eventId) {
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
    Result claim(String consumer, String eventId, byte[] fingerprint, LocalDate month) throws SQLException {
        if (!transactions.isActive()) {
            throw new IllegalStateException(InboxLog.format(InboxMessage.INBOX0009E));
        }
        try (Connection connection = database.connection()) {
            return claimOn(connection, consumer, eventId, fingerprint, month);
        } catch (SQLException e) {
            if (month != null && "23514".equals(e.getSQLState())) {
                throw new UnprocessableEventException(InboxLog.format(InboxMessage.INBOX0232E, month), e);
            }
            throw e;
        }
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
    static Result claimOn(Connection connection, String consumer, String eventId, byte[] fingerprint, LocalDate month)
            throws SQLException {
        if (fingerprint == null) {
            return insert(connection, consumer, eventId, null, month) ? Result.NEW : Result.DUPLICATE;
        }
        boolean inserted;
        boolean seen;
        byte[] stored;
        try (PreparedStatement claim = connection.prepareStatement(month == null ? CLAIM_READ_SQL
                : CLAIM_READ_MONTHLY_SQL)) {
            int p = 1;
            claim.setString(p++, consumer);
            claim.setString(p++, eventId);
            claim.setBytes(p++, fingerprint);
            if (month != null) {
                claim.setObject(p++, month);
            }
            claim.setString(p++, consumer);
            claim.setString(p++, eventId);
            if (month != null) {
                claim.setObject(p, month);
            }
            try (ResultSet row = claim.executeQuery()) {
                row.next();
                inserted = row.getLong(1) == 1;
                seen = row.getBoolean(2);
                stored = row.getBytes(3);
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
    static boolean insert(Connection connection, String consumer, String eventId, byte[] fingerprint,
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
