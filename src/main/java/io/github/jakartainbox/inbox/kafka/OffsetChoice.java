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
 * {@code database}), from the database's offset and Kafka's committed one.
 *
 * <p>Both are written only for records whose effects are committed, the database's in the same transaction as the
 * effects, Kafka's after it. Kafka's is followed when it was not written by a channel in this mode (an operator's
 * reset with {@code kafka-consumer-groups}, a channel in {@code kafka} mode or an earlier version): the database's
 * row is then set to it. Otherwise the database's is followed, ahead of Kafka's (a stop between the database commit
 * and the Kafka commit: nothing replayed) or behind it (the database lost commits in a failover: they are read
 * again). A database offset beyond the partition's end (a topic deleted and made again) is dropped.
 *
 * @param seekTo   the offset to seek to, {@code null} to keep the consumer's (Kafka's committed offset, or
 *                 {@code auto.offset.reset} without one)
 * @param known    the value the database's row holds afterwards, {@code null} when there is no row
 * @param rowSetTo the value the channel must write to the row first ({@link KafkaOffsets#set}), else {@code null}
 * @param dropRow  whether the channel must delete the row first
 * @param reason      why, for the log
 * @param kafkaOffset Kafka's committed offset, {@code null} without one
 */
record OffsetChoice(Long seekTo, Long known, Long rowSetTo, boolean dropRow, Reason reason, Long kafkaOffset) {

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
        DATABASE_BEYOND_END
    }

    /**
     * @param database the database's next offset for the partition, {@code null} without a row
     * @param kafka    Kafka's committed offset for the group and partition, {@code null} without one
     * @param logEnd   the partition's end offset (the offset the next record written gets)
     * @return where the partition resumes
     */
    static OffsetChoice choose(Long database, OffsetAndMetadata kafka, long logEnd) {
        Long committed = kafka == null ? null : kafka.offset();
        if (database == null) {
            return new OffsetChoice(null, null, null, false, Reason.NO_ROW, committed);
        }
        if (database > logEnd) {
            return new OffsetChoice(null, null, null, true, Reason.DATABASE_BEYOND_END, committed);
        }
        if (kafka == null) {
            return new OffsetChoice(database, database, null, false, Reason.NO_KAFKA_OFFSET, null);
        }
        if (!DATABASE_MODE.equals(kafka.metadata())) {
            return new OffsetChoice(null, committed, committed.equals(database) ? null : committed, false,
                    Reason.KAFKA_SET_ELSEWHERE, committed);
        }
        if (database.equals(committed)) {
            return new OffsetChoice(null, database, null, false, Reason.EQUAL, committed);
        }
        return new OffsetChoice(database, database, null, false,
                database > committed ? Reason.DATABASE_AHEAD : Reason.DATABASE_BEHIND, committed);
    }

    /**
     * Decides where each assigned partition resumes and seeks it there.
     *
     * @param consumer   the consumer the partitions are assigned to
     * @param partitions the partitions just assigned
     * @param rows       the database's offsets for those of them it has
     * @param timeout    how long to wait for Kafka's committed and end offsets
     * @return each partition's choice, in the order given
     * @throws org.apache.kafka.common.KafkaException when Kafka's offsets cannot be read in time
     */
    static Map<TopicPartition, OffsetChoice> resume(Consumer<?, ?> consumer, Collection<TopicPartition> partitions,
                                                    Map<TopicPartition, Long> rows, Duration timeout) {
        Map<TopicPartition, OffsetAndMetadata> kafka = consumer.committed(new HashSet<>(partitions), timeout);
        Map<TopicPartition, Long> ends = consumer.endOffsets(partitions, timeout);
        Map<TopicPartition, OffsetChoice> choices = new LinkedHashMap<>();
        for (TopicPartition tp : partitions) {
            OffsetChoice choice = choose(rows.get(tp), kafka.get(tp), ends.getOrDefault(tp, 0L));
            if (choice.seekTo() != null) {
                consumer.seek(tp, choice.seekTo());
            }
            choices.put(tp, choice);
        }
        return choices;
    }
}
