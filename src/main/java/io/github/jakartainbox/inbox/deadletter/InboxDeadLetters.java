package io.github.jakartainbox.inbox.deadletter;

import io.github.jakartainbox.inbox.InboxConfig;
import io.github.jakartainbox.inbox.database.InboxDatabase;
import io.github.jakartainbox.inbox.database.InboxTransactions;
import io.github.jakartainbox.inbox.deadletter.internal.DeadLetterHistory;
import io.github.jakartainbox.inbox.incoming.RedriveAim;
import io.github.jakartainbox.inbox.logging.InboxMessage;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.eclipse.microprofile.config.ConfigProvider;

/**
 * The operator's view of table {@code inbox_dead_letter}: list the deliveries that could not be processed, grouped
 * by consumer and failure or one by one, re-drive one exclusively ({@link #claimRedrive}, the application's send,
 * then {@link #markRedriven(RedriveClaim, String)} or {@link #releaseRedrive}; {@link InboxRedrives} does all of it
 * with the refusal rules), discard one, or read one's {@link #history}. Every statement
 * takes its values as bind parameters. A call joins the caller's JTA transaction when there is one, and otherwise
 * commits on its own ({@link #claimRedrive} refuses a transaction: its claim must commit before the send).
 * Protect the callers: the example allows listing to role {@code billing-reader} and changes to
 * {@code billing-operator}.
 */
@ApplicationScoped
public class InboxDeadLetters {

    /** The largest {@code limit} {@link #list} accepts. */
    public static final int MAX_LIMIT = 1000;

    /** The most ids {@link #openIds} returns, and the most rows one bulk call of the example acts on. */
    public static final int MAX_BULK = 1000;

    /**
     * The most history entries kept per dead letter ({@link #history}): the newest; an older one is deleted when a
     * new one is added. The row's own counters ({@code deliveries}, {@code firstFailedAt}) still cover its whole life.
     */
    public static final int HISTORY_LIMIT = DeadLetterHistory.LIMIT;

    /**
     * The Kafka record header of a re-sent record that names the one consumer (its inbox
     * name) that may process it: the inbox makes every other {@code @Idempotent} consumer of the topic acknowledge the
     * record and skip it without effect ({@code INBOX0104I}). Absent: every consumer may process it.
     */
    public static final String REDRIVE_CONSUMER_HEADER = RedriveAim.CONSUMER_HEADER;

    /** The Kafka record header of a re-sent record that names the dead letter's id. */
    public static final String REDRIVE_DEAD_LETTER_HEADER = RedriveAim.DEAD_LETTER_HEADER;

    private static final String COLUMNS = "id, consumer, event_id, error, attempts, first_failed_at, last_failed_at, "
            + "redriven_at, discarded_at, resolved_by, coalesce(octet_length(payload), octet_length(payload_bytes), 0), "
            + "payload_bytes IS NOT NULL, deliveries, redrive_claimed_at, redrive_claimed_by";

    /** The dead letters with their payloads, each stored once and shared (schema version 14). */
    private static final String ROWS = "inbox_dead_letter LEFT JOIN inbox_dead_letter_payload USING (payload_ref)";

    private static final String OPEN = "redriven_at IS NULL AND discarded_at IS NULL";

    /**
     * A row's failure key (SQL): the message id that starts its error ({@code BILLING0130E}, {@code INBOX0208E}),
     * with the exception class after {@code INBOX0228E} ({@code INBOX0228E: java.lang.NumberFormatException}), else
     * the exception class name that does ({@code java.lang.IllegalStateException}), else {@code other}; a
     * "payload not stored (" prefix is looked through.
     */
    static final String FAILURE_KEY = "coalesce("
            // an error the failure policy does not classify: INBOX0228E and the exception class
            + "substring(error from '^(?:payload not stored \\()?(INBOX0228E: [A-Za-z_$][A-Za-z0-9_$]*(?:\\.[A-Za-z_$][A-Za-z0-9_$]*)+)'), "
            + "substring(error from '^(?:payload not stored \\()?([A-Z]{4,10}[0-9]{4}[IWE])(?::|$)'), "
            + "substring(error from '^(?:payload not stored \\()?([A-Za-z_$][A-Za-z0-9_$]*(?:\\.[A-Za-z_$][A-Za-z0-9_$]*)+)(?:[:;)]|$)'), "
            + "'other')";

    /** Who holds a row's re-drive claim, or why none was taken. */
    public enum ClaimStatus {
        /** This call holds the claim: send the record, then {@link #markRedriven(RedriveClaim, String)}. */
        CLAIMED,
        /** Another re-drive holds a live claim on the row; nothing may be sent. */
        TAKEN,
        /** The row is re-driven or discarded already. */
        NOT_OPEN,
        /** There is no row with that id. */
        NONE
    }

