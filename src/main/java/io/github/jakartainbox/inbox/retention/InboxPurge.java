package io.github.jakartainbox.inbox.retention;

import io.github.jakartainbox.inbox.InboxConfig;
import io.github.jakartainbox.inbox.InboxStatistics;
import io.github.jakartainbox.inbox.database.InboxDatabase;
import io.github.jakartainbox.inbox.database.InboxTransactions;
import io.github.jakartainbox.inbox.consumer.InboxLifecycle;
import io.github.jakartainbox.inbox.eventid.EventMonths;
import io.github.jakartainbox.inbox.failure.Failures;
import io.github.jakartainbox.inbox.logging.InboxMessage;
import io.github.jakartainbox.inbox.spi.PurgeTask;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.context.BeforeDestroyed;
import jakarta.enterprise.event.Observes;
import jakarta.enterprise.event.Reception;
import jakarta.enterprise.inject.Any;
import jakarta.enterprise.inject.Instance;
import jakarta.inject.Inject;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.time.Instant;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import org.eclipse.microprofile.config.Config;
import org.eclipse.microprofile.config.ConfigProvider;

/**
 * Removes inbox rows older than their consumer's retention ({@value InboxConfig#RETENTION}, default P14D), so that
 * the inbox stays small; called by {@link InboxPurgeTimer}, and callable directly (it must not be called inside a
 * transaction: every unit of work commits on its own).
 *
 * <ul>
 *   <li>Plain mode: per consumer, batched {@code DELETE}s of {@value InboxConfig#PURGE_BATCH_SIZE} rows, each in
 *       its own short transaction, rows taken {@code FOR UPDATE SKIP LOCKED}; consumers' inserts never wait.</li>
 *   <li>Monthly mode: partitions of months that ended before now minus the longest consumer retention are
 *       detached and dropped whole; the next {@value InboxConfig#PARTITION_MONTHS_AHEAD} months' partitions are
 *       created ahead of time. DDL waits at most {@value InboxConfig#PARTITION_LOCK_TIMEOUT} for its lock, and
 *       is tried again at the next run rather than queueing behind readers.</li>
 * </ul>
 * One server purges at a time: a run first takes the lease in {@code inbox_purge_state}; a server that finds it
 * held skips. The lease is renewed with every batch and expires if its owner dies.
 */
@ApplicationScoped
public class InboxPurge implements InboxStatistics.PurgeNews {

    /**
     * @return the records parked behind dead letters, which the purge never deletes; said in the log when there are
     *         any ({@code INBOX0310I}); 0 when they cannot be counted (the purge itself succeeded)
     */
    private long keptParked() {
        try {
            io.github.jakartainbox.inbox.deadletter.internal.ParkedEvents.Figures figures = parked.figures();
            if (figures.sequences() > 0) {
                InboxMessage.INBOX0310I.log(String.valueOf(figures.parked()), String.valueOf(figures.sequences()),
                        figures.oldestParkedAge().toString());
            }
            return figures.parked();
        } catch (java.sql.SQLException | RuntimeException e) {
            return 0;
        }
    }

    /** Work on one connection inside one transaction. */
    @FunctionalInterface
    private interface Work<T> {
        T on(Connection connection) throws SQLException;
    }

    /** What one run has done so far. */
    private static final class Run {
        long deleted;
        int batches;
        long droppedRows;
        final List<LocalDate> created = new ArrayList<>();
        final List<LocalDate> dropped = new ArrayList<>();
    }

    /** The lease was taken over by another server (ours expired). */
    private static final class LeaseLost extends Exception {
        private static final long serialVersionUID = 1L;
    }

    @Inject
    InboxDatabase database;
    @Inject
    InboxTransactions transactions;
    @Inject
    io.github.jakartainbox.inbox.deadletter.internal.ParkedEvents parked;
    /** other tables to purge under the same lease (the outbox's delivered rows) */
    @Inject
    @Any
    Instance<PurgeTask> tasks;

    /** A failed run whose failure could not be written to {@code inbox_purge_state} (the database was away). */
    public record Failure(OffsetDateTime at, String error) implements InboxStatistics.PurgeFailure {
    }

    private volatile Failure unrecordedFailure;

    /** Whether this server ran the purge (or found another server's lease) since the application started. */
    private volatile boolean ranSinceStart;

    /** The end of a run that could not be recorded (the database was away): its lease, counts and outcome. */
    private record PendingRelease(String owner, long deleted, long batches, String outcome) {
    }

    /**
     * A run of this server whose lease could not be given back; the next run gives it back first. Without this the
     * purge stayed paused until the lease expired ({@code inbox.purge.lease}, PT10M), after any outage that began
     * during a run.
     */
    private volatile PendingRelease pendingRelease;

