package io.github.jakartainbox.outbox;

import jakarta.json.JsonObject;
import jakarta.json.JsonReader;
import jakarta.json.JsonString;
import jakarta.json.spi.JsonProvider;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import javax.sql.DataSource;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;

/**
 * One relay: takes the lease, then sends rounds of pending rows until none is left to send, then gives the lease
 * back. Per round at most one row per key is sent (the first pending one), so a key's next row goes only after the
 * previous one was acknowledged and marked: per-key order holds through failures and backoffs. A row is marked
 * delivered only after the broker acknowledged it (the producer runs with {@code acks=all}).
 */
final class RelayWorker {

    /** Looked up once: each static method of {@code jakarta.json.Json} looks the provider up again (StrictJson). */
    private static final JsonProvider JSON = JsonProvider.provider();

    /** The relay's settings. */
    record Settings(int batchSize, Duration lease, Duration retryDelay, Duration retryMaxDelay, int failingAfter) {
    }

    private final DataSource dataSource;
    private final Producer<String, String> producer;
    private final Settings settings;
    private final String owner = UUID.randomUUID().toString();
    private volatile boolean stopped;

    RelayWorker(DataSource dataSource, Producer<String, String> producer, Settings settings) {
        this.dataSource = dataSource;
        this.producer = producer;
        this.settings = settings;
    }

    void stop() {
        stopped = true;
    }

    /**
     * Relays every pending row that is due.
     *
     * @return the rows delivered, or -1 when another relay holds the lease
     * @throws SQLException when the database cannot be used; the lease then expires by itself
     */
    int drain() throws SQLException {
        try (Connection connection = dataSource.getConnection()) {
            if (!RelayStatements.lease(connection, owner, settings.lease())) {
                return -1;
            }
            int delivered = 0;
            try {
                while (!stopped) {
                    List<RelayStatements.Row> round = sendable(RelayStatements.pending(connection, settings.batchSize()));
                    if (round.isEmpty()) {
                        break;
                    }
                    delivered += send(connection, round);
                    if (!RelayStatements.lease(connection, owner, settings.lease())) {
                        OutboxMessage.OUTBOX0204W.log();
                        return delivered;
                    }
                }
            } finally {
                RelayStatements.release(connection, owner);
            }
            return delivered;
        }
    }

    /**
     * @param pending rows in id order
     * @return the first pending row of each key when it is due, and every due row without a key
     */
    static List<RelayStatements.Row> sendable(List<RelayStatements.Row> pending) {
        Set<String> seenKeys = new HashSet<>();
        List<RelayStatements.Row> round = new ArrayList<>();
        for (RelayStatements.Row row : pending) {
            boolean first = row.key() == null || seenKeys.add(row.key());
            if (first && row.due()) {
                round.add(row);
            }
        }
        return round;
    }

    private int send(Connection connection, List<RelayStatements.Row> round) throws SQLException {
        List<Future<RecordMetadata>> sent = new ArrayList<>(round.size());
        for (RelayStatements.Row row : round) {
            try {
                sent.add(producer.send(record(row)));
            } catch (RuntimeException e) {
                // a synchronous refusal (no metadata within max.block.ms: the broker is away; a record too large):
                // this row fails, the rest of the round waits for the next one
                sent.add(CompletableFuture.failedFuture(e));
                break;
            }
        }
        producer.flush();
        List<Long> delivered = new ArrayList<>();
        for (int i = 0; i < sent.size(); i++) {
            RelayStatements.Row row = round.get(i);
            try {
                sent.get(i).get();
                delivered.add(row.id());
            } catch (ExecutionException e) {
                failed(connection, row, e.getCause() == null ? e : e.getCause());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        RelayStatements.delivered(connection, delivered);
        return delivered.size();
    }

    private void failed(Connection connection, RelayStatements.Row row, Throwable cause) throws SQLException {
        int attempts = row.attempts() + 1;
        Duration backoff = backoff(attempts, settings.retryDelay(), settings.retryMaxDelay());
        String error = cause.getClass().getName() + ": " + cause.getMessage();
        RelayStatements.failed(connection, row.id(), error.length() > 4000 ? error.substring(0, 4000) : error, backoff);
        if (attempts == settings.failingAfter()) {
            OutboxMessage.OUTBOX0202E.log(String.valueOf(row.id()), row.eventId(), row.topic(),
                    String.valueOf(attempts), error);
        } else {
            OutboxMessage.OUTBOX0201W.log(String.valueOf(row.id()), row.eventId(), row.topic(),
                    String.valueOf(attempts), String.valueOf(backoff.toMillis()), error);
        }
    }

    /**
     * @param attempts failed sends so far, at least 1
     * @return {@code delay} doubled for each failure after the first, at most {@code maxDelay}
     */
    static Duration backoff(int attempts, Duration delay, Duration maxDelay) {
        Duration wait = delay;
        for (int i = 1; i < attempts && wait.compareTo(maxDelay) < 0; i++) {
            wait = wait.multipliedBy(2);
        }
        return wait.compareTo(maxDelay) > 0 ? maxDelay : wait;
    }

    static ProducerRecord<String, String> record(RelayStatements.Row row) {
        ProducerRecord<String, String> record = new ProducerRecord<>(row.topic(), row.key(), row.payload());
        if (row.headersJson() != null) {
            try (JsonReader reader = JSON.createReader(new StringReader(row.headersJson()))) {
                JsonObject headers = reader.readObject();
                headers.forEach((name, value) -> record.headers().add(name, ((JsonString) value).getString()
                        .getBytes(StandardCharsets.UTF_8)));
            }
        }
        record.headers().add(OutboxRelay.EVENT_ID_HEADER, row.eventId().toString().getBytes(StandardCharsets.UTF_8));
        return record;
    }
}