    /**
     * The outcome of {@link #claimRedrive}.
     *
     * @param status       whether the claim is this call's
     * @param id           the dead letter's id
     * @param claimedBy    who holds the claim ({@link ClaimStatus#CLAIMED}, {@link ClaimStatus#TAKEN}), else
     *                     {@code null}
     * @param claimedAt    when it was claimed (the claim's token), else {@code null}
     * @param expiresAt    when the claim stops counting (claimed at plus the lease), else {@code null}
     * @param lastFailedAt the row's last failure when it was claimed: a mark finds the row changed if the event
     *                     failed again meanwhile; {@code null} for {@link ClaimStatus#NONE}
     */
    public record RedriveClaim(ClaimStatus status, long id, String claimedBy, OffsetDateTime claimedAt,
                               OffsetDateTime expiresAt, OffsetDateTime lastFailedAt) {
    }

    /**
     * Open dead letters of one consumer with one failure.
     *
     * @param consumer      the consumer
     * @param failure       the failure key: the message id at the start of the error ({@code BILLING0130E}), else
     *                      the exception class name there, else {@code other}
     * @param count         how many open rows
     * @param redrivable    how many of them have an event id the consumer has not processed: a re-drive refuses the
     *                      others ({@link InboxRedrives.Status#NO_EVENT_ID}, {@link InboxRedrives.Status#PROCESSED_SINCE},
     *                      {@link InboxRedrives.Status#PROCESSED_BEFORE}, as {@link #processedAt}), they can only be
     *                      discarded
     * @param firstFailedAt the earliest first failure among them
     * @param lastFailedAt  the latest last failure among them
     */
    public record Group(String consumer, String failure, long count, long redrivable, OffsetDateTime firstFailedAt,
                        OffsetDateTime lastFailedAt) {
    }

    /**
     * One dead letter, without its payload.
     *
     * @param id            the row's id
     * @param consumer      the consumer that failed
     * @param eventId       the normalized event id, {@code null} when the event id itself was unusable
     * @param error         why it failed
     * @param attempts      processing attempts made (0 when none was possible)
     * @param firstFailedAt when it was first dead-lettered
     * @param lastFailedAt  when it was last dead-lettered
     * @param redrivenAt    when an operator re-drove it, or its consumer processed the event since (a re-drive
     *                      whose mark was lost, a replay: {@code resolvedBy} is {@value #PROCESSED_BY}{@code
     *                      <consumer>}); {@code null} if neither
     * @param discardedAt   when an operator discarded it, {@code null} if not
     * @param resolvedBy    who re-drove or discarded it
     * @param payloadBytes  the payload's size in bytes (as stored)
     * @param binary        whether the payload is kept as bytes because it is not valid UTF-8
     * @param deliveries    how many deliveries of the event (or, without a usable event id, of the same payload
     *                      bytes) failed into this row: a replayed bad record is counted here, not added as a row
     * @param redriveClaimedAt when a re-drive claimed it and has not finished yet, {@code null} if none did (an
     *                      expired claim stays here until the next claim or mark)
     * @param redriveClaimedBy who claimed it, {@code null} if no one
     */
    public record DeadLetter(long id, String consumer, String eventId, String error, int attempts,
                             OffsetDateTime firstFailedAt, OffsetDateTime lastFailedAt, OffsetDateTime redrivenAt,
                             OffsetDateTime discardedAt, String resolvedBy, long payloadBytes, boolean binary,
                             int deliveries, OffsetDateTime redriveClaimedAt, String redriveClaimedBy) {

        /** @return whether it still waits for an operator (neither re-driven nor discarded) */
        public boolean open() {
            return redrivenAt == null && discardedAt == null;
        }

        /** @return whether its consumer processed the event since, which closed it ({@link #resolveProcessed}) */
        public boolean resolvedByProcessing() {
            return redrivenAt != null && resolvedBy != null && resolvedBy.startsWith(PROCESSED_BY);
        }
    }

    /**
     * Where a re-driven record went, as its send reported it.
     *
     * @param destination the topic or queue it was sent to, {@code null} when not known
     * @param partition   its Kafka partition, {@code null} when not known (a JMS queue, an outbox not sent yet)
     * @param offset      its Kafka offset, {@code null} when not known
     */
    public record SentRecord(String destination, Integer partition, Long offset) {
    }

    /**
     * One entry of a dead letter's history.
     *
     * @param at             when it happened
     * @param kind           {@code failed} (a delivery failed into the row), {@code redriven}, {@code discarded} or
     *                       {@code processed} (the consumer processed the event since: {@link #resolveProcessed})
     * @param actor          who re-drove or discarded it (the operator's principal), the consumer for
     *                       {@code processed}; {@code null} for {@code failed}
     * @param attempts       {@code failed}: the processing attempts of that delivery; else {@code null}
     * @param error          {@code failed}: its reason, cut to 500 characters; else {@code null}
     * @param targetConsumer {@code redriven}: the one consumer the record was aimed at, {@code null} when every
     *                       consumer of the destination could process it
     * @param destination    {@code redriven}: the topic or queue it was sent to
     * @param partition      {@code redriven}: the record's Kafka partition, when known
     * @param offset         {@code redriven}: the record's Kafka offset, when known
     */
    public record HistoryEntry(OffsetDateTime at, String kind, String actor, Integer attempts, String error,
                               String targetConsumer, String destination, Integer partition, Long offset) {
    }

