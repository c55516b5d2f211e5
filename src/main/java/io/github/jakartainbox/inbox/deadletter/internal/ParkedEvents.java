package io.github.jakartainbox.inbox.deadletter.internal;

import io.github.jakartainbox.inbox.consumer.ConsumerSettings;
import io.github.jakartainbox.inbox.database.InboxDatabase;
import io.github.jakartainbox.inbox.incoming.Delivery;
import io.github.jakartainbox.inbox.incoming.KeyedRecord;
import io.github.jakartainbox.inbox.incoming.RedriveAim;
import io.github.jakartainbox.inbox.incoming.SequenceRedrive;
import io.github.jakartainbox.inbox.logging.InboxMessage;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The statements of dead-letter order by key (schema version 15): a dead letter of a keyed record opens its
 * consumer's sequence of that key ({@code inbox_key_sequence}), the consumer's later records of the key are parked
 * behind it ({@code inbox_parked}) until a re-drive delivers them, in order, and closes the sequence.
 *
 * <p>Parking and the re-drive's close meet on the sequence's row: a parking statement locks it {@code FOR KEY SHARE}
 * in the delivery's (or group's) transaction, the close locks it {@code FOR UPDATE} and then counts what is still
 * parked in a statement of its own, so that a record parked while the re-drive ran is seen and delivered before the
 * sequence closes, and a record arriving after the close is processed as any other.
 *
 * <p>What keeps the check cheap: this server knows, per consumer, whether it may have an open sequence at all
 * ({@link #mayHaveOpen}); read once from the database and again after a rebalance ({@link #forget}), set when this
 * server opens one. While a consumer has none, a delivery makes no statement for it.
 */
@ApplicationScoped
public class ParkedEvents {

    /** One record of a sequence as stored: the head's first ({@code deadLetterId} set), then the parked ones. */
    public record Stored(long id, Long deadLetterId, String eventId, KeyedRecord record, String payload,
                         byte[] payloadBytes, OffsetDateTime parkedAt) {
        /** @return the value as the channel's deserializer gave it: the text, else the bytes, else {@code null} */
        public Object value() {
            return payload != null ? payload : payloadBytes;
        }
    }

    /**
     * One open sequence as operators see it.
     *
     * @param id             the sequence's id
     * @param consumer       the consumer's stored name
     * @param key            the record key
     * @param headDeadLetter the head's dead letter id
     * @param headError      the head's reason
     * @param parked         how many records wait behind the head
     * @param openedAt       when the sequence opened (the head's dead letter)
     * @param oldestParkedAt when the oldest parked record was parked, {@code null} when none is
     * @param claimedBy      who holds (or last held, when expired) its re-drive lease, {@code null} when none
     * @param claimedAt      when that lease was taken or renewed
     */
    public record Sequence(long id, String consumer, String key, long headDeadLetter, String headError, long parked,
                           OffsetDateTime openedAt, OffsetDateTime oldestParkedAt, String claimedBy,
                           OffsetDateTime claimedAt) {
    }

    /** The figures of all consumers: sequences open, records parked, the oldest parked record's age. */
    public record Figures(long sequences, long parked, Duration oldestParkedAge) {
    }

    private static final String PARKED_COLUMNS = "(sequence_id, dead_letter_id, event_id, topic, kafka_partition, "
            + "kafka_offset, headers, payload_ref)";

    static final String OPEN_SQL = "WITH " + DeadLetterStore.PAYLOAD + ", "
            + "seq AS (INSERT INTO inbox_key_sequence (consumer, record_key, head_dead_letter_id) VALUES (?, ?, ?) "
            // a sequence already open (a later failure of the key): this dead letter joins it in order
            + "ON CONFLICT (consumer, record_key) DO UPDATE SET consumer = EXCLUDED.consumer RETURNING id) "
            + "INSERT INTO inbox_parked " + PARKED_COLUMNS + " SELECT seq.id, ?, ?, ?, ?, ?, ?, (SELECT ref FROM payload) "
            + "FROM seq ON CONFLICT (sequence_id, topic, kafka_partition, kafka_offset) "
            + "DO UPDATE SET dead_letter_id = EXCLUDED.dead_letter_id RETURNING sequence_id";

    static final String PARK_SQL = "WITH "
            + "seq AS (SELECT id, head_dead_letter_id AS head FROM inbox_key_sequence WHERE consumer = ? "
            + "AND record_key = ? FOR KEY SHARE), "
            // a re-drive of the head's own dead letter (InboxRedrives) goes through: it is what the others wait for.
            // The header alone is anyone's to write: the record must carry the head's very payload (a re-drive sends
            // those bytes) and its re-drive must have been claimed or sent, as for an aim
            + "waits AS (SELECT id FROM seq WHERE NOT coalesce(seq.head = ?::bigint AND EXISTS (SELECT 1 "
            + "FROM inbox_dead_letter d WHERE d.id = seq.head AND d.payload_sha256 = ?::bytea "
            + "AND (d.redrive_claimed_at IS NOT NULL OR EXISTS ("
            + "SELECT 1 FROM inbox_dead_letter_history h WHERE h.dead_letter_id = d.id AND h.kind = 'redriven'))), "
            + "false)), "
            + "payload(ref, text, bytes) AS (SELECT ?::bytea, ?::text, ?::bytea), "
            // the payload only when the record is parked: a record of a key without a sequence stores nothing
            + "stored AS (INSERT INTO inbox_dead_letter_payload (payload_ref, payload, payload_bytes) "
            + "SELECT ref, text, bytes FROM payload WHERE ref IS NOT NULL AND EXISTS (SELECT 1 FROM waits) "
            + "ON CONFLICT (payload_ref) DO NOTHING), "
            + "parked AS (INSERT INTO inbox_parked " + PARKED_COLUMNS
            + " SELECT waits.id, NULL, ?, ?, ?, ?, ?, (SELECT ref FROM payload) FROM waits "
            // delivered again (a crash before its acknowledgement): it keeps its place
            + "ON CONFLICT (sequence_id, topic, kafka_partition, kafka_offset) DO NOTHING) "
            + "SELECT count(*) FROM waits";

    @Inject
    InboxDatabase database;

    /** Per consumer: whether it may have an open sequence; absent until read. */
    private final Map<String, Boolean> mayHaveOpen = new ConcurrentHashMap<>();

    /**
     * The cheap check before any statement.
     *
     * @param consumer the consumer's stored name
     * @return whether the consumer may have an open sequence; {@code false} only when it has none
     * @throws SQLException when the count cannot be read (the first time, or after {@link #forget})
     */
    public boolean mayHaveOpen(String consumer) throws SQLException {
        Boolean known = mayHaveOpen.get(consumer);
        if (known != null) {
            return known;
        }
        boolean read;
        try (Connection connection = database.connection();
             PreparedStatement count = connection.prepareStatement(
                     "SELECT EXISTS (SELECT 1 FROM inbox_key_sequence WHERE consumer = ?)")) {
            count.setString(1, consumer);
            try (ResultSet rs = count.executeQuery()) {
                rs.next();
                read = rs.getBoolean(1);
            }
        }
        Boolean before = mayHaveOpen.putIfAbsent(consumer, read); // a sequence opened meanwhile wins
        return before != null ? before : read;
    }

    /** Forgets what is known: the next check of each consumer reads the database (a rebalance, a closed sequence). */
    public void forget() {
        mayHaveOpen.clear();
    }

    /**
     * @param consumer the failed delivery's consumer
     * @param record   the delivery's key and position, {@code null} for a record without a key
     * @return the record whose dead letter opens its key's sequence: a keyed record of a consumer that keeps the order
     *         by key, unless a re-drive of its key's sequence runs (the record becomes that sequence's new head
     *         there); else {@code null}
     */
    public static KeyedRecord opening(ConsumerSettings consumer, KeyedRecord record) {
        return consumer.orderByKey() && record != null && !SequenceRedrive.running(consumer.name(), record.key())
                ? record : null;
    }

    /**
     * After the commit of a dead letter that opened its key's sequence ({@link DeadLetterStore#recordOpening}):
     * this server's next check of the consumer reads the database, and {@code INBOX0236W} says so.
     *
     * @param consumer     the consumer's stored name
     * @param key          the record's key
     * @param deadLetterId the dead letter heading the sequence
     */
    public void openedBy(String consumer, String key, long deadLetterId) {
        mayHaveOpen.put(consumer, Boolean.TRUE);
        InboxMessage.INBOX0236W.log(consumer, key, String.valueOf(deadLetterId));
    }

    /**
     * Opens the consumer's sequence of the record's key with its dead letter as head, in the caller's transaction (the
     * dead letter's); when one is open already, the dead letter's record joins it in order.
     *
     * @param consumer     the consumer's stored name
     * @param deadLetterId the dead letter just recorded
     * @param eventId      its event id, {@code null} when unusable
     * @param record       the record's key and position
     * @param delivery     the delivery, for its payload
     * @throws SQLException when a statement fails
     */
    public void open(String consumer, long deadLetterId, String eventId, KeyedRecord record, Delivery delivery)
            throws SQLException {
        try (Connection connection = database.connection();
             PreparedStatement open = connection.prepareStatement(OPEN_SQL)) {
            int i = payload(open, 0, delivery);
            open.setString(++i, consumer);
            open.setString(++i, record.key());
            open.setLong(++i, deadLetterId);
            open.setLong(++i, deadLetterId);
            i = position(open, i, eventId, record);
            try (ResultSet rs = open.executeQuery()) {
                rs.next();
            }
        }
    }

    /**
     * Parks a record when its consumer has an open sequence of its key, in the caller's transaction (the delivery's,
     * or its group's).
     *
     * @param consumer the consumer's stored name
     * @param eventId  its event id when already read, else {@code null}
     * @param record   the record's key and position
     * @param delivery the delivery, for its payload
     * @param redriveOf the dead letter a re-driven record names ({@code InboxRedrives}), {@code null} for none: the
     *                  re-drive of a sequence's head is not parked behind it
     * @return whether it is parked (now, or by an earlier delivery of the same record): the method must not see it
     * @throws SQLException when a statement fails
     */
    public boolean parkIfOpen(String consumer, String eventId, KeyedRecord record, Delivery delivery, Long redriveOf)
            throws SQLException {
        try (Connection connection = database.connection();
             PreparedStatement park = connection.prepareStatement(PARK_SQL)) {
            park.setString(1, consumer);
            park.setString(2, record.key());
            if (redriveOf == null) {
                park.setNull(3, Types.BIGINT);
            } else {
                park.setLong(3, redriveOf);
            }
            byte[] digest = delivery.fingerprint();
            park.setBytes(4, digest == null ? new byte[0] : digest); // a null payload's dead letter holds the empty one
            int i = payload(park, 4, delivery);
            position(park, i, eventId, record);
            try (ResultSet rs = park.executeQuery()) {
                rs.next();
                return rs.getLong(1) > 0;
            }
        }
    }

    /**
     * The re-drive of a sequence's head ({@code InboxRedrives}) was processed, in the caller's transaction: its record
     * leaves the sequence, and the sequence closes when nothing is parked behind it (else the parked records wait for
     * the sequence's re-drive, which starts with them).
     *
     * @param consumer   the consumer's stored name
     * @param key        the record key
     * @param deadLetter the dead letter the re-driven record names
     * @throws SQLException when the statement fails
     */
    public void headRedriven(String consumer, String key, long deadLetter) throws SQLException {
        try (Connection connection = database.connection();
             PreparedStatement delete = connection.prepareStatement("WITH seq AS (SELECT id FROM inbox_key_sequence "
                     + "WHERE consumer = ? AND record_key = ? AND head_dead_letter_id = ? FOR UPDATE), "
                     + "gone AS (DELETE FROM inbox_parked p USING seq WHERE p.sequence_id = seq.id "
                     + "AND p.dead_letter_id = ?) "
                     + "DELETE FROM inbox_key_sequence s USING seq WHERE s.id = seq.id AND NOT EXISTS (SELECT 1 "
                     + "FROM inbox_parked p WHERE p.sequence_id = seq.id AND p.dead_letter_id IS DISTINCT FROM ?)")) {
            delete.setString(1, consumer);
            delete.setString(2, key);
            delete.setLong(3, deadLetter);
            delete.setLong(4, deadLetter);
            delete.setLong(5, deadLetter);
            delete.executeUpdate();
        }
    }

    /**
     * As {@link #headRedriven(String, String, long)} for a delivery that is a re-drive of its key's sequence head
     * ({@link #redriveOf}); nothing for any other delivery, or a consumer that does not keep the order by key.
     *
     * @param consumer the delivery's consumer
     * @param delivery the delivery just processed, in the caller's transaction
     * @throws SQLException when the statement fails
     */
    public void headRedriven(ConsumerSettings consumer, Delivery delivery) throws SQLException {
        if (!consumer.orderByKey()) {
            return;
        }
        Long deadLetter = redriveOf(RedriveAim.carrier(delivery));
        KeyedRecord record = deadLetter == null ? null : KeyedRecord.of(RedriveAim.carrier(delivery));
        if (record != null) {
            headRedriven(consumer.name(), record.key(), deadLetter);
        }
    }

    /**
     * @param message a delivered message, may be {@code null}
     * @return the dead letter id its re-drive header names ({@code InboxRedrives}), {@code null} for none or a value
     *         that is no id
     */
    public static Long redriveOf(org.eclipse.microprofile.reactive.messaging.Message<?> message) {
        String id = message == null ? null : io.github.jakartainbox.inbox.incoming.RedriveAim.deadLetterOf(message);
        try {
            return id == null ? null : Long.valueOf(id.trim());
        } catch (NumberFormatException e) {
            return null;
        }
    }

    /**
     * The keys among {@code keys} that the consumer has an open sequence of: one statement for a group, locking those
     * sequences {@code FOR KEY SHARE} until the caller's transaction ends.
     *
     * @param consumer the consumer's stored name
     * @param keys     record keys
     * @return those with an open sequence
     * @throws SQLException when the statement fails
     */
    public Set<String> openKeys(String consumer, Collection<String> keys) throws SQLException {
        Set<String> open = new HashSet<>();
        if (keys.isEmpty()) {
            return open;
        }
        try (Connection connection = database.connection();
             PreparedStatement select = connection.prepareStatement("SELECT record_key FROM inbox_key_sequence "
                     + "WHERE consumer = ? AND record_key = ANY (?) FOR KEY SHARE")) {
            select.setString(1, consumer);
            select.setArray(2, connection.createArrayOf("text", keys.toArray()));
            try (ResultSet rs = select.executeQuery()) {
                while (rs.next()) {
                    open.add(rs.getString(1));
                }
            }
        }
        return open;
    }

    private static int payload(PreparedStatement statement, int index, Delivery delivery) throws SQLException {
        String text = delivery.payloadText();
        byte[] bytes = delivery.payloadBytes();
        byte[] stored = bytes != null ? bytes : text == null ? null : text.getBytes(StandardCharsets.UTF_8);
        statement.setBytes(index + 1, stored == null ? null : DeadLetterStore.sha256(stored));
        statement.setString(index + 2, text);
        statement.setBytes(index + 3, bytes);
        return index + 3;
    }

    private static int position(PreparedStatement statement, int index, String eventId, KeyedRecord record)
            throws SQLException {
        int i = index;
        if (eventId == null) {
            statement.setNull(++i, Types.VARCHAR);
        } else {
            statement.setString(++i, eventId);
        }
        statement.setString(++i, record.topic());
        statement.setInt(++i, record.partition());
        statement.setLong(++i, record.offset());
        statement.setBytes(++i, record.encodedHeaders());
        return i;
    }

    // ---- re-drives and operators ----

    /**
     * Takes a re-drive's lease on the consumer's sequence of a key.
     *
     * @param consumer the consumer's stored name
     * @param key      the record key
     * @param operator who re-drives
     * @param lease    how long an unrenewed lease holds (a server that stopped mid-way)
     * @return the sequence's id when taken; empty when another live re-drive holds it or none is open (see
     *         {@link #find})
     * @throws SQLException when the statement fails
     */
    public java.util.OptionalLong claim(String consumer, String key, String operator, Duration lease)
            throws SQLException {
        try (Connection connection = database.connection();
             PreparedStatement claim = connection.prepareStatement("UPDATE inbox_key_sequence "
                     + "SET redrive_claimed_at = clock_timestamp(), redrive_claimed_by = ? "
                     + "WHERE consumer = ? AND record_key = ? AND (redrive_claimed_at IS NULL "
                     + "OR redrive_claimed_at < clock_timestamp() - make_interval(secs => ?)) RETURNING id")) {
            claim.setString(1, operator);
            claim.setString(2, consumer);
            claim.setString(3, key);
            claim.setDouble(4, lease.toMillis() / 1000.0);
            try (ResultSet rs = claim.executeQuery()) {
                return rs.next() ? java.util.OptionalLong.of(rs.getLong(1)) : java.util.OptionalLong.empty();
            }
        }
    }

    /**
     * Renews a re-drive's lease, or gives it back.
     *
     * @param sequenceId the sequence
     * @param operator   who holds it
     * @param keep       {@code true} to renew it, {@code false} to give it back
     * @throws SQLException when the statement fails
     */
    public void lease(long sequenceId, String operator, boolean keep) throws SQLException {
        try (Connection connection = database.connection();
             PreparedStatement update = connection.prepareStatement(keep
                     ? "UPDATE inbox_key_sequence SET redrive_claimed_at = clock_timestamp() "
                     + "WHERE id = ? AND redrive_claimed_by = ?"
                     : "UPDATE inbox_key_sequence SET redrive_claimed_at = NULL, redrive_claimed_by = NULL "
                     + "WHERE id = ? AND redrive_claimed_by = ?")) {
            update.setLong(1, sequenceId);
            update.setString(2, operator);
            update.executeUpdate();
        }
    }

    /**
     * @param sequenceId a sequence
     * @param limit      the most records returned
     * @return its first records in order, the head's first
     * @throws SQLException when the query fails
     */
    public List<Stored> records(long sequenceId, int limit) throws SQLException {
        List<Stored> found = new ArrayList<>();
        try (Connection connection = database.connection();
             PreparedStatement select = connection.prepareStatement("SELECT p.id, p.dead_letter_id, p.event_id, "
                     + "s.record_key, p.topic, p.kafka_partition, p.kafka_offset, p.headers, l.payload, "
                     + "l.payload_bytes, p.parked_at FROM inbox_parked p JOIN inbox_key_sequence s "
                     + "ON s.id = p.sequence_id LEFT JOIN inbox_dead_letter_payload l ON l.payload_ref = p.payload_ref "
                     + "WHERE p.sequence_id = ? ORDER BY p.id LIMIT ?")) {
            select.setLong(1, sequenceId);
            select.setInt(2, limit);
            try (ResultSet rs = select.executeQuery()) {
                while (rs.next()) {
                    long deadLetter = rs.getLong(2);
                    Long head = rs.wasNull() ? null : deadLetter;
                    KeyedRecord record = new KeyedRecord(rs.getString(4), rs.getString(5), rs.getInt(6),
                            rs.getLong(7), KeyedRecord.decode(rs.getBytes(8)));
                    found.add(new Stored(rs.getLong(1), head, rs.getString(3), record, rs.getString(9),
                            rs.getBytes(10), rs.getObject(11, OffsetDateTime.class)));
                }
            }
        }
        return found;
    }

    /**
     * @param parkedId a record of a sequence that was delivered (processed, or skipped as a duplicate) or discarded
     * @throws SQLException when the statement fails
     */
    public void remove(long parkedId) throws SQLException {
        try (Connection connection = database.connection();
             PreparedStatement delete = connection.prepareStatement("DELETE FROM inbox_parked WHERE id = ?")) {
            delete.setLong(1, parkedId);
            delete.executeUpdate();
        }
    }

    /**
     * Makes a record of the sequence its new head: it was dead-lettered during a re-drive.
     *
     * @param sequenceId   the sequence
     * @param parkedId     the record
     * @param deadLetterId its dead letter
     * @throws SQLException when a statement fails
     */
    public void newHead(long sequenceId, long parkedId, long deadLetterId) throws SQLException {
        try (Connection connection = database.connection();
             PreparedStatement record = connection.prepareStatement(
                     "UPDATE inbox_parked SET dead_letter_id = ? WHERE id = ?");
             PreparedStatement sequence = connection.prepareStatement(
                     "UPDATE inbox_key_sequence SET head_dead_letter_id = ? WHERE id = ?")) {
            record.setLong(1, deadLetterId);
            record.setLong(2, parkedId);
            record.executeUpdate();
            sequence.setLong(1, deadLetterId);
            sequence.setLong(2, sequenceId);
            sequence.executeUpdate();
        }
    }

    /**
     * Closes a sequence that has no record left, in the caller's transaction: locks its row first (waiting for a
     * delivery that is parking a record behind it), then counts in a statement of its own, which sees that record.
     *
     * @param sequenceId the sequence
     * @return whether it closed; {@code false} when records were parked meanwhile (deliver them first)
     * @throws SQLException when a statement fails
     */
    public boolean closeIfEmpty(long sequenceId) throws SQLException {
        try (Connection connection = database.connection()) {
            try (PreparedStatement lock = connection.prepareStatement(
                    "SELECT id FROM inbox_key_sequence WHERE id = ? FOR UPDATE")) {
                lock.setLong(1, sequenceId);
                try (ResultSet rs = lock.executeQuery()) {
                    if (!rs.next()) {
                        return true;
                    }
                }
            }
            try (PreparedStatement count = connection.prepareStatement(
                    "SELECT count(*) FROM inbox_parked WHERE sequence_id = ?")) {
                count.setLong(1, sequenceId);
                try (ResultSet rs = count.executeQuery()) {
                    rs.next();
                    if (rs.getLong(1) > 0) {
                        return false;
                    }
                }
            }
            try (PreparedStatement delete = connection.prepareStatement(
                    "DELETE FROM inbox_key_sequence WHERE id = ?")) {
                delete.setLong(1, sequenceId);
                delete.executeUpdate();
            }
            return true;
        }
    }

    /**
     * A parked record discarded with its whole sequence: it becomes a dead letter that is discarded already (its
     * payload kept, {@code error} the given text, first failed when it was parked), with a {@code discarded} history
     * entry naming the operator, and leaves the sequence; in the caller's transaction. When the consumer holds a dead
     * letter of the same event and payload already, that row gets the history entry instead and is left as it is.
     */
    static final String DISCARD_PARKED_SQL = "WITH gone AS (DELETE FROM inbox_parked WHERE id = ? "
            + "AND dead_letter_id IS NULL RETURNING event_id, payload_ref, parked_at), "
            + "written AS (INSERT INTO inbox_dead_letter AS d (consumer, event_id, payload_ref, error, attempts, "
            + "first_failed_at, last_failed_at, payload_sha256, deliveries, discarded_at, resolved_by) "
            + "SELECT ?, event_id, payload_ref, ?, 0, parked_at, now(), coalesce(payload_ref, '\\x'::bytea), 1, "
            + "now(), ? FROM gone ON CONFLICT DO NOTHING RETURNING d.id), "
            // the same event and payload dead-lettered already (a redelivery parked behind its own dead letter)
            + "existing AS (SELECT d.id FROM inbox_dead_letter d, gone WHERE NOT EXISTS (SELECT 1 FROM written) "
            + "AND d.consumer = ? AND d.payload_sha256 = coalesce(gone.payload_ref, '\\x'::bytea) "
            + "AND d.event_id IS NOT DISTINCT FROM gone.event_id LIMIT 1) "
            + "INSERT INTO inbox_dead_letter_history (dead_letter_id, kind, actor, error) "
            + "SELECT id, 'discarded', ?, ? FROM (SELECT id FROM written UNION ALL SELECT id FROM existing) t "
            + "RETURNING dead_letter_id";

    /**
     * Discards a parked record (not a head) of a sequence being discarded as a whole, in the caller's transaction:
     * kept as a discarded dead letter ({@link #DISCARD_PARKED_SQL}), removed from the sequence.
     *
     * @param parkedId the record
     * @param consumer the consumer's stored name
     * @param error    the text kept as the dead letter's reason and in its history entry
     * @param operator who discards
     * @return the dead letter that keeps it; empty when the record was no longer parked
     * @throws SQLException when the statement fails
     */
    public java.util.OptionalLong discardParked(long parkedId, String consumer, String error, String operator)
            throws SQLException {
        try (Connection connection = database.connection();
             PreparedStatement discard = connection.prepareStatement(DISCARD_PARKED_SQL)) {
            discard.setLong(1, parkedId);
            discard.setString(2, consumer);
            discard.setString(3, error);
            discard.setString(4, operator);
            discard.setString(5, consumer);
            discard.setString(6, operator);
            discard.setString(7, DeadLetterHistory.shortError(error));
            try (ResultSet rs = discard.executeQuery()) {
                if (!rs.next()) {
                    return java.util.OptionalLong.empty();
                }
                long id = rs.getLong(1);
                DeadLetterHistory.trim(connection, id);
                return java.util.OptionalLong.of(id);
            }
        }
    }

    /**
     * @param deadLetterIds dead letters
     * @return the open sequences headed by any of them, by head dead letter id
     * @throws SQLException when the query fails
     */
    public Map<Long, Sequence> headedBy(Collection<Long> deadLetterIds) throws SQLException {
        Map<Long, Sequence> found = new java.util.HashMap<>();
        if (deadLetterIds.isEmpty()) {
            return found;
        }
        try (Connection connection = database.connection();
             PreparedStatement select = connection.prepareStatement(SEQUENCES
                     + "WHERE s.head_dead_letter_id = ANY (?)")) {
            select.setArray(1, connection.createArrayOf("bigint", deadLetterIds.toArray()));
            try (ResultSet rs = select.executeQuery()) {
                while (rs.next()) {
                    Sequence sequence = sequence(rs);
                    found.put(sequence.headDeadLetter(), sequence);
                }
            }
        }
        return found;
    }

    private static final String SEQUENCES = "SELECT s.id, s.consumer, s.record_key, s.head_dead_letter_id, d.error, "
            + "(SELECT count(*) FROM inbox_parked p WHERE p.sequence_id = s.id AND p.dead_letter_id IS NULL), "
            + "s.opened_at, (SELECT min(p.parked_at) FROM inbox_parked p WHERE p.sequence_id = s.id "
            + "AND p.dead_letter_id IS NULL), s.redrive_claimed_by, s.redrive_claimed_at "
            + "FROM inbox_key_sequence s JOIN inbox_dead_letter d ON d.id = s.head_dead_letter_id ";

    /**
     * @param consumer a consumer's stored name, {@code null} for all
     * @param limit    the most sequences returned
     * @return the open sequences, oldest first
     * @throws SQLException when the query fails
     */
    public List<Sequence> list(String consumer, int limit) throws SQLException {
        List<Sequence> found = new ArrayList<>();
        try (Connection connection = database.connection();
             PreparedStatement select = connection.prepareStatement(SEQUENCES
                     + "WHERE (?::text IS NULL OR s.consumer = ?) ORDER BY s.opened_at, s.id LIMIT ?")) {
            select.setString(1, consumer);
            select.setString(2, consumer);
            select.setInt(3, limit);
            try (ResultSet rs = select.executeQuery()) {
                while (rs.next()) {
                    found.add(sequence(rs));
                }
            }
        }
        return found;
    }

    /**
     * @param consumer a consumer's stored name
     * @param key      a record key
     * @return its open sequence, empty when none is open
     * @throws SQLException when the query fails
     */
    public java.util.Optional<Sequence> find(String consumer, String key) throws SQLException {
        try (Connection connection = database.connection();
             PreparedStatement select = connection.prepareStatement(SEQUENCES
                     + "WHERE s.consumer = ? AND s.record_key = ?")) {
            select.setString(1, consumer);
            select.setString(2, key);
            try (ResultSet rs = select.executeQuery()) {
                return rs.next() ? java.util.Optional.of(sequence(rs)) : java.util.Optional.empty();
            }
        }
    }

    private static Sequence sequence(ResultSet rs) throws SQLException {
        return new Sequence(rs.getLong(1), rs.getString(2), rs.getString(3), rs.getLong(4), rs.getString(5),
                rs.getLong(6), rs.getObject(7, OffsetDateTime.class), rs.getObject(8, OffsetDateTime.class),
                rs.getString(9), rs.getObject(10, OffsetDateTime.class));
    }

    /**
     * @return the figures of all consumers
     * @throws SQLException when the query fails
     */
    public Figures figures() throws SQLException {
        try (Connection connection = database.connection();
             PreparedStatement select = connection.prepareStatement("SELECT (SELECT count(*) FROM inbox_key_sequence), "
                     + "count(*), coalesce(extract(epoch FROM clock_timestamp() - min(parked_at)), 0) "
                     + "FROM inbox_parked WHERE dead_letter_id IS NULL");
             ResultSet rs = select.executeQuery()) {
            rs.next();
            return new Figures(rs.getLong(1), rs.getLong(2), Duration.ofMillis((long) (rs.getDouble(3) * 1000)));
        }
    }
}
