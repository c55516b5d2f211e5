package io.github.jakartainbox.outbox;

import io.github.jakartainbox.inbox.InboxTracing;
import jakarta.annotation.Resource;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.json.JsonObjectBuilder;
import jakarta.json.spi.JsonProvider;
import jakarta.transaction.Status;
import jakarta.transaction.Synchronization;
import jakarta.transaction.TransactionSynchronizationRegistry;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Types;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;
import java.util.function.Function;

/**
 * Records outgoing messages in table {@code outbox}, inside the caller's JTA transaction: the row commits with
 * the caller's business change or not at all. After the commit the {@link OutboxRelay} sends it to Kafka, at least
 * once, with the event id as header {@code event_id}, and marks it delivered once the broker acknowledged it.
 * When the inbox traces deliveries (OpenTelemetry), the record also carries the W3C trace context of the span current
 * at {@code record} ({@code traceparent}, {@code tracestate}).
 *
 * <p>Writes through the inbox datasource ({@code inbox.datasource}): within one transaction the container hands
 * out the same connection to the inbox, to JPA and to this bean, which then commit in one phase (no XA).
 */
@ApplicationScoped
public class Outbox {

    /** Looked up once: each static method of {@code jakarta.json.Json} looks the provider up again (StrictJson). */
    private static final JsonProvider JSON = JsonProvider.provider();

    private static final Object WAKE_KEY = new Object();
    private static final String INSERT_SQL = "INSERT INTO outbox (event_id, topic, record_key, payload, headers) "
            + "VALUES (?, ?, ?, ?, ?::jsonb)";

    @Resource
    TransactionSynchronizationRegistry registry;
    @Inject
    OutboxDatabase database;
    @Inject
    OutboxRelay relay;
    @Inject
    InboxTracing tracing;

    /**
     * Records a message with no extra headers.
     *
     * @see #record(String, String, Function, Map)
     */
    public UUID record(String topic, String key, Function<UUID, String> payload) {
        return record(topic, key, payload, Map.of());
    }

    /**
     * Records a message to be sent to {@code topic} after the caller's transaction commits.
     *
     * @param topic   the Kafka topic, not blank
     * @param key     the record key, or {@code null} for none; rows of one key are sent in the order of their ids,
     *                each after the previous one was acknowledged
     * @param payload makes the record value (UTF-8 text, typically JSON) from the new event id, so that the id can
     *                travel in the payload as well as in header {@code event_id}; called once, on this thread
     * @param headers extra record headers, name to UTF-8 text ({@code event_id} is set by the outbox and may not
     *                be given)
     * @return the event id: a UUIDv7 (RFC 9562, section 5.7) made now
     * @throws IllegalStateException    when the calling thread has no active JTA transaction (OUTBOX0001E names
     *                                  this method and what to do)
     * @throws IllegalArgumentException when the topic is blank, the payload is {@code null}, or a header is named
     *                                  {@code event_id}
     * @throws OutboxException          when the row cannot be written; the caller's transaction should roll back
     */
    public UUID record(String topic, String key, Function<UUID, String> payload, Map<String, String> headers) {
        if (registry.getTransactionStatus() != Status.STATUS_ACTIVE) {
            throw new IllegalStateException(OutboxLog.format(OutboxMessage.OUTBOX0001E, "Outbox.record(topic, key, payload, headers)"));
        }
        if (topic == null || topic.isBlank()) {
            throw new IllegalArgumentException("Outbox.record: the topic is blank; name the Kafka topic to send to");
        }
        Objects.requireNonNull(payload, "payload");
        if (headers.containsKey(OutboxRelay.EVENT_ID_HEADER)) {
            throw new IllegalArgumentException("Outbox.record: header '" + OutboxRelay.EVENT_ID_HEADER + "' is set by "
                    + "the outbox itself (the event id it makes); remove it from the headers given");
        }
        UUID eventId = EventIdsV7.next();
        String value = payload.apply(eventId);
        if (value == null) {
            throw new IllegalArgumentException("Outbox.record: the payload function returned null for topic " + topic);
        }
        JsonObjectBuilder json = JSON.createObjectBuilder();
        // the current trace context (traceparent, tracestate) when tracing is on, so that the consumer of this record
        // continues the trace (README, "Tracing"); headers the caller gives win
        tracing.injectCurrent((name, text) -> {
            if (!headers.containsKey(name)) {
                json.add(name, text);
            }
        });
        headers.forEach(json::add);
        try (Connection connection = database.dataSource().getConnection();
             PreparedStatement insert = connection.prepareStatement(INSERT_SQL)) {
            insert.setObject(1, eventId);
            insert.setString(2, topic);
            if (key == null) {
                insert.setNull(3, Types.VARCHAR);
            } else {
                insert.setString(3, key);
            }
            insert.setString(4, value);
            insert.setString(5, json.build().toString());
            insert.executeUpdate();
        } catch (SQLException e) {
            throw new OutboxException("Outbox.record: could not write the outbox row for topic " + topic + " ("
                    + e.getMessage() + "); the transaction should roll back and be retried", e);
        }
        wakeRelayAfterCommit();
        return eventId;
    }

    /** One synchronization per transaction: after a commit the relay starts at once, not at its next poll. */
    private void wakeRelayAfterCommit() {
        if (registry.getResource(WAKE_KEY) != null) {
            return;
        }
        registry.putResource(WAKE_KEY, Boolean.TRUE);
        registry.registerInterposedSynchronization(new Synchronization() {
            @Override
            public void beforeCompletion() {
            }

            @Override
            public void afterCompletion(int status) {
                if (status == Status.STATUS_COMMITTED) {
                    relay.wakeAfterCommit();
                }
            }
        });
    }
}
