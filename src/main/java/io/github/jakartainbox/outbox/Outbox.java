package io.github.jakartainbox.outbox;

import io.github.jakartainbox.inbox.tracing.InboxTracing;
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
import java.util.ArrayList;
import java.util.List;
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
 * out the same connection to the inbox, to JPA and to this bean, which then commit in one phase (no XA). The rows
 * one transaction records are written together, in one JDBC batch, just before it commits (an interposed JTA
 * {@link Synchronization}): a group of the {@code inbox-kafka} connector that records one row per message pays one
 * round trip for all of them.
 */
@ApplicationScoped
public class Outbox {

    /** Looked up once: each static method of {@code jakarta.json.Json} looks the provider up again (StrictJson). */
    private static final JsonProvider JSON = JsonProvider.provider();

    /** The current transaction's rows not written yet ({@link TransactionSynchronizationRegistry} resource). */
    private static final Object ROWS_KEY = new Object();
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
     * <p>The row is written just before the transaction commits, with the other rows it recorded. When it cannot be
     * written (the table missing, the database gone) OUTBOX0006E is logged with the cause, the transaction rolls back,
     * and its commit fails with a {@code RollbackException}.
     *
     * @param topic   the Kafka topic, not blank
     * @param key     the record key, or {@code null} for none; rows of one key are sent in the order of their ids,
     *                each after the previous one was acknowledged
     * @param payload makes the record value (UTF-8 text, typically JSON) from the new event id, so that the id can
     *                travel in the payload as well as in header {@code event_id}; called once, on this thread
     * @param headers extra record headers, name to UTF-8 text ({@code event_id} is set by the outbox and may not
     *                be given)
     * @return the event id: a UUIDv7 (RFC 9562, section 5.7) made now
     * @throws IllegalStateException    when the calling thread has no JTA transaction (OUTBOX0001E names this method
     *                                  and what to do), or one no longer active, timed out or marked for rollback
     *                                  (OUTBOX0007E)
     * @throws IllegalArgumentException when the topic is blank, the payload is {@code null}, a header is named
     *                                  {@code event_id}, or the payload or a header holds U+0000, which PostgreSQL
     *                                  text and jsonb cannot store
     */
    public UUID record(String topic, String key, Function<UUID, String> payload, Map<String, String> headers) {
        int status = registry.getTransactionStatus();
        if (status == Status.STATUS_NO_TRANSACTION) {
            throw new IllegalStateException(OutboxMessage.OUTBOX0001E.format("Outbox.record(topic, key, payload, headers)"));
        }
        if (status != Status.STATUS_ACTIVE) {
            // a timed-out or rolled-back transaction is the caller's state, not a missing transaction
            throw new IllegalStateException(OutboxMessage.OUTBOX0007E.format(
                    "Outbox.record(topic, key, payload, headers)", status == Status.STATUS_MARKED_ROLLBACK
                            ? "marked for rollback" : "JTA status " + status));
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
        if (value.indexOf('\0') >= 0 || headers.values().stream().anyMatch(h -> h != null && h.indexOf('\0') >= 0)) {
            throw new IllegalArgumentException("Outbox.record: the payload or a header for topic " + topic + " holds "
                    + "U+0000, which PostgreSQL text and jsonb cannot store; remove it or encode the value (Base64)");
        }
        JsonObjectBuilder json = JSON.createObjectBuilder();
        // the current trace context (traceparent, tracestate) when tracing is on, so that the consumer of this record
        // continues the trace (docs/observability.md, "Tracing"); headers the caller gives win
        tracing.injectCurrent((name, text) -> {
            if (!headers.containsKey(name)) {
                json.add(name, text);
            }
        });
        headers.forEach(json::add);
        pendingRows().add(new Row(eventId, topic, key, value, json.build().toString()));
        return eventId;
    }

    /** A row recorded in the current transaction, written before it commits. */
    private record Row(UUID eventId, String topic, String key, String payload, String headersJson) {
    }

    /**
     * The rows recorded in the current transaction. The first call registers the synchronization that writes them
     * all, in one JDBC batch, just before the transaction commits (a transaction that rolls back writes none), and
     * wakes the relay after the commit.
     */
    @SuppressWarnings("unchecked")
    private List<Row> pendingRows() {
        List<Row> rows = (List<Row>) registry.getResource(ROWS_KEY);
        if (rows != null) {
            return rows;
        }
        List<Row> pending = new ArrayList<>();
        registry.putResource(ROWS_KEY, pending);
        registry.registerInterposedSynchronization(new Synchronization() {
            @Override
            public void beforeCompletion() {
                write(pending);
            }

            @Override
            public void afterCompletion(int status) {
                if (status == Status.STATUS_COMMITTED) {
                    relay.wakeAfterCommit();
                }
            }
        });
        return pending;
    }

    /**
     * Writes the rows in one JDBC batch (one round trip) on the transaction's connection, in the order they were
     * recorded, so that their ids keep that order.
     *
     * @throws OutboxException when the rows cannot be written (OUTBOX0006E is logged): the transaction rolls back
     */
    private void write(List<Row> rows) {
        try (Connection connection = database.dataSource().getConnection();
             PreparedStatement insert = connection.prepareStatement(INSERT_SQL)) {
            for (Row row : rows) {
                insert.setObject(1, row.eventId());
                insert.setString(2, row.topic());
                if (row.key() == null) {
                    insert.setNull(3, Types.VARCHAR);
                } else {
                    insert.setString(3, row.key());
                }
                insert.setString(4, row.payload());
                insert.setString(5, row.headersJson());
                insert.addBatch();
            }
            insert.executeBatch();
        } catch (SQLException e) {
            SQLException cause = e.getNextException() != null ? e.getNextException() : e;
            String message = OutboxMessage.OUTBOX0006E.format(String.valueOf(rows.size()),
                    rows.get(0).topic(), cause.getMessage());
            OutboxLog.LOG.log(OutboxMessage.OUTBOX0006E.level(), message);
            throw new OutboxException(message, cause);
        }
    }
}
