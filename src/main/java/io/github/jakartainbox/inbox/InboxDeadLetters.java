package io.github.jakartainbox.inbox;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The operator's view of table {@code inbox_dead_letter}: list the deliveries that could not be processed, and
 * mark one re-driven (after the application sent it again) or discarded. Every statement takes its values as
 * bind parameters. A call joins the caller's JTA transaction when there is one, and otherwise commits on its own.
 * Protect the callers: the example allows listing to role {@code billing-reader} and changes to
 * {@code billing-operator}.
 */
@ApplicationScoped
public class InboxDeadLetters {

    /** The largest {@code limit} {@link #list} accepts. */
    public static final int MAX_LIMIT = 1000;

    private static final String COLUMNS = "id, consumer, event_id, error, attempts, first_failed_at, last_failed_at, "
            + "redriven_at, discarded_at, resolved_by, coalesce(octet_length(payload), octet_length(payload_bytes), 0), "
            + "payload_bytes IS NOT NULL, deliveries";

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
     * @param redrivenAt    when an operator re-drove it, {@code null} if not
     * @param discardedAt   when an operator discarded it, {@code null} if not
     * @param resolvedBy    who re-drove or discarded it
     * @param payloadBytes  the payload's size in bytes (as stored)
     * @param binary        whether the payload is kept as bytes because it is not valid UTF-8
     * @param deliveries    how many deliveries of the event (or, without a usable event id, of the same payload
     *                      bytes) failed into this row: a replayed bad record is counted here, not added as a row
     */
    public record DeadLetter(long id, String consumer, String eventId, String error, int attempts,
                             OffsetDateTime firstFailedAt, OffsetDateTime lastFailedAt, OffsetDateTime redrivenAt,
                             OffsetDateTime discardedAt, String resolvedBy, long payloadBytes, boolean binary,
                             int deliveries) {

        /** @return whether it still waits for an operator (neither re-driven nor discarded) */
        public boolean open() {
            return redrivenAt == null && discardedAt == null;
        }
    }

    @Inject
    InboxDatabase database;

    /**
     * @param consumer only this consumer's dead letters, {@code null} for all
     * @param openOnly only those neither re-driven nor discarded
     * @param limit    the most returned, newest failure first, 1 to {@value #MAX_LIMIT}
     * @return the dead letters
     * @throws IllegalArgumentException when {@code limit} is out of range
     * @throws SQLException when the database cannot be read
     */
    public List<DeadLetter> list(String consumer, boolean openOnly, int limit) throws SQLException {
        if (limit < 1 || limit > MAX_LIMIT) {
            throw new IllegalArgumentException(InboxLog.format(InboxMessage.INBOX0401E, MAX_LIMIT, limit));
        }
        String sql = "SELECT " + COLUMNS + " FROM inbox_dead_letter WHERE (?::text IS NULL OR consumer = ?) "
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
                     + " FROM inbox_dead_letter WHERE id = ?")) {
            query.setLong(1, id);
            try (ResultSet rs = query.executeQuery()) {
                return rs.next() ? Optional.of(row(rs)) : Optional.empty();
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
                     "SELECT coalesce(convert_to(payload, 'UTF8'), payload_bytes) FROM inbox_dead_letter WHERE id = ?")) {
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
             PreparedStatement query = connection.prepareStatement("SELECT " + COLUMNS + " FROM inbox_dead_letter "
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
     * Records that the event was sent again: it no longer counts as open. Call it after the send succeeded, with
     * the {@code lastFailedAt} read before the send: if the sent event failed again meanwhile (the row was
     * updated), the row stays open and this returns {@code false}.
     *
     * @param id           the dead letter's id
     * @param operator     who did it (the caller's principal), stored in {@code resolved_by}
     * @param lastFailedAt the row's {@link DeadLetter#lastFailedAt()} as read before sending
     * @return {@code false} when there is no open dead letter with that id and that last failure
     * @throws SQLException when the database cannot be written
     */
    public boolean markRedriven(long id, String operator, OffsetDateTime lastFailedAt) throws SQLException {
        try (Connection connection = database.connection();
             PreparedStatement update = connection.prepareStatement("UPDATE inbox_dead_letter SET redriven_at = now(), "
                     + "resolved_by = ? WHERE id = ? AND redriven_at IS NULL AND discarded_at IS NULL "
                     + "AND last_failed_at = ?")) {
            update.setString(1, operator);
            update.setLong(2, id);
            update.setObject(3, lastFailedAt);
            return update.executeUpdate() == 1;
        }
    }

    /**
     * Records that an operator decided the event needs no processing. The row is kept for the record.
     *
     * @param id       the dead letter's id
     * @param operator who did it (the caller's principal), stored in {@code resolved_by}
     * @return {@code false} when there is no open dead letter with that id
     * @throws SQLException when the database cannot be written
     */
    public boolean discard(long id, String operator) throws SQLException {
        try (Connection connection = database.connection();
             PreparedStatement update = connection.prepareStatement("UPDATE inbox_dead_letter SET discarded_at = now(), "
                     + "resolved_by = ? WHERE id = ? AND redriven_at IS NULL AND discarded_at IS NULL")) {
            update.setString(1, operator);
            update.setLong(2, id);
            return update.executeUpdate() == 1;
        }
    }

    private static DeadLetter row(ResultSet rs) throws SQLException {
        return new DeadLetter(rs.getLong(1), rs.getString(2), rs.getString(3), rs.getString(4), rs.getInt(5),
                rs.getObject(6, OffsetDateTime.class), rs.getObject(7, OffsetDateTime.class),
                rs.getObject(8, OffsetDateTime.class), rs.getObject(9, OffsetDateTime.class), rs.getString(10),
                rs.getLong(11), rs.getBoolean(12), rs.getInt(13));
    }
}