    /**
     * Gives back the lease of a run that ended while the database refused connections ({@link #pendingRelease}).
     *
     * @return whether no such lease is left (there was none, or it is given back now)
     */
    private boolean givePendingLeaseBack() {
        PendingRelease pending = pendingRelease;
        if (pending == null) {
            return true;
        }
        try {
            inTransaction(c -> {
                PurgeStatements.release(c, pending.owner(), pending.deleted(), pending.batches(), pending.outcome());
                return null;
            });
            pendingRelease = null;
            return true;
        } catch (Exception e) {
            return false;
        }
    }

    /**
     * As the application stops, gives back the lease of a run cut by an outage, if the database answers again: the
     * next run of this server would have done it, but a stopped application has no next run, and every server's
     * purge then waited for the lease's expiry ({@code inbox.purge.lease}, PT10M). Notified only when this bean exists
     * (it did a run).
     *
     * @param stopping the event of the application context's end (unused)
     */
    void onStop(@Observes(notifyObserver = Reception.IF_EXISTS) @BeforeDestroyed(ApplicationScoped.class)
                Object stopping) {
        if (pendingRelease != null && !givePendingLeaseBack()) {
            InboxMessage.INBOX0309W.log(InboxConfig.PURGE_LEASE.get(ConfigProvider.getConfig()));
        }
    }

    /**
     * @return whether this server's purge has run since the application started (whatever its outcome, or skipped
     *         because another server held the lease): until then the state table shows only runs before this start
     */
    @Override
    public boolean ranSinceStart() {
        return ranSinceStart;
    }

    /** @return this server's last failed run that the state table does not show, if it is the latest news */
    @Override
    public Optional<Failure> unrecordedFailure() {
        return Optional.ofNullable(unrecordedFailure);
    }

    /**
     * Runs one purge.
     *
     * @return what it did; {@link PurgeResult#ran()} is {@code false} when another server is purging
     * @throws IllegalStateException when called inside a JTA transaction, or a configuration key is invalid
     */
    public PurgeResult purgeExpired() {
        if (transactions.active()) {
            throw new IllegalStateException(InboxMessage.INBOX0307E.format());
        }
        Config config = ConfigProvider.getConfig();
        Duration lease = InboxConfig.PURGE_LEASE.get(config);
        int batchSize = InboxConfig.PURGE_BATCH_SIZE.get(config);
        String owner = UUID.randomUUID().toString();
        long started = System.nanoTime();
        if (InboxLifecycle.stopping()) {
            return PurgeResult.skipped(); // a run cut by the stop would record the stop as its error
        }
        ranSinceStart = true;
        try {
            // made or checked outside any transaction (Flyway commits on its own): a run before the application's
            // start made them, or after an outage at start, would otherwise fail with INBOX0008E
            database.dataSource();
        } catch (IllegalStateException e) {
            InboxMessage.INBOX0302E.log(Failures.describe(e));
            unrecordedFailure = new Failure(OffsetDateTime.now(), Failures.describe(e));
            return new PurgeResult(false, 0, 0, List.of(), 0, List.of(), elapsed(started), Failures.describe(e));
        }
        givePendingLeaseBack(); // when it fails (still away), taking the lease below fails the same way and says so
        try {
            if (!inTransaction(c -> PurgeStatements.acquire(c, owner, lease))) {
                return PurgeResult.skipped();
            }
        } catch (Exception e) {
            InboxMessage.INBOX0302E.log(Failures.describe(e));
            unrecordedFailure = new Failure(OffsetDateTime.now(), Failures.describe(e));
            return new PurgeResult(false, 0, 0, List.of(), 0, List.of(), elapsed(started), Failures.describe(e));
        }
        Run run = new Run();
        String error = null;
        try {
            List<String> consumers = inTransaction(PurgeStatements::consumers);
            if (database.partitioned()) {
                Duration longest = consumers.stream().map(c -> retention(config, c)).max(Duration::compareTo)
                        .orElse(retention(config, null));
                maintainPartitions(config, longest, lease, owner, run);
            } else {
                for (String consumer : consumers) {
                    deleteExpired(consumer, retention(config, consumer), batchSize, lease, owner, run);
                }
            }
            for (PurgeTask task : tasks) {
                deleteExpired(c -> task.deleteBatch(c, batchSize), batchSize, lease, owner, run);
            }
        } catch (LeaseLost e) {
            error = "the purge lease expired and another server took it over; raise inbox.purge.lease";
        } catch (Exception e) {
            error = Failures.describe(e);
        }
        String outcome = error;
        long total = run.deleted + run.droppedRows; // dropped partitions count with their estimated rows
        long batches = run.batches;
        try {
            inTransaction(c -> {
                PurgeStatements.release(c, owner, total, batches, outcome);
                return null;
            });
            unrecordedFailure = null;
        } catch (Exception e) {
            error = error == null ? Failures.describe(e) : error;
            unrecordedFailure = new Failure(OffsetDateTime.now(), error);
            pendingRelease = new PendingRelease(owner, total, batches, error);
        }
        long keptParked = error == null ? keptParked() : 0;
        PurgeResult result = new PurgeResult(true, run.deleted, run.batches, List.copyOf(run.dropped),
                run.droppedRows, List.copyOf(run.created), elapsed(started), error, keptParked);
        if (error == null) {
            InboxMessage.INBOX0303I.log(String.valueOf(run.deleted), String.valueOf(run.batches),
                    run.dropped.toString(), String.valueOf(run.droppedRows), run.created.toString(),
                    String.valueOf(result.elapsed().toMillis()));
        } else {
            InboxMessage.INBOX0302E.log(error);
        }
        return result;
    }