    @Inject
    InboxDatabase database;

    @Inject
    InboxTransactions transactions;

    /**
     * @return how long a re-drive claim holds: {@code inbox.dead-letter.redrive-lease}, default {@code PT1M}
     * @throws IllegalStateException (INBOX0004E) when the key's value is not a positive duration
     */
    public Duration redriveLease() {
        return InboxConfig.DEAD_LETTER_REDRIVE_LEASE.get(ConfigProvider.getConfig());
    }

    /**
     * Open dead letters grouped by consumer and failure ({@link Group#failure()}), most rows first.
     *
     * @param limit the most groups returned, 1 to {@value #MAX_LIMIT}
     * @return the groups
     * @throws IllegalArgumentException (INBOX0401E) when {@code limit} is out of range
     * @throws SQLException when the database cannot be read
     */
    public List<Group> groups(int limit) throws SQLException {
        checkLimit(limit, MAX_LIMIT);
        try (Connection connection = database.connection();
             PreparedStatement query = connection.prepareStatement("SELECT consumer, " + FAILURE_KEY + " AS failure, "
                     + "count(*), count(*) FILTER (WHERE event_id IS NOT NULL AND NOT EXISTS (SELECT 1 FROM inbox i "
                     + "WHERE i.consumer = d.consumer AND i.event_id = d.event_id)), min(first_failed_at), "
                     + "max(last_failed_at) FROM inbox_dead_letter d WHERE " + OPEN
                     + " GROUP BY 1, 2 ORDER BY 3 DESC, 1, 2 LIMIT ?")) {
            query.setInt(1, limit);
            List<Group> result = new ArrayList<>();
            try (ResultSet rs = query.executeQuery()) {
                while (rs.next()) {
                    result.add(new Group(rs.getString(1), rs.getString(2), rs.getLong(3), rs.getLong(4),
                            rs.getObject(5, OffsetDateTime.class), rs.getObject(6, OffsetDateTime.class)));
                }
            }
            return result;
        }
    }

    /**
     * The ids of one group's open dead letters.
     *
     * @param consumer the group's consumer
     * @param failure  the group's failure key, as {@link #groups} gives it
     * @param limit    the most ids returned, oldest row first, 1 to {@value #MAX_BULK}
     * @return the ids, ascending
     * @throws IllegalArgumentException (INBOX0401E) when {@code limit} is out of range
     * @throws SQLException when the database cannot be read
     */
    public List<Long> openIds(String consumer, String failure, int limit) throws SQLException {
        checkLimit(limit, MAX_BULK);
        try (Connection connection = database.connection();
             PreparedStatement query = connection.prepareStatement("SELECT id FROM inbox_dead_letter WHERE consumer = ? "
                     + "AND " + OPEN + " AND " + FAILURE_KEY + " = ? ORDER BY id LIMIT ?")) {
            query.setString(1, consumer);
            query.setString(2, failure);
            query.setInt(3, limit);
            List<Long> result = new ArrayList<>();
            try (ResultSet rs = query.executeQuery()) {
                while (rs.next()) {
                    result.add(rs.getLong(1));
                }
            }
            return result;
        }
    }

    /**
     * Claims an open dead letter for one re-drive, in a transaction of its own that commits before this returns, so
     * that a concurrent re-drive of the row sees the claim and sends nothing. With {@link ClaimStatus#CLAIMED}, send
     * the record, then call {@link #markRedriven(RedriveClaim, String)}, or {@link #releaseRedrive} when the send
     * failed. A claim that is neither marked nor released (the server stopped in between) stops counting after
     * {@link #redriveLease()}; the row can be re-driven again then, and the record may have been sent already (the
     * inbox skips an event its consumer processed).
     *
     * @param id       the dead letter's id
     * @param operator who re-drives it (the caller's principal), stored in {@code redrive_claimed_by}
     * @return the claim, or who holds it, or why there is none
     * @throws IllegalStateException (INBOX0240E) when called inside a JTA transaction; (INBOX0004E) when the lease
     *                               key has a wrong value
     * @throws SQLException when the database cannot be read or written
     */
    public RedriveClaim claimRedrive(long id, String operator) throws SQLException {
        if (transactions.active()) {
            throw new IllegalStateException(InboxMessage.INBOX0240E.format("claimRedrive"));
        }
        long leaseMillis = redriveLease().toMillis();
        try (Connection connection = database.connection()) {
            try (PreparedStatement claim = connection.prepareStatement("UPDATE inbox_dead_letter "
                    + "SET redrive_claimed_at = clock_timestamp(), redrive_claimed_by = ? WHERE id = ? AND " + OPEN
                    + " AND (redrive_claimed_at IS NULL OR redrive_claimed_at < now() - ? * interval '1 millisecond') "
                    + "RETURNING redrive_claimed_at, redrive_claimed_at + ? * interval '1 millisecond', last_failed_at")) {
                claim.setString(1, operator);
                claim.setLong(2, id);
                claim.setLong(3, leaseMillis);
                claim.setLong(4, leaseMillis);
                try (ResultSet rs = claim.executeQuery()) {
                    if (rs.next()) {
                        return new RedriveClaim(ClaimStatus.CLAIMED, id, operator, rs.getObject(1, OffsetDateTime.class),
                                rs.getObject(2, OffsetDateTime.class), rs.getObject(3, OffsetDateTime.class));
                    }
                }
            }
            // not claimed: say why (the row as it is now)
            try (PreparedStatement query = connection.prepareStatement("SELECT " + OPEN + ", redrive_claimed_by, "
                    + "redrive_claimed_at, redrive_claimed_at + ? * interval '1 millisecond', last_failed_at "
                    + "FROM inbox_dead_letter WHERE id = ?")) {
                query.setLong(1, leaseMillis);
                query.setLong(2, id);
                try (ResultSet rs = query.executeQuery()) {
                    if (!rs.next()) {
                        return new RedriveClaim(ClaimStatus.NONE, id, null, null, null, null);
                    }
                    OffsetDateTime lastFailedAt = rs.getObject(5, OffsetDateTime.class);
                    if (!rs.getBoolean(1)) {
                        return new RedriveClaim(ClaimStatus.NOT_OPEN, id, null, null, null, lastFailedAt);
                    }
                    return new RedriveClaim(ClaimStatus.TAKEN, id, rs.getString(2), rs.getObject(3, OffsetDateTime.class),
                            rs.getObject(4, OffsetDateTime.class), lastFailedAt);
                }
            }
        }
    }

