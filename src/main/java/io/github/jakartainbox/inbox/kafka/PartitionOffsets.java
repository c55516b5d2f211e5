package io.github.jakartainbox.inbox.kafka;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;

/**
 * A channel's offsets per partition: what Kafka confirmed, what is processed and since when the commit is behind it,
 * the database's rows as this channel last wrote or read them and where to go back to if they are lost, the partitions
 * not yet resolved at assignment, and those sought back during the current poll. No consumer inside: callers read
 * positions and seek.
 *
 * <p>Used on the poll thread; {@link #behindSince()} is read by health from other threads.
 */
final class PartitionOffsets {

    /** A partition whose commit has been behind its processed records for longer than the warning. */
    record Lag(TopicPartition partition, Duration behindFor, Long committed, long processed) {
    }

    /**
     * Partitions sought back to the database's rows.
     *
     * @param wrote what this channel had written to each row
     * @param to    where each resumes, {@code null} when it knows nowhere to go back to
     */
    record SoughtBack(Map<TopicPartition, Long> wrote, Map<TopicPartition, Long> to) {
    }

    /**
     * The last offset Kafka confirmed per partition, since this consumer's assignment: the commit decision's and
     * health's one view (read from other threads).
     */
    private final Map<TopicPartition, Long> committed = new ConcurrentHashMap<>();
    /** Per partition, the offset after the last record processed, and when it was processed. */
    private final Map<TopicPartition, long[]> processedUpTo = new ConcurrentHashMap<>();
    /** Since when each partition's commit is behind, reset by each warning logged. */
    private final Map<TopicPartition, Long> behindSince = new ConcurrentHashMap<>();
    /** Since when each partition's commit has been behind without interruption (for health; never reset by a log). */
    private final Map<TopicPartition, Long> behindFrom = new ConcurrentHashMap<>();
    /**
     * Raised whenever partitions' commits start over lower (sought back to the database's offsets) or are forgotten
     * (revoked): the confirmation of an asynchronous commit sent before then arrives later, and recording its higher
     * offset would hold back every commit up to it while Kafka keeps the lower one.
     */
    private long epoch;

    // offset-store=database only
    /** Per partition, the database's offset as this channel last wrote or read it; no entry: no row. */
    private final Map<TopicPartition, Long> known = new HashMap<>();
    /**
     * Per partition, where to go back to if its row is lost: the database's offset at assignment, else the first
     * record done since.
     */
    private final Map<TopicPartition, Long> floor = new HashMap<>();
    /** Partitions assigned while the database could not be read: paused until it can. */
    private final Set<TopicPartition> unresolved = new LinkedHashSet<>();
    /** Partitions sought back to the database's offsets during the current poll's processing. */
    private final Set<TopicPartition> rewound = new HashSet<>();
    /** Per topic, the Kafka topic id its assigned partitions were resolved against (written with their rows). */
    private final Map<String, String> topicIds = new HashMap<>();

    /** A new consumer: nothing is committed, known or assigned yet. */
    void newConsumer() {
        committed.clear();
        known.clear();
        floor.clear();
        unresolved.clear();
        topicIds.clear();
    }

    // ---------------------------------------------------------------- processed records

    /**
     * @param tp       the record's partition
     * @param offset   the record's offset
     * @param now      {@link System#nanoTime()}
     * @param keepRows whether offsets are kept in the database (the first record done is a floor)
     */
    void processed(TopicPartition tp, long offset, long now, boolean keepRows) {
        if (keepRows) {
            floor.putIfAbsent(tp, offset); // no row at assignment: the first record done is where to go back
        }
        processedUpTo.compute(tp, (k, v) -> v == null || v[0] < offset + 1 ? new long[] {offset + 1, now} : v);
    }

    /** @return the offset after the last record processed of the partition, {@code null} when none */
    Long processedUpTo(TopicPartition tp) {
        long[] p = processedUpTo.get(tp);
        return p == null ? null : p[0];
    }

    // ---------------------------------------------------------------- Kafka's commits

    /** @return the current epoch, to hand to {@link #confirmed(Map, long)} with an asynchronous commit */
    long epoch() {
        return epoch;
    }

    /**
     * Records offsets Kafka confirmed, unless partitions were sought back or revoked since they were sent.
     *
     * @param sentIn the {@link #epoch()} when the commit was sent
     * @return whether they were recorded
     */
    boolean confirmed(Map<TopicPartition, OffsetAndMetadata> offsets, long sentIn) {
        if (sentIn != epoch) {
            return false;
        }
        confirmed(offsets);
        return true;
    }