    /**
     * @param consumer a consumer name, {@code null} for the global setting
     * @return its retention
     */
    static Duration retention(Config config, String consumer) {
        return consumer == null ? InboxConfig.RETENTION.get(config) : InboxConfig.RETENTION.get(config, consumer);
    }

    private void deleteExpired(String consumer, Duration retention, int batchSize, Duration lease, String owner,
                               Run run) throws Exception {
        deleteExpired(c -> PurgeStatements.deleteBatch(c, consumer, retention, batchSize), batchSize, lease, owner, run);
    }

    private void deleteExpired(Work<Integer> deleteBatch, int batchSize, Duration lease, String owner, Run run)
            throws Exception {
        int batch;
        do {
            batch = inTransaction(c -> {
                if (!PurgeStatements.renew(c, owner, lease)) {
                    return -1;
                }
                PurgeStatements.customPlans(c); // a plan cached while the table was small must not be reused
                return deleteBatch.on(c);
            });
            if (batch < 0) {
                throw new LeaseLost();
            }
            run.deleted += batch;
            run.batches++;
        } while (batch == batchSize);
    }

    private void maintainPartitions(Config config, Duration longestRetention, Duration lease, String owner, Run run)
            throws Exception {
        int ahead = InboxConfig.PARTITION_MONTHS_AHEAD.get(config);
        Duration lockTimeout = InboxConfig.PARTITION_LOCK_TIMEOUT.get(config);
        List<LocalDate> existing = inTransaction(PurgeStatements::partitionMonths);
        Instant now = Instant.now();
        for (LocalDate month : monthsToCreate(existing, now, ahead)) {
            inTransaction(c -> {
                PurgeStatements.createPartition(c, month, lockTimeout);
                return null;
            });
            run.created.add(month);
        }
        for (LocalDate month : monthsToDrop(existing, now, longestRetention)) {
            long held = inTransaction(c -> {
                if (!PurgeStatements.renew(c, owner, lease)) {
                    return -1L;
                }
                return PurgeStatements.dropPartition(c, month, lockTimeout);
            });
            if (held < 0) {
                throw new LeaseLost();
            }
            run.droppedRows += held;
            run.dropped.add(month);
        }
    }

    /**
     * @param existing months that have a partition
     * @param now      the current time
     * @param ahead    how many months after the current one must exist
     * @return the months from the current one to {@code ahead} later that have no partition yet
     */
    public static List<LocalDate> monthsToCreate(List<LocalDate> existing, Instant now, int ahead) {
        LocalDate thisMonth = EventMonths.monthOf(now);
        List<LocalDate> missing = new ArrayList<>();
        for (int i = 0; i <= ahead; i++) {
            if (!existing.contains(thisMonth.plusMonths(i))) {
                missing.add(thisMonth.plusMonths(i));
            }
        }
        return missing;
    }

    /**
     * A month's partition can go when the month's last instant is older than the retention: every event in it
     * is then past retention (by the event's own time).
     *
     * @return the months among {@code existing} that ended before {@code now - retention}
     */
    public static List<LocalDate> monthsToDrop(List<LocalDate> existing, Instant now, Duration retention) {
        LocalDate firstKept = EventMonths.monthOf(now.minus(retention));
        return existing.stream().filter(month -> month.isBefore(firstKept)).sorted().toList();
    }

    private <T> T inTransaction(Work<T> work) throws Exception {
        return transactions.inNewTransaction(() -> {
            try (Connection connection = database.dataSource().getConnection()) {
                return work.on(connection);
            }
        });
    }

    private static Duration elapsed(long startedNanos) {
        return Duration.ofNanos(System.nanoTime() - startedNanos);
    }
}