    /**
     * Records that the claimed re-drive sent the record: the row no longer counts as open, and its claim is cleared.
     * May join the caller's transaction (a re-drive through an outbox records and marks in one).
     *
     * @param claim    a {@link ClaimStatus#CLAIMED} claim of {@link #claimRedrive}
     * @param operator who did it, stored in {@code resolved_by}
     * @return {@code false} when the row changed since the claim (the sent event failed again, someone resolved the
     *         row, or the claim expired and another re-drive took it): the row is left as it is
     * @throws IllegalArgumentException when the claim is not {@link ClaimStatus#CLAIMED}
     * @throws SQLException when the database cannot be written
     */
    public boolean markRedriven(RedriveClaim claim, String operator) throws SQLException {
        return markRedriven(claim, operator, null, null);
    }

    /**
     * As {@link #markRedriven(RedriveClaim, String)}, with the history entry ({@link #history}) saying where the record
     * went and which consumer it was aimed at. The row and its entry are written by one statement.
     *
     * @param claim    a {@link ClaimStatus#CLAIMED} claim of {@link #claimRedrive}
     * @param operator who did it, stored in {@code resolved_by} and the entry
     * @param target   the one consumer the record was aimed at ({@link #REDRIVE_CONSUMER_HEADER}), {@code null} when
     *                 every consumer of the destination may process it
     * @param sent     where the record went, {@code null} when not known
     * @return {@code false} when the row changed since the claim: the row is left as it is, and no entry is added
     * @throws IllegalArgumentException when the claim is not {@link ClaimStatus#CLAIMED}
     * @throws SQLException when the database cannot be written
     */
    public boolean markRedriven(RedriveClaim claim, String operator, String target, SentRecord sent)
            throws SQLException {
        requireClaimed(claim);
        try (Connection connection = database.connection();
             PreparedStatement update = connection.prepareStatement("WITH marked AS (UPDATE inbox_dead_letter SET "
                     + "redriven_at = now(), resolved_by = ?, redrive_claimed_at = NULL, redrive_claimed_by = NULL "
                     + "WHERE id = ? AND " + OPEN + " AND redrive_claimed_at = ? AND last_failed_at = ? RETURNING id) "
                     + "INSERT INTO inbox_dead_letter_history (dead_letter_id, at, kind, actor, target_consumer, "
                     + "destination, record_partition, record_offset) SELECT id, ?, 'redriven', ?, ?, ?, ?, ? "
                     + "FROM marked")) {
            update.setString(1, operator);
            update.setLong(2, claim.id());
            update.setObject(3, claim.claimedAt());
            update.setObject(4, claim.lastFailedAt());
            setRedriveEntry(update, 5, claim, operator, target, sent);
            if (update.executeUpdate() != 1) {
                return completeProcessedRedrive(connection, claim, operator, target, sent);
            }
            DeadLetterHistory.trim(connection, claim.id());
            return true;
        }
    }