    /** Records offsets Kafka confirmed (a synchronous commit). */
    void confirmed(Map<TopicPartition, OffsetAndMetadata> offsets) {
        offsets.forEach((tp, o) -> {
            committed.merge(tp, o.offset(), Math::max);
        });
    }

    /** @return the last offset Kafka confirmed for the partition, {@code null} when none since it was assigned */
    Long committed(TopicPartition tp) {
        return committed.get(tp);
    }

    /**
     * The commit decision: of the positions, those that moved past the last confirmed commit. With
     * {@code offset-store=database}, Kafka gets no offset beyond the database's row, and nothing without a row.
     *
     * @param positions each partition's consumer position (the offset after the last record returned, past any
     *                  transaction marker, aborted batch or compaction gap)
     * @param keepRows  whether offsets are kept in the database
     * @return the offsets to commit, with the mode's metadata
     */
    Map<TopicPartition, OffsetAndMetadata> toCommit(Map<TopicPartition, Long> positions, boolean keepRows) {
        String metadata = keepRows ? OffsetChoice.DATABASE_MODE : OffsetChoice.KAFKA_MODE;
        Map<TopicPartition, OffsetAndMetadata> offsets = new HashMap<>();
        positions.forEach((tp, position) -> {
            long next = position;
            if (keepRows) {
                Long row = known.get(tp);
                next = row == null ? -1 : Math.min(position, row);
            }
            Long last = committed.get(tp);
            if (next >= 0 && (last == null || next > last)) {
                offsets.put(tp, new OffsetAndMetadata(next, metadata));
            }
        });
        return offsets;
    }

    // ---------------------------------------------------------------- the database's rows

    /** @return per partition of the records, the offset after its last one, and the database's row as known */
    Map<TopicPartition, KafkaOffsets.Advance> advances(List<? extends ConsumerRecord<?, ?>> records) {
        Map<TopicPartition, Long> next = new HashMap<>();
        for (ConsumerRecord<?, ?> r : records) {
            next.merge(new TopicPartition(r.topic(), r.partition()), r.offset() + 1, Math::max);
        }
        Map<TopicPartition, KafkaOffsets.Advance> advances = new HashMap<>();
        next.forEach((tp, n) -> advances.put(tp, new KafkaOffsets.Advance(n, known.get(tp), topicIds.get(tp.topic()))));
        return advances;
    }

    /** @return the rows to bring up to the positions: those behind them, and those not written yet */
    Map<TopicPartition, KafkaOffsets.Advance> rowsBehind(Map<TopicPartition, Long> positions) {
        Map<TopicPartition, KafkaOffsets.Advance> advances = new HashMap<>();
        positions.forEach((tp, position) -> {
            Long row = known.get(tp);
            if (row == null || position > row) {
                advances.put(tp, new KafkaOffsets.Advance(position, row, topicIds.get(tp.topic())));
            }
        });
        return advances;
    }

    /** Records rows written, once their transaction committed. */
    void wrote(Map<TopicPartition, KafkaOffsets.Advance> advances) {
        advances.forEach((tp, a) -> known.put(tp, a.next()));
    }

    /** @return the partitions whose row this channel knows */
    Set<TopicPartition> knownRows() {
        return Set.copyOf(known.keySet());
    }

    /** @return the database's offset as this channel last wrote or read it, {@code null} without a row */
    Long known(TopicPartition tp) {
        return known.get(tp);
    }

    /**
     * @param rows the database's rows as read now
     * @return the partitions whose row is gone or below what this channel wrote: the database lost commits
     */
    Set<TopicPartition> lostIn(Map<TopicPartition, Long> rows) {
        Set<TopicPartition> lost = new LinkedHashSet<>();
        known.forEach((tp, wrote) -> {
            Long row = rows.get(tp);
            if (row == null || row < wrote) {
                lost.add(tp);
            }
        });
        return lost;
    }

    /**
     * Starts partitions over from the database's rows (or, without a row, from their floor): their commits and
     * processed offsets are forgotten, and confirmations of commits sent before now are ignored.
     *
     * @param lost the partitions whose rows lost commits
     * @param rows the database's rows as read, possibly none
     * @return what was written and where each partition goes back to; the caller seeks
     */
    SoughtBack startOver(Collection<TopicPartition> lost, Map<TopicPartition, Long> rows) {
        Map<TopicPartition, Long> to = new LinkedHashMap<>();
        Map<TopicPartition, Long> wrote = new LinkedHashMap<>();
        epoch++;
        for (TopicPartition tp : lost) {
            Long row = rows.get(tp);
            Long back = row != null ? row : floor.get(tp);
            wrote.put(tp, known.get(tp));
            if (row != null) {
                known.put(tp, row);
            } else {
                known.remove(tp);
            }
            committed.remove(tp); // Kafka's offset goes back with it
            processedUpTo.remove(tp);
            to.put(tp, back);
            rewound.add(tp);
        }
        return new SoughtBack(wrote, to);
    }

