package io.github.jakartainbox.inbox;

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
import java.util.Optional;
import org.eclipse.microprofile.config.ConfigProvider;
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
     * @param deadLettered      rows in {@code inbox_dead_letter} for this consumer neither re-driven nor discarded
     * @param duplicatesSkipped duplicate deliveries skipped by this server since it started
     * @param retries           failed attempts retried by this server since it started that used up an attempt
     * @param transientWaits    waits by this server since it started that used up no attempt, the partition waiting:
     *                          a transient database error (lock or statement timeout, deadlock, serialization
     *                          failure), a database outage, a downstream system unavailable
     * @param redrivesForOthersSkipped re-driven records aimed at another consumer of the topic that this server
     *                          skipped since it started, each confirmed by its dead letter ({@code INBOX0104I})
     * @param redriveAimsRejected records naming a re-drive for another consumer that the database did not confirm,
     *                          processed as any other by this server since it started ({@code INBOX0105W}): a
     *                          producer or a bridge writes the re-drive headers
     */
    public record ConsumerFigures(String consumer, long processed, long deadLettered, long duplicatesSkipped,
                                  long retries, long transientWaits, long redrivesForOthersSkipped,
                                  long redriveAimsRejected) {
    }

    /**
     * The state of the retention purge, shared by all servers of the database.
     *
     * @param lastStartedAt  when the last run started, {@code null} if none ever did
     * @param lastFinishedAt when the last successful run finished, {@code null} if none ever did
     * @param lastDeleted    rows removed by the last successful run (partitions dropped count with their
     *                       estimated rows)
     * @param totalDeleted   rows removed by all runs, a running total
     * @param totalBatches   DELETE transactions of all runs
     * @param lastError      why the last run failed, {@code null} when it succeeded, and while this server's
     *                       purge has not run since it started (an error recorded before is not news then)
     * @param lastErrorAt    when it failed
     * @param overdue        no successful run within {@value InboxConfig#PURGE_OVERDUE_AFTER} (default PT1H),
     *                       or the last run failed
     * @param overdueAfter   that duration
     */
    public record PurgeStatus(OffsetDateTime lastStartedAt, OffsetDateTime lastFinishedAt, long lastDeleted,
                              long totalDeleted, long totalBatches, String lastError, OffsetDateTime lastErrorAt, boolean overdue,
                              Duration overdueAfter) {
    }

    /** The inbox's tables, for the figures they hold: implemented by the inbox's database bean, not by applications. */
    public interface Tables {

        /**
         * @return a connection of the inbox datasource
         * @throws SQLException when none can be had
         */
        Connection connection() throws SQLException;

        /** @return the schema versions this library ships for the configured mode ({@link #shippedSchemaVersions}) */
        java.util.SortedSet<String> shippedSchemaVersions();
    }

    /** This server's news of the retention purge: implemented by the purge, not by applications. */
    public interface PurgeNews {

        /** @return whether the purge has run on this server since the application started */
        boolean ranSinceStart();

        /** @return this server's last failed run that the state row could not record */
        Optional<? extends PurgeFailure> unrecordedFailure();
    }

    /** A failed purge run: when, and why. */
    public interface PurgeFailure {

        /** @return when it failed */
        OffsetDateTime at();

        /** @return why */
        String error();
    }

    private final Map<String, LongAdder> duplicates = new ConcurrentHashMap<>();
    private final Map<String, LongAdder> retries = new ConcurrentHashMap<>();
    private final Map<String, LongAdder> redrivesForOthers = new ConcurrentHashMap<>();
    private final Map<String, LongAdder> redriveAimsRejected = new ConcurrentHashMap<>();
    private final Map<String, LongAdder> transientWaits = new ConcurrentHashMap<>();

    @Inject
    Tables database;
    @Inject
    PurgeNews purge;

    public void duplicateSkipped(String consumer) {
        duplicates.computeIfAbsent(consumer, c -> new LongAdder()).increment();
    }

    public void redriveForOtherSkipped(String consumer) {
        redrivesForOthers.computeIfAbsent(consumer, c -> new LongAdder()).increment();
    }

    /**
     * @param consumer a consumer's inbox name
     * @return re-driven records aimed at another consumer that it skipped since the application started
     *         ({@code INBOX0104I})
     */
    public long redrivesForOthersSkipped(String consumer) {
        return sum(redrivesForOthers, consumer);
    }

    /**
     * Counts a record whose re-drive aim the database did not confirm.
     *
     * @param consumer a consumer's inbox name
     * @return how many such records it has had since the application started, this one included
     */
    public long redriveAimRejected(String consumer) {
        LongAdder adder = redriveAimsRejected.computeIfAbsent(consumer, c -> new LongAdder());
        adder.increment();
        return adder.sum();
    }

    public void retried(String consumer) {
        retries.computeIfAbsent(consumer, c -> new LongAdder()).increment();
    }

    public void transientWait(String consumer) {
        transientWaits.computeIfAbsent(consumer, c -> new LongAdder()).increment();
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
        try (Connection connection = database.connection()) {
            count(connection, "SELECT consumer, count(*) FROM inbox GROUP BY consumer", rows, 0);
            count(connection, "SELECT consumer, count(*) FROM inbox_dead_letter WHERE redriven_at IS NULL "
                    + "AND discarded_at IS NULL "
                    + "GROUP BY consumer", rows, 1);
        }
        for (Map<String, LongAdder> counted : List.of(duplicates, retries, transientWaits, redrivesForOthers,
                redriveAimsRejected)) {
            counted.keySet().forEach(c -> rows.computeIfAbsent(c, k -> new long[2]));
        }
        List<ConsumerFigures> result = new ArrayList<>();
        rows.forEach((consumer, counts) -> result.add(new ConsumerFigures(consumer, counts[0], counts[1],
                sum(duplicates, consumer), sum(retries, consumer), sum(transientWaits, consumer),
                sum(redrivesForOthers, consumer), sum(redriveAimsRejected, consumer))));
        return result;
    }

    /**
     * The schema versions this library ships for the configured mode (its Flyway migrations, read from the
     * classpath), so that a health check can compare them with {@code inbox_schema_history}.
     *
     * @return the versions, such as {@code 1}, {@code 2}, ... {@code 100}
     * @throws IllegalStateException when the inbox datasource is not ready (INBOX0002E, INBOX0003E)
     */
    public java.util.SortedSet<String> shippedSchemaVersions() {
        return database.shippedSchemaVersions();
    }

    /**
     * @return the purge state, empty when the table has no state row
     * @throws IllegalStateException when the database cannot be read
     */
    public Optional<PurgeStatus> purgeStatus() {
        Duration overdueAfter = InboxConfig.PURGE_OVERDUE_AFTER.get(ConfigProvider.getConfig());
        try (Connection connection = database.connection();
             PreparedStatement query = connection.prepareStatement("SELECT last_started_at, last_finished_at, "
                     + "last_deleted, total_deleted, last_error, last_error_at, now(), total_batches FROM inbox_purge_state");
             ResultSet rs = query.executeQuery()) {
            if (!rs.next()) {
                return Optional.empty();
            }
            return Optional.of(status(rs.getObject(1, OffsetDateTime.class), rs.getObject(2, OffsetDateTime.class),
                    rs.getLong(3), rs.getLong(4), rs.getLong(8), rs.getString(5),
                    rs.getObject(6, OffsetDateTime.class), rs.getObject(7, OffsetDateTime.class), overdueAfter,
                    purge.unrecordedFailure(), purge.ranSinceStart()));
        } catch (SQLException e) {
            throw new IllegalStateException(InboxMessage.INBOX0308E.format(e.getMessage()), e);
        }
    }

    /**
     * The purge's status from its state row and this server's own news.
     *
     * @param started         the row's {@code last_started_at}
     * @param finished        the row's {@code last_finished_at} (the last success)
     * @param lastDeleted     the row's {@code last_deleted}
     * @param totalDeleted    the row's {@code total_deleted}
     * @param totalBatches    the row's {@code total_batches}
     * @param recordedError   the row's {@code last_error}
     * @param recordedErrorAt the row's {@code last_error_at}
     * @param now             the database's time
     * @param overdueAfter    {@value InboxConfig#PURGE_OVERDUE_AFTER}
     * @param unrecorded      this server's last failed run that the row could not record
     * @param ranSinceStart   whether this server's purge has run since the application started: an error recorded
     *                        before that (a run cut by the last stop, or made before the tables were ready at start)
     *                        is no news until the purge has run again and recorded its own outcome; overdue is then
     *                        only a last success that is too old
     * @return the status
     */
    static PurgeStatus status(OffsetDateTime started, OffsetDateTime finished, long lastDeleted, long totalDeleted,
                              long totalBatches, String recordedError, OffsetDateTime recordedErrorAt,
                              OffsetDateTime now, Duration overdueAfter, Optional<? extends PurgeFailure> unrecorded,
                              boolean ranSinceStart) {
        OffsetDateTime lastGood = finished != null ? finished : started; // never succeeded: count from the first try
        boolean old = lastGood != null && Duration.between(lastGood, now).compareTo(overdueAfter) > 0;
        String error = ranSinceStart ? recordedError : null;
        OffsetDateTime errorAt = error == null ? null : recordedErrorAt;
        boolean overdue = error != null || old;
        Optional<? extends PurgeFailure> news = unrecorded.filter(f ->
                (finished == null || f.at().isAfter(finished)) && (recordedErrorAt == null || f.at().isAfter(recordedErrorAt)));
        if (news.isPresent()) {
            // this server's last run failed while the database could not record it: that is the latest news
            error = news.get().error();
            errorAt = news.get().at();
            overdue = true;
        }
        return new PurgeStatus(started, finished, lastDeleted, totalDeleted, totalBatches, error, errorAt, overdue,
                overdueAfter);
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