    /**
     * The consumer processed the re-driven record before the re-drive could mark its row: {@link #resolveProcessed}
     * closed the row and entered this re-drive from its claim. Fills in where the record went and whom it was aimed
     * at, and names the operator in {@code resolved_by} as a mark would have; the re-drive counts as done.
     *
     * @return whether the row was closed by processing under this very claim
     */
    private static boolean completeProcessedRedrive(Connection connection, RedriveClaim claim, String operator,
                                                    String target, SentRecord sent) throws SQLException {
        try (PreparedStatement update = connection.prepareStatement("WITH entry AS (UPDATE inbox_dead_letter_history "
                + "SET target_consumer = ?, destination = ?, record_partition = ?, record_offset = ? "
                + "WHERE dead_letter_id = ? AND kind = 'redriven' AND at = ? AND actor = ? AND destination IS NULL "
                + "AND EXISTS (SELECT FROM inbox_dead_letter WHERE id = ? AND resolved_by LIKE '"
                + PROCESSED_BY.replace("'", "''") + "%' AND last_failed_at = ?) RETURNING dead_letter_id), "
                + "credited AS (UPDATE inbox_dead_letter SET resolved_by = ? WHERE id IN (SELECT dead_letter_id "
                + "FROM entry) RETURNING id) SELECT count(*) FROM credited")) {
            update.setString(1, target);
            update.setString(2, sent == null ? null : sent.destination());
            update.setObject(3, sent == null ? null : sent.partition(), java.sql.Types.INTEGER);
            update.setObject(4, sent == null ? null : sent.offset(), java.sql.Types.BIGINT);
            update.setLong(5, claim.id());
            update.setObject(6, claim.claimedAt());
            update.setString(7, operator);
            update.setLong(8, claim.id());
            update.setObject(9, claim.lastFailedAt());
            update.setString(10, operator);
            try (ResultSet rs = update.executeQuery()) {
                return rs.next() && rs.getInt(1) == 1;
            }
        }
    }

    /**
     * The {@code resolved_by} of a dead letter resolved by its own consumer processing the event ({@link
     * #resolveProcessed}), followed by the consumer's name.
     */
    public static final String PROCESSED_BY = "processing by consumer ";

    /**
     * Closes the open dead letters of events that the consumer has just claimed and processed, in the caller's
     * transaction, so that they commit or roll back with the inbox rows: a re-drive whose mark was lost (the server
     * stopped after the record was sent), or a replay of the event, leaves nothing open for an operator. Only the
     * rows of the processed payload are closed (a row of another payload under the same event id was never
     * processed), unless the consumer keeps no fingerprint. Each closed row gets {@code redriven_at},
     * {@code resolved_by} {@value #PROCESSED_BY}{@code <consumer>} and a history entry {@code processed}; a re-drive
     * claim found on the row is cleared, and entered first as that re-drive when it is younger than
     * {@link #redriveLease()} ({@code redriven}, when it was asked for and by whom; where the record went is not known
     * here), so the history shows it; an older one stopped counting, as in {@link #confirmsRedriveAim}.
     *
     * @param connection   a connection in the transaction that claimed the events
     * @param consumer     the consumer's inbox name
     * @param eventIds     the normalized event ids just claimed as new
     * @param fingerprints each event's payload SHA-256 in the same order, an element {@code null} when not kept
     * @param lease        {@code inbox.dead-letter.redrive-lease}, read once by the caller (a claim's hot path): a
     *                     re-drive claim older than this is not entered
     * @return how many dead letters were closed
     * @throws SQLException when the statement fails; the transaction must then roll back
     */
    public static int resolveProcessed(Connection connection, String consumer, List<String> eventIds,
                                       List<byte[]> fingerprints, java.time.Duration lease) throws SQLException {
        if (eventIds.isEmpty()) {
            return 0;
        }
        try (PreparedStatement update = connection.prepareStatement(RESOLVE_PROCESSED_SQL)) {
            update.setArray(1, connection.createArrayOf("text", eventIds.toArray(String[]::new)));
            update.setArray(2, connection.createArrayOf("text", fingerprints.stream()
                    .map(f -> f == null ? null : java.util.HexFormat.of().formatHex(f)).toArray(String[]::new)));
            update.setString(3, consumer);
            update.setString(4, PROCESSED_BY + consumer);
            // a claim older than the lease stops counting: entered as a re-drive, it would confirm aims at the
            // consumer to the topic's other consumers (confirmsRedriveAim), which would then skip the record
            update.setLong(5, lease.toMillis());
            update.setString(6, consumer);
            try (ResultSet rs = update.executeQuery()) {
                return rs.next() ? rs.getInt(1) : 0;
            }
        }
    }

    /**
     * {@link #resolveProcessed}: the open rows found by one primary-key-prefix lookup per event ({@code LATERAL ...
     * OFFSET 0}, as the claim's fingerprint read, so that a plan made while the table was small stays a lookup),
     * closed, and their entries added; answers how many.
     */
    static final String RESOLVE_PROCESSED_SQL = "WITH found AS (SELECT x.id, x.redrive_claimed_at, x.redrive_claimed_by "
            + "FROM unnest(?::text[], ?::text[]) AS k(e, f) CROSS JOIN LATERAL (SELECT id, redrive_claimed_at, "
            + "redrive_claimed_by FROM inbox_dead_letter WHERE consumer = ? AND event_id = k.e "
            + "AND event_id IS NOT NULL AND (k.f IS NULL OR payload_sha256 = decode(k.f, 'hex')) AND " + OPEN
            + " OFFSET 0) x), "
            + "closed AS (UPDATE inbox_dead_letter d SET redriven_at = now(), resolved_by = ?, "
            + "redrive_claimed_at = NULL, redrive_claimed_by = NULL FROM found WHERE d.id = found.id "
            + "AND d.redriven_at IS NULL AND d.discarded_at IS NULL "
            + "RETURNING d.id, found.redrive_claimed_at, found.redrive_claimed_by), "
            + "entries AS (INSERT INTO inbox_dead_letter_history (dead_letter_id, at, kind, actor) "
            + "SELECT id, redrive_claimed_at, 'redriven', redrive_claimed_by FROM closed "
            + "WHERE redrive_claimed_at > now() - ? * interval '1 millisecond' "
            + "UNION ALL SELECT id, clock_timestamp(), 'processed', ? FROM closed) "
            + "SELECT count(*) FROM closed";

