package io.github.jakartainbox.inbox.kafka;

import java.util.concurrent.atomic.AtomicLong;

/**
 * What one {@code inbox-kafka} channel's groups did since the channel started: running totals for the gauges
 * ({@link KafkaGauges}). Written by the channel's poll thread, read by the metrics' scrapes.
 */
final class ChannelFigures {

    private final AtomicLong groupsCommitted = new AtomicLong();
    private final AtomicLong groupsRolledBack = new AtomicLong();
    private final AtomicLong groupRecords = new AtomicLong();
    private final AtomicLong groupNanos = new AtomicLong();

    /**
     * @param records how many records the group committed
     * @param nanos   how long it took, from its first record to its commit
     */
    void committed(int records, long nanos) {
        groupsCommitted.incrementAndGet();
        groupRecords.addAndGet(records);
        groupNanos.addAndGet(nanos);
    }

    /** A group rolled back: its records run again one by one. */
    void rolledBack() {
        groupsRolledBack.incrementAndGet();
    }

    long groupsCommitted() {
        return groupsCommitted.get();
    }

    long groupsRolledBack() {
        return groupsRolledBack.get();
    }

    long groupRecords() {
        return groupRecords.get();
    }

    long groupMillis() {
        return groupNanos.get() / 1_000_000;
    }
}
