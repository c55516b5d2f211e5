package io.github.jakartainbox.inbox.deadletter.internal;

import io.github.jakartainbox.inbox.incoming.Delivery;
import io.github.jakartainbox.inbox.incoming.KeyedRecord;
import io.github.jakartainbox.inbox.database.InboxDatabase;
import io.github.jakartainbox.inbox.failure.Failures;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.nio.charset.StandardCharsets;

/**
 * Records deliveries that could not be processed in table {@code inbox_dead_letter}, each with an entry in
 * {@code inbox_dead_letter_history}, in the caller's (new) transaction. A failed event is not in {@code inbox}, so re-sending it later processes it.
 */
@ApplicationScoped
public class DeadLetterStore {

    private static final String INSERT = "INSERT INTO inbox_dead_letter AS d "
            + "(consumer, event_id, payload_ref, error, attempts, first_failed_at, last_failed_at, "
            + "payload_sha256, deliveries) VALUES (?, ?, (SELECT ref FROM payload), ?, ?, now(), now(), ?, 1) ";

    private static final String ON_CONFLICT_UPDATE = " DO UPDATE SET "
            // the same bytes (payload_sha256 is in the key): a payload kept before stays when this one could not be
            + "payload_ref = coalesce(EXCLUDED.payload_ref, d.payload_ref), error = EXCLUDED.error, "
            + "attempts = d.attempts + EXCLUDED.attempts, deliveries = d.deliveries + 1, "
            + "payload_sha256 = EXCLUDED.payload_sha256, last_failed_at = now(), redriven_at = NULL, "
            // a discarded event stays discarded when it fails again (re-delivered, or re-driven for another
            // consumer): the operator decided it needs no processing; a re-driven one that fails is open again
            + "resolved_by = CASE WHEN d.discarded_at IS NULL THEN NULL ELSE d.resolved_by END";

    /**
     * An event with a usable id: one row per (consumer, event id, SHA-256 of the payload), so that a second payload
     * under the same event id keeps its own row instead of overwriting the first one's (schema version 9).
     */
    public static final String RECORD_SQL = INSERT
            + "ON CONFLICT (consumer, event_id, payload_sha256) WHERE event_id IS NOT NULL" + ON_CONFLICT_UPDATE;

    /**
     * A record without a usable event id: one row per (consumer, SHA-256 of the payload), so that a replayed bad
     * record is counted on its row ({@code deliveries}) instead of adding one (schema version 7).
     */
    static final String RECORD_WITHOUT_ID_SQL = INSERT
            + "ON CONFLICT (consumer, payload_sha256) WHERE event_id IS NULL" + ON_CONFLICT_UPDATE;

    /** {@code payload_sha256} of a record whose payload is null (a tombstone). */
    private static final byte[] NO_PAYLOAD = new byte[0];

    private static final int MAX_ERROR_CHARS = 4000;

    @Inject
    InboxDatabase database;

    /**
     * Records a failed delivery, with its payload or, when the row with it was refused, without it.
     *
     * @param consumer    the consumer name
     * @param eventId     the normalized event id, {@code null} when the event id itself was unusable
     * @param delivery    the failed delivery
     * @param error       the reason
     * @param attempts    how many processing attempts were made (0 when none was possible)
     * @param withPayload whether to store the payload; without it the error says it was not stored
     * @return the dead letter's id
     * @throws SQLException when the insert fails
     */
    public long record(String consumer, String eventId, Delivery delivery, String error, int attempts, boolean withPayload)
            throws SQLException {
        return record(consumer, eventId, withPayload ? delivery.payloadText() : null,
                withPayload ? delivery.payloadBytes() : null,
                withPayload ? error : "payload not stored (" + error + ")", attempts, delivery.fingerprint());
    }