    /**
     * Adds a re-drive's history entry without changing the row: for a record that was sent although the row changed
     * before {@link #markRedriven(RedriveClaim, String, String, SentRecord)} (its event failed again at once), so that
     * the history still shows the re-drive, before that failure.
     *
     * @param claim    the {@link ClaimStatus#CLAIMED} claim the record was sent under; its time is the entry's
     * @param operator who re-drove it
     * @param target   the one consumer the record was aimed at, {@code null} for every consumer
     * @param sent     where the record went, {@code null} when not known
     * @throws IllegalArgumentException when the claim is not {@link ClaimStatus#CLAIMED}
     * @throws SQLException when the database cannot be written
     */
    public void recordRedriveSent(RedriveClaim claim, String operator, String target, SentRecord sent)
            throws SQLException {
        requireClaimed(claim);
        try (Connection connection = database.connection();
             PreparedStatement insert = connection.prepareStatement("INSERT INTO inbox_dead_letter_history "
                     + "(dead_letter_id, at, kind, actor, target_consumer, destination, record_partition, "
                     + "record_offset) SELECT id, ?, 'redriven', ?, ?, ?, ?, ? FROM inbox_dead_letter WHERE id = ?")) {
            setRedriveEntry(insert, 1, claim, operator, target, sent);
            insert.setLong(7, claim.id());
            if (insert.executeUpdate() == 1) {
                DeadLetterHistory.trim(connection, claim.id());
            }
        }
    }

    /** Binds a re-drive entry's time (the claim's: when the operator asked), operator, target and record. */
    private static void setRedriveEntry(PreparedStatement statement, int first, RedriveClaim claim, String operator,
                                        String target, SentRecord sent) throws SQLException {
        statement.setObject(first, claim.claimedAt());
        statement.setString(first + 1, operator);
        statement.setString(first + 2, target);
        statement.setString(first + 3, sent == null ? null : sent.destination());
        statement.setObject(first + 4, sent == null ? null : sent.partition(), java.sql.Types.INTEGER);
        statement.setObject(first + 5, sent == null ? null : sent.offset(), java.sql.Types.BIGINT);
    }

    /**
     * A dead letter's history, oldest first: each failed delivery into it, each re-drive (at the time it was asked
     * for, its claim's) and each discard, the newest {@value #HISTORY_LIMIT} kept. Rows written before schema version 11 have no entries for what happened before.
     *
     * @param id the dead letter's id
     * @return its entries; empty when it has none, or there is no such row ({@link #find} tells)
     * @throws SQLException when the database cannot be read
     */
    public List<HistoryEntry> history(long id) throws SQLException {
        try (Connection connection = database.connection();
             PreparedStatement query = connection.prepareStatement("SELECT at, kind, actor, attempts, error, "
                     + "target_consumer, destination, record_partition, record_offset FROM inbox_dead_letter_history "
                     + "WHERE dead_letter_id = ? ORDER BY at, id")) {
            query.setLong(1, id);
            List<HistoryEntry> result = new ArrayList<>();
            try (ResultSet rs = query.executeQuery()) {
                while (rs.next()) {
                    result.add(new HistoryEntry(rs.getObject(1, OffsetDateTime.class), rs.getString(2),
                            rs.getString(3), (Integer) rs.getObject(4), rs.getString(5), rs.getString(6),
                            rs.getString(7), (Integer) rs.getObject(8), (Long) rs.getObject(9)));
                }
            }
            return result;
        }
    }

    /**
     * Gives a claim back without marking the row (the send failed, or the row changed): the row stays as it is, and
     * the next re-drive may claim it at once.
     *
     * @param claim a {@link ClaimStatus#CLAIMED} claim of {@link #claimRedrive}
     * @return {@code false} when the claim was no longer there (marked, or expired and taken by another re-drive)
     * @throws IllegalArgumentException when the claim is not {@link ClaimStatus#CLAIMED}
     * @throws SQLException when the database cannot be written
     */
    public boolean releaseRedrive(RedriveClaim claim) throws SQLException {
        requireClaimed(claim);
        try (Connection connection = database.connection();
             PreparedStatement update = connection.prepareStatement("UPDATE inbox_dead_letter SET redrive_claimed_at = "
                     + "NULL, redrive_claimed_by = NULL WHERE id = ? AND redrive_claimed_at = ?")) {
            update.setLong(1, claim.id());
            update.setObject(2, claim.claimedAt());
            return update.executeUpdate() == 1;
        }
    }

