package io.github.jakartainbox.inbox.kafka;

import java.time.Duration;
import java.util.Collection;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;

/**
 * Where an assigned partition resumes when the channel keeps its offsets in the database ({@code offset-store}
 * {@code database}), from the database's row, Kafka's committed offset and the topic's Kafka topic id.
 *
 * <p>A row names the topic it was written for by Kafka's topic id (schema V13). A topic deleted and made again under
 * the same name has another id and offsets that start again at 0: a row of another id is no position in it, so the
 * partition is read from its start (every record of the new topic is new) and the row is set there with the new id.
 * A row written before V13 has no id; it is trusted only where Kafka still holds a committed offset for the group
 * and partition (deleting a topic deletes the group's committed offsets with it, so a committed offset proves the
 * topic was not made again since it was written), and gets the topic's id then; without one the partition is read
 * from its start, which replays (the inbox skips what it processed) rather than risks skipping.
 *
 * <p>Both offsets are written only for records whose effects are committed, the database's in the same transaction
 * as the effects, Kafka's after it. Kafka's is followed when it was not written by a channel in this mode (an
 * operator's reset with {@code kafka-consumer-groups}, a channel in {@code kafka} mode or an earlier version): the
 * database's row is then set to it. Otherwise the database's is followed, ahead of Kafka's (a stop between the
 * database commit and the Kafka commit: nothing replayed) or behind it (the database lost commits in a failover:
 * they are read again). A database offset beyond the partition's end is dropped.
 *
 * @param seekTo      the offset to seek to, {@code null} to keep the consumer's (Kafka's committed offset, or
 *                    {@code auto.offset.reset} without one)
 * @param known       the value the database's row holds afterwards, {@code null} when there is no row
 * @param rowSetTo    the value the channel must write to the row first ({@link KafkaOffsets#set}), else {@code null}
 * @param dropRow     whether the channel must delete the row first
 * @param stamp       whether the channel must write the topic id into the row (a row written before schema V13)
 * @param reason      why, for the log
 * @param kafkaOffset Kafka's committed offset, {@code null} without one
 */
record OffsetChoice(Long seekTo, Long known, Long rowSetTo, boolean dropRow, boolean stamp, Reason reason,
                    Long kafkaOffset) {

    /** The metadata of the offsets a channel in {@code database} mode commits to Kafka. */
    static final String DATABASE_MODE = "inbox-kafka offset-store=database";
    /** The metadata of the offsets a channel in {@code kafka} mode commits to Kafka. */
    static final String KAFKA_MODE = "inbox-kafka offset-store=kafka";

    /** Why the partition resumes where it does. */
    enum Reason {
        /** The database has no row: Kafka's committed offset, or {@code auto.offset.reset}. */
        NO_ROW,
        /** Kafka has no committed offset: the database's. */
        NO_KAFKA_OFFSET,
        /** Both agree. */
        EQUAL,
        /** The database is ahead: its commit was made, Kafka's was not. */
        DATABASE_AHEAD,
        /** The database is behind Kafka: it lost commits (a failover). */
        DATABASE_BEHIND,
        /** Kafka's offset was set by another client or mode: followed, and the row set to it. */
        KAFKA_SET_ELSEWHERE,
        /** The database's offset lies beyond the partition's end: the row is dropped. */
        DATABASE_BEYOND_END,
        /** The row was written for a topic of another id (deleted and made again): read from the start. */
        OTHER_TOPIC,
        /** The row has no topic id and Kafka no committed offset to vouch for it: read from the start. */
        UNPROVEN_ROW
    }

    /**
     * @param database the database's row for the partition, {@code null} without one
     * @param kafka    Kafka's committed offset for the group and partition, {@code null} without one
     * @param logStart the partition's first offset (its log start)
     * @param logEnd   the partition's end offset (the offset the next record written gets)
     * @param topicId  the Kafka topic id of the partition's topic now
     * @return where the partition resumes
     */
    static OffsetChoice choose(KafkaOffsets.Row database, OffsetAndMetadata kafka, long logStart, long logEnd,
                               String topicId) {
        Long committed = kafka == null ? null : kafka.offset();
        if (database == null) {
            return new OffsetChoice(null, null, null, false, false, Reason.NO_ROW, committed);
        }
        if (database.topicId() != null && !database.topicId().equals(topicId)) {
            return new OffsetChoice(logStart, logStart, logStart, false, false, Reason.OTHER_TOPIC, committed);
        }
        boolean stamp = database.topicId() == null;
        if (stamp && kafka == null) {
            return new OffsetChoice(logStart, logStart, logStart, false, false, Reason.UNPROVEN_ROW, null);
        }
        long row = database.next();
        if (row > logEnd) {
            return new OffsetChoice(null, null, null, true, false, Reason.DATABASE_BEYOND_END, committed);
        }
        if (kafka == null) {
            return new OffsetChoice(row, row, null, false, stamp, Reason.NO_KAFKA_OFFSET, null);
        }
        if (!DATABASE_MODE.equals(kafka.metadata())) {
            boolean same = committed == row;
            return new OffsetChoice(null, committed, same ? null : committed, false, stamp && same,
                    Reason.KAFKA_SET_ELSEWHERE, committed);
        }
        if (row == committed) {
            return new OffsetChoice(null, row, null, false, stamp, Reason.EQUAL, committed);
        }
        return new OffsetChoice(row, row, null, false, stamp,
                row > committed ? Reason.DATABASE_AHEAD : Reason.DATABASE_BEHIND, committed);
    }

    /**
     * Decides where each assigned partition resumes and seeks it there.
     *
     * @param consumer   the consumer the partitions are assigned to
     * @param partitions the partitions just assigned
     * @param rows       the database's rows for those of them it has
     * @param topicIds   the Kafka topic id of each of their topics, as the cluster describes it now
     * @param timeout    how long to wait for Kafka's committed, first and end offsets
     * @return each partition's choice, in the order given
     * @throws org.apache.kafka.common.KafkaException when Kafka's offsets cannot be read in time
     * @throws IllegalStateException when a partition's topic has no id in {@code topicIds} (not described)
     */
    static Map<TopicPartition, OffsetChoice> resume(Consumer<?, ?> consumer, Collection<TopicPartition> partitions,
                                                    Map<TopicPartition, KafkaOffsets.Row> rows,
                                                    Map<String, String> topicIds, Duration timeout) {
        for (TopicPartition tp : partitions) {
            if (topicIds.get(tp.topic()) == null) {
                throw new IllegalStateException("topic " + tp.topic() + " was not found in the cluster's metadata");
            }
        }
        Map<TopicPartition, OffsetAndMetadata> kafka = consumer.committed(new HashSet<>(partitions), timeout);
        Map<TopicPartition, Long> starts = consumer.beginningOffsets(partitions, timeout);
        Map<TopicPartition, Long> ends = consumer.endOffsets(partitions, timeout);
        Map<TopicPartition, OffsetChoice> choices = new LinkedHashMap<>();
        for (TopicPartition tp : partitions) {
            OffsetChoice choice = choose(rows.get(tp), kafka.get(tp), starts.getOrDefault(tp, 0L),
                    ends.getOrDefault(tp, 0L), topicIds.get(tp.topic()));
            if (choice.seekTo() != null) {
                consumer.seek(tp, choice.seekTo());
            }
            choices.put(tp, choice);
        }
        return choices;
    }
}
