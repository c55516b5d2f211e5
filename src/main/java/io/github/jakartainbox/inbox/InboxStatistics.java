package io.github.jakartainbox.inbox;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * Per-consumer inbox figures: what the database holds (processed events, dead letters) and what this server
 * counted since it started (duplicates skipped, retries).
 */
@ApplicationScoped
public class InboxStatistics {

    /**
     * The figures of one consumer.
     *
     * @param consumer          the consumer name
     * @param processed         rows in {@code inbox} for this consumer (events processed and still retained)
     * @param deadLettered      rows in {@code inbox_dead_letter} for this consumer not yet re-driven
     * @param duplicatesSkipped duplicate deliveries skipped by this server since it started
     * @param retries           failed attempts retried by this server since it started
     */
    public record ConsumerFigures(String consumer, long processed, long deadLettered, long duplicatesSkipped,
                                  long retries) {
    }

    private final Map<String, LongAdder> duplicates = new ConcurrentHashMap<>();
    private final Map<String, LongAdder> retries = new ConcurrentHashMap<>();

    @Inject
    InboxDatabase database;

    void duplicateSkipped(String consumer) {
        duplicates.computeIfAbsent(consumer, c -> new LongAdder()).increment();
    }

    void retried(String consumer) {
        retries.computeIfAbsent(consumer, c -> new LongAdder()).increment();
    }

    /**
     * Reads the figures of every consumer that has inbox rows, dead letters, or counters on this server. Counts
     * the rows, so its cost grows with the inbox; meant for an operator's view, not for every message.
     *
     * @return one entry per consumer, sorted by name
     * @throws SQLException when the database cannot be read
     */
    public List<ConsumerFigures> figures() throws SQLException {
        Map<String, long[]> rows = new TreeMap<>();
        try (Connection connection = database.dataSource().getConnection()) {
            count(connection, "SELECT consumer, count(*) FROM inbox GROUP BY consumer", rows, 0);
            count(connection, "SELECT consumer, count(*) FROM inbox_dead_letter WHERE redriven_at IS NULL "
                    + "GROUP BY consumer", rows, 1);
        }
        duplicates.keySet().forEach(c -> rows.computeIfAbsent(c, k -> new long[2]));
        retries.keySet().forEach(c -> rows.computeIfAbsent(c, k -> new long[2]));
        List<ConsumerFigures> result = new ArrayList<>();
        rows.forEach((consumer, counts) -> result.add(new ConsumerFigures(consumer, counts[0], counts[1],
                sum(duplicates, consumer), sum(retries, consumer))));
        return result;
    }

    private static void count(Connection connection, String sql, Map<String, long[]> rows, int column)
            throws SQLException {
        try (PreparedStatement statement = connection.prepareStatement(sql); ResultSet rs = statement.executeQuery()) {
            while (rs.next()) {
                rows.computeIfAbsent(rs.getString(1), k -> new long[2])[column] = rs.getLong(2);
            }
        }
    }

    private static long sum(Map<String, LongAdder> counters, String consumer) {
        LongAdder adder = counters.get(consumer);
        return adder == null ? 0 : adder.sum();
    }
}