    private static void requireClaimed(RedriveClaim claim) {
        if (claim == null || claim.status() != ClaimStatus.CLAIMED) {
            throw new IllegalArgumentException("not a claim held by this call: " + claim);
        }
    }

    static void checkLimit(int limit, int max) {
        if (limit < 1 || limit > max) {
            throw new IllegalArgumentException(InboxMessage.INBOX0401E.format(max, limit));
        }
    }

    /**
     * @param consumer only this consumer's dead letters, {@code null} for all
     * @param openOnly only those neither re-driven nor discarded
     * @param limit    the most returned, newest failure first, 1 to {@value #MAX_LIMIT}
     * @return the dead letters
     * @throws IllegalArgumentException when {@code limit} is out of range
     * @throws SQLException when the database cannot be read
     */
    public List<DeadLetter> list(String consumer, boolean openOnly, int limit) throws SQLException {
        checkLimit(limit, MAX_LIMIT);
        String sql = "SELECT " + COLUMNS + " FROM " + ROWS + " WHERE (?::text IS NULL OR consumer = ?) "
                + (openOnly ? "AND redriven_at IS NULL AND discarded_at IS NULL " : "")
                + "ORDER BY last_failed_at DESC, id DESC LIMIT ?";
        try (Connection connection = database.connection();
             PreparedStatement query = connection.prepareStatement(sql)) {
            query.setString(1, consumer);
            query.setString(2, consumer);
            query.setInt(3, limit);
            List<DeadLetter> result = new ArrayList<>();
            try (ResultSet rs = query.executeQuery()) {
                while (rs.next()) {
                    result.add(row(rs));
                }
            }
            return result;
        }
    }

    /**
     * @param id the dead letter's id
     * @return it, empty when there is none with that id
     * @throws SQLException when the database cannot be read
     */
    public Optional<DeadLetter> find(long id) throws SQLException {
        try (Connection connection = database.connection();
             PreparedStatement query = connection.prepareStatement("SELECT " + COLUMNS
                     + " FROM " + ROWS + " WHERE id = ?")) {
            query.setLong(1, id);
            try (ResultSet rs = query.executeQuery()) {
                return rs.next() ? Optional.of(row(rs)) : Optional.empty();
            }
        }
    }

    /**
     * Whether the database confirms a record's re-drive aim: the dead letter it names exists, belongs to the consumer
     * it is aimed at, holds the record's event id and the record's very payload (the SHA-256 of its bytes, as the dead
     * letter stored it: a re-drive sends those bytes), and a re-drive of it to the record's own topic was sent (a
     * {@code redriven} history entry naming that destination, or naming none yet: its consumer processed the record
     * before the send was recorded) or is under way (a claim younger than {@link #redriveLease()}); no re-drive of it
     * went anywhere else. Only then may the topic's other consumers skip the record; headers alone are anyone's to
     * write, a record with the dead letter's event id but other bytes is another event, and a copy of a re-drive on
     * another topic (a payload that is valid there too, an aim at a consumer of another topic or of a JMS queue) is
     * no re-drive to this one.
     *
     * @param id            the dead letter id the record names ({@link #REDRIVE_DEAD_LETTER_HEADER})
     * @param consumer      the consumer it is aimed at ({@link #REDRIVE_CONSUMER_HEADER})
     * @param eventId       the record's event id, as the skipping consumer reads it
     * @param payloadSha256 the SHA-256 ({@code MessageDigest} "SHA-256") of the record's value as delivered, its
     *                      bytes or the UTF-8 of its text; {@code null} for a null value
     * @param topic         the topic the record was read from
     * @return {@code true} when all of that holds
     * @throws SQLException when the database cannot be read
     * @throws IllegalStateException (INBOX0004E) when {@code inbox.dead-letter.redrive-lease} has a wrong value
     */
    public boolean confirmsRedriveAim(long id, String consumer, String eventId, byte[] payloadSha256, String topic)
            throws SQLException {
        long leaseMillis = redriveLease().toMillis();
        try (Connection connection = database.connection();
             PreparedStatement query = connection.prepareStatement("SELECT 1 FROM inbox_dead_letter d WHERE d.id = ? "
                     + "AND d.consumer = ? AND d.event_id = ? AND d.payload_sha256 = ? "
                     + "AND NOT EXISTS (SELECT 1 FROM inbox_dead_letter_history h WHERE h.dead_letter_id = d.id "
                     + "AND h.kind = 'redriven' AND h.destination <> ?) "
                     + "AND (d.redrive_claimed_at > now() - ? * interval '1 millisecond' "
                     + "OR EXISTS (SELECT 1 FROM inbox_dead_letter_history h WHERE h.dead_letter_id = d.id "
                     + "AND h.kind = 'redriven' AND (h.destination = ? OR h.destination IS NULL)))")) {
            query.setLong(1, id);
            query.setString(2, consumer);
            query.setString(3, eventId);
            query.setBytes(4, payloadSha256 == null ? new byte[0] : payloadSha256); // a null value is stored so
            query.setString(5, topic);
            query.setLong(6, leaseMillis);
            query.setString(7, topic);
            try (ResultSet rs = query.executeQuery()) {
                return rs.next();
            }
        }
    }