    /**
     * Records a failed delivery as {@link #record(String, String, Delivery, String, int, boolean)} does and, for a
     * keyed record of a consumer that keeps the order by key ({@code dead-letter.order=key}), opens its key's sequence
     * with the dead letter as head, in the same (the caller's) transaction: both commit or neither. After the commit
     * the caller tells {@link ParkedEvents#openedBy}.
     *
     * @param opening the record whose key's sequence the dead letter opens, {@code null} for none
     * @param parked  the parked events' table, used when {@code opening} is not {@code null}
     * @return the dead letter's id
     * @throws SQLException when a statement fails
     */
    public long recordOpening(String consumer, String eventId, Delivery delivery, String error, int attempts,
                              boolean withPayload, KeyedRecord opening, ParkedEvents parked) throws SQLException {
        long id = record(consumer, eventId, delivery, error, attempts, withPayload);
        if (opening != null) {
            // a payload the dead letter was refused with is not stored with its record either
            parked.open(consumer, id, eventId, opening, withPayload ? delivery : delivery.withPayload(null));
        }
        return id;
    }

    /**
     * @param consumer the consumer name
     * @param eventId  the normalized event id, {@code null} when the event id itself was unusable
     * @param payload  the payload as text, may be {@code null}
     * @param bytes    the payload's bytes when they are not UTF-8 text, else {@code null}
     * @param error    the reason, stored (truncated to 4000 characters)
     * @param attempts how many processing attempts were made (0 when none was possible)
     * @param sha256   the SHA-256 of the payload as delivered ({@link Delivery#fingerprint()}), {@code null} for a
     *                 null payload; what finds the row again when {@code eventId} is {@code null}
     * @return the dead letter's id
     * @throws SQLException when the insert fails
     */
    public long record(String consumer, String eventId, String payload, byte[] bytes, String error, int attempts,
                byte[] sha256) throws SQLException {
        String text = bytes == null ? Failures.storable(payload) : null;
        byte[] stored = bytes != null ? bytes : text == null ? null : text.getBytes(StandardCharsets.UTF_8);
        try (Connection connection = database.connection();
             PreparedStatement insert = connection.prepareStatement(withHistory(eventId == null
                     ? RECORD_WITHOUT_ID_SQL : RECORD_SQL))) {
            insert.setBytes(1, stored == null ? null : sha256(stored));
            insert.setString(2, text);
            insert.setBytes(3, bytes);
            insert.setString(4, consumer);
            if (eventId == null) {
                insert.setNull(5, Types.VARCHAR);
            } else {
                insert.setString(5, eventId);
            }
            insert.setString(6, Failures.storable(error.length() > MAX_ERROR_CHARS ? error.substring(0, MAX_ERROR_CHARS) : error));
            insert.setInt(7, attempts);
            insert.setBytes(8, sha256 == null ? NO_PAYLOAD : sha256);
            insert.setInt(9, attempts);
            insert.setString(10, Failures.storable(DeadLetterHistory.shortError(error)));
            try (ResultSet rs = insert.executeQuery()) {
                rs.next(); // the statement always answers the row it wrote
                long id = rs.getLong(1);
                DeadLetterHistory.trim(connection, id);
                return id;
            }
        }
    }

    /**
     * @param record the row's upsert
     * @return it, with the delivery's entry in {@code inbox_dead_letter_history} (schema version 11) added by the same
     *         statement; answers the dead letter's id
     */
    public static String withHistory(String record) {
        return "WITH " + PAYLOAD + ", written AS (" + record + " RETURNING d.id) INSERT INTO inbox_dead_letter_history "
                + "(dead_letter_id, kind, attempts, error) SELECT id, 'failed', ?, ? FROM written RETURNING dead_letter_id";
    }

    /**
     * The payload, stored once in {@code inbox_dead_letter_payload} under the SHA-256 of its bytes (schema version 14)
     * and shared by every dead letter of it (several consumers of a topic refusing one record); a null key keeps no
     * payload. A row already there holds the same bytes: nothing is written then.
     */
    static final String PAYLOAD = "payload(ref, text, bytes) AS (SELECT ?::bytea, ?::text, ?::bytea), "
            + "stored AS (INSERT INTO inbox_dead_letter_payload (payload_ref, payload, payload_bytes) "
            + "SELECT ref, text, bytes FROM payload WHERE ref IS NOT NULL ON CONFLICT (payload_ref) DO NOTHING)";

    static byte[] sha256(byte[] bytes) {
        try {
            return java.security.MessageDigest.getInstance("SHA-256").digest(bytes);
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java platform has SHA-256 (MessageDigest)", e);
        }
    }
}