    /**
     * A partition's row as decided at assignment.
     *
     * @param row the database's offset afterwards, {@code null} without a row
     * @return whether the partition was waiting for the database (paused)
     */
    boolean settled(TopicPartition tp, Long row) {
        if (row != null) {
            known.put(tp, row);
        } else {
            known.remove(tp);
        }
        floor.put(tp, row);
        return unresolved.remove(tp);
    }

    /**
     * @param topic a topic name
     * @return the Kafka topic id its partitions were resolved against, {@code null} when none is known
     */
    String topicId(String topic) {
        return topicIds.get(topic);
    }

    /** Records the Kafka topic id a topic's partitions were resolved against. */
    void topicId(String topic, String id) {
        topicIds.put(topic, id);
    }

    /**
     * Partitions of a topic made again under their feet start over at the new topic's start: their commits and
     * processed offsets are forgotten, confirmations of commits sent before now are ignored, and their rows are known
     * to hold the start.
     *
     * @param starts each partition's first offset in the new topic
     */
    void restart(Map<TopicPartition, Long> starts) {
        epoch++;
        starts.forEach((tp, start) -> {
            committed.remove(tp);
            processedUpTo.remove(tp);
            behindSince.remove(tp);
            behindFrom.remove(tp);
            known.put(tp, start);
            floor.put(tp, start);
        });
    }

    /** @return those of the partitions not already waiting for the database; all of them wait afterwards */
    Set<TopicPartition> unresolved(Collection<TopicPartition> partitions) {
        Set<TopicPartition> newly = new LinkedHashSet<>(partitions);
        newly.removeAll(unresolved);
        unresolved.addAll(partitions);
        return newly;
    }

    /** @return the partitions waiting for the database */
    List<TopicPartition> unresolved() {
        return List.copyOf(unresolved);
    }

    boolean isUnresolved(TopicPartition tp) {
        return unresolved.contains(tp);
    }

    // ---------------------------------------------------------------- the current poll

    /** A poll's records are about to be processed: nothing of it is sought back yet. */
    void newPoll() {
        rewound.clear();
    }

    /** @return the partitions sought back to the database's rows since {@link #newPoll()} */
    Set<TopicPartition> rewound() {
        return Set.copyOf(rewound);
    }

    // ---------------------------------------------------------------- revoked, lost

    /** Forgets partitions no longer assigned; confirmations of commits sent before now are ignored. */
    void forget(Collection<TopicPartition> partitions) {
        epoch++;
        for (TopicPartition tp : partitions) {
            committed.remove(tp);
            processedUpTo.remove(tp);
            behindSince.remove(tp);
            behindFrom.remove(tp);
            known.remove(tp);
            floor.remove(tp);
            unresolved.remove(tp);
        }
    }

    // ---------------------------------------------------------------- lag

    /**
     * @param now     {@link System#nanoTime()}
     * @param warning how long a commit may stay behind before it is reported
     * @return the partitions to report now: each once per warning period
     */
    List<Lag> lagging(long now, Duration warning) {
        List<Lag> lagging = new ArrayList<>();
        processedUpTo.forEach((tp, processed) -> {
            Long commit = committed.get(tp);
            if (commit != null && commit >= processed[0]) {
                behindSince.remove(tp);
                behindFrom.remove(tp);
                return;
            }
            behindFrom.putIfAbsent(tp, now);
            long since = behindSince.computeIfAbsent(tp, k -> now);
            if (now - since > warning.toNanos()) {
                lagging.add(new Lag(tp, Duration.ofNanos(now - since).withNanos(0), commit, processed[0]));
                behindSince.put(tp, now); // once per warning period
            }
        });
        return lagging;
    }

    /**
     * @return per partition: the time in nanoseconds ({@link System#nanoTime()}) since which its committed offset
     *         has been behind the records processed; empty when every commit is up to date
     */
    Map<TopicPartition, Long> behindSince() {
        return Map.copyOf(behindFrom);
    }
}