    /**
     * @param id the dead letter's id
     * @return its payload as it arrived: the UTF-8 bytes of the stored text, or the stored bytes when it was not
     *         text; empty when there is no such row or it has no payload
     * @throws SQLException when the database cannot be read
     */
    public Optional<byte[]> payload(long id) throws SQLException {
        try (Connection connection = database.connection();
             PreparedStatement query = connection.prepareStatement(
                     "SELECT coalesce(convert_to(payload, 'UTF8'), payload_bytes) FROM " + ROWS + " WHERE id = ?")) {
            query.setLong(1, id);
            try (ResultSet rs = query.executeQuery()) {
                return rs.next() ? Optional.ofNullable(rs.getBytes(1)) : Optional.empty();
            }
        }
    }

    /**
     * A consumer's discarded dead letter for an event: an operator decided that consumer needs no more of it. A
     * re-drive that reaches every consumer of a topic would make that consumer process the event after all.
     *
     * @param consumer the consumer's inbox name
     * @param eventId  the normalized event id
     * @return its most recently discarded dead letter for the event (any payload); empty when it has none
     * @throws SQLException when the database cannot be read
     */
    public Optional<DeadLetter> discarded(String consumer, String eventId) throws SQLException {
        try (Connection connection = database.connection();
             PreparedStatement query = connection.prepareStatement("SELECT " + COLUMNS + " FROM " + ROWS + " "
                     + "WHERE consumer = ? AND event_id = ? AND discarded_at IS NOT NULL ORDER BY discarded_at DESC "
                     + "LIMIT 1")) {
            query.setString(1, consumer);
            query.setString(2, eventId);
            try (ResultSet rs = query.executeQuery()) {
                return rs.next() ? Optional.of(row(rs)) : Optional.empty();
            }
        }
    }

    /**
     * Whether the consumer has processed the event since: a re-drive of its dead letter would then be skipped as a
     * duplicate. That is always so for a dead letter kept because a delivery reused a processed event id with another
     * payload ({@code INBOX0103E}), and so for one whose event a later redelivery processed.
     *
     * @param consumer the consumer's inbox name
     * @param eventId  the normalized event id, as {@link DeadLetter#eventId()} holds it
     * @return when the consumer processed the event (its inbox row's {@code processed_at}); empty when it has not,
     *         or the row was purged
     * @throws SQLException when the database cannot be read
     */
    public Optional<OffsetDateTime> processedAt(String consumer, String eventId) throws SQLException {
        try (Connection connection = database.connection();
             PreparedStatement query = connection.prepareStatement(
                     "SELECT processed_at FROM inbox WHERE consumer = ? AND event_id = ?")) {
            query.setString(1, consumer);
            query.setString(2, eventId);
            try (ResultSet rs = query.executeQuery()) {
                return rs.next() ? Optional.of(rs.getObject(1, OffsetDateTime.class)) : Optional.empty();
            }
        }
    }

    /**
     * Records that an operator decided the event needs no processing, with a history entry naming the operator. The
     * row is kept for the record. A row whose re-drive is under way (a live claim) is not discarded: its record may be
     * on its way already.
     *
     * @param id       the dead letter's id
     * @param operator who did it (the caller's principal), stored in {@code resolved_by}
     * @return {@code false} when there is no open dead letter with that id, or its re-drive is under way
     * @throws IllegalStateException (INBOX0004E) when the lease key has a wrong value
     * @throws SQLException when the database cannot be written
     */
    public boolean discard(long id, String operator) throws SQLException {
        try (Connection connection = database.connection();
             PreparedStatement update = connection.prepareStatement("WITH discarded AS (UPDATE inbox_dead_letter SET "
                     + "discarded_at = now(), resolved_by = ?, redrive_claimed_at = NULL, redrive_claimed_by = NULL "
                     + "WHERE id = ? AND " + OPEN + " AND (redrive_claimed_at IS NULL OR redrive_claimed_at < now() - ? "
                     + "* interval '1 millisecond') RETURNING id) INSERT INTO inbox_dead_letter_history "
                     + "(dead_letter_id, kind, actor) SELECT id, 'discarded', ? FROM discarded")) {
            update.setString(1, operator);
            update.setLong(2, id);
            update.setLong(3, redriveLease().toMillis());
            update.setString(4, operator);
            if (update.executeUpdate() != 1) {
                return false;
            }
            DeadLetterHistory.trim(connection, id);
            return true;
        }
    }

    private static DeadLetter row(ResultSet rs) throws SQLException {
        return new DeadLetter(rs.getLong(1), rs.getString(2), rs.getString(3), rs.getString(4), rs.getInt(5),
                rs.getObject(6, OffsetDateTime.class), rs.getObject(7, OffsetDateTime.class),
                rs.getObject(8, OffsetDateTime.class), rs.getObject(9, OffsetDateTime.class), rs.getString(10),
                rs.getLong(11), rs.getBoolean(12), rs.getInt(13), rs.getObject(14, OffsetDateTime.class),
                rs.getString(15));
    }
}
