package io.github.jakartainbox.inbox.retention;

import java.time.Duration;
import java.time.LocalDate;
import java.util.List;

/**
 * What one purge run did.
 *
 * @param ran             {@code false} when another server held the purge lease, so this one skipped
 * @param deleted         rows deleted by batched DELETE (plain mode, or nothing in monthly mode)
 * @param batches         DELETE transactions it took
 * @param droppedMonths   partitions dropped whole (monthly mode)
 * @param droppedRows     rows those partitions held, estimated from PostgreSQL's statistics
 * @param createdMonths   partitions created ahead of time (monthly mode)
 * @param elapsed         how long the run took
 * @param error           why the run stopped early, {@code null} when it completed
 * @param keptParked      records parked behind dead letters (dead-letter order by key) that the purge keeps: they
 *                        are no inbox rows, and stay until their sequences are re-driven
 */
public record PurgeResult(boolean ran, long deleted, int batches, List<LocalDate> droppedMonths, long droppedRows,
                          List<LocalDate> createdMonths, Duration elapsed, String error, long keptParked) {

    /** A run that kept no parked record. */
    public PurgeResult(boolean ran, long deleted, int batches, List<LocalDate> droppedMonths, long droppedRows,
                       List<LocalDate> createdMonths, Duration elapsed, String error) {
        this(ran, deleted, batches, droppedMonths, droppedRows, createdMonths, elapsed, error, 0);
    }

    static PurgeResult skipped() {
        return new PurgeResult(false, 0, 0, List.of(), 0, List.of(), Duration.ZERO, null);
    }
}
