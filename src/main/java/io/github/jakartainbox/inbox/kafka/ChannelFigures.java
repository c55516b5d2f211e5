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
    private final AtomicLong acquired = new AtomicLong();
    private final AtomicLong accepted = new AtomicLong();
    private final AtomicLong released = new AtomicLong();
    private final AtomicLong locksExpired = new AtomicLong();
    private final AtomicLong redelivered = new AtomicLong();
    private final AtomicLong acknowledgementErrors = new AtomicLong();
    private final AtomicLong rejected = new AtomicLong();
    private final AtomicLong renewed = new AtomicLong();
    private final AtomicLong redeliveredDuplicates = new AtomicLong();

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

    /** @param records how many records a share consumer's poll acquired */
    void acquired(int records) {
        acquired.addAndGet(records);
    }

    /** @param redelivery whether the record had been delivered before ({@code deliveryCount() > 1}) */
    void accepted(boolean redelivery) {
        accepted.incrementAndGet();
        if (redelivery) {
            redelivered.incrementAndGet();
        }
    }

    /** @param records how many acquired records were released undone (a stop) */
    void released(int records) {
        released.addAndGet(records);
    }

    /** @param records how many acquired records' locks expired while a delivery of their poll ran */
    void locksExpired(int records) {
        locksExpired.addAndGet(records);
    }

    /** @param records how many records' acknowledgements the broker refused or lost */
    void acknowledgementFailed(int records) {
        acknowledgementErrors.addAndGet(records);
    }

    /** A record the inbox dead-lettered was rejected. */
    void reject() {
        rejected.incrementAndGet();
    }

    /** @param records how many held records' locks were renewed at once */
    void renewed(int records) {
        renewed.addAndGet(records);
    }

    /**
     * A redelivered record ({@code deliveryCount() > 1}) whose claim found its inbox row: its lock had expired (or
     * its acknowledgement was lost) after the inbox processed it.
     */
    void redeliveredDuplicate() {
        redeliveredDuplicates.incrementAndGet();
    }

    long rejected() {
        return rejected.get();
    }

    long renewed() {
        return renewed.get();
    }

    long redeliveredDuplicates() {
        return redeliveredDuplicates.get();
    }

    long acquired() {
        return acquired.get();
    }

    long accepted() {
        return accepted.get();
    }

    long released() {
        return released.get();
    }

    long locksExpired() {
        return locksExpired.get();
    }

    long redelivered() {
        return redelivered.get();
    }

    long acknowledgementErrors() {
        return acknowledgementErrors.get();
    }
}
