package io.github.jakartainbox.inbox.kafka;

import io.github.jakartainbox.inbox.failure.Failures;
import io.github.jakartainbox.inbox.logging.InboxLog;
import jakarta.transaction.UserTransaction;
import java.time.Duration;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import java.util.logging.Level;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;

/**
 * A channel's offset rows in the database ({@code offset-store=database}, {@link KafkaOffsets}): where assigned
 * partitions resume ({@link OffsetChoice}), partitions paused while the rows cannot be read, and the rows brought up to
 * the consumer's positions before Kafka's commit.
 */
final class OffsetRows {

    private final InboxKafkaChannel.Settings settings;
    private final Supplier<? extends Consumer<?, ?>> consumer;
    private final UserTransaction transaction;
    private final KafkaOffsets store;
    private final PartitionOffsets offsets;
    private final LostCommits lost;
    private final ClusterTopics topics;
    private long nextResolve;

    OffsetRows(InboxKafkaChannel.Settings settings, Supplier<? extends Consumer<?, ?>> consumer,
               UserTransaction transaction, KafkaOffsets store, PartitionOffsets offsets, LostCommits lost,
               ClusterTopics topics) {
        this.settings = settings;
        this.consumer = consumer;
        this.transaction = transaction;
        this.store = store;
        this.offsets = offsets;
        this.lost = lost;
        this.topics = topics;
    }

    /** Tries again, once a second, the partitions assigned while the database could not be read. */
    void retryUnresolved() {
        List<TopicPartition> waiting = offsets.unresolved();
        if (!waiting.isEmpty() && System.nanoTime() - nextResolve > 0) {
            resolve(waiting);
        }
    }

    /**
     * Decides where assigned partitions resume ({@link OffsetChoice}) and seeks them there; partitions whose
     * offsets or topic ids cannot be read (the database, or Kafka, not answering; a topic deleted since the
     * assignment) are paused and tried again a second later.
     */
    void resolve(Collection<TopicPartition> partitions) {
        Consumer<?, ?> c = consumer.get();
        try {
            Map<String, String> ids = new HashMap<>();
            topics.describe(partitions.stream().map(TopicPartition::topic).distinct().toList())
                    .forEach((topic, described) -> ids.put(topic, described.id()));
            Map<TopicPartition, KafkaOffsets.Row> rows = store.read(settings.groupId(), partitions);
            Map<TopicPartition, OffsetChoice> choices = OffsetChoice.resume(c, partitions, rows, ids,
                    Duration.ofSeconds(10));
            Map<TopicPartition, String> otherTopic = new LinkedHashMap<>();
            for (Map.Entry<TopicPartition, OffsetChoice> e : choices.entrySet()) {
                TopicPartition tp = e.getKey();
                OffsetChoice choice = e.getValue();
                String id = ids.get(tp.topic());
                if (choice.dropRow()) {
                    store.delete(settings.groupId(), List.of(tp));
                }
                if (choice.rowSetTo() != null) {
                    store.set(settings.groupId(), Map.of(tp, choice.rowSetTo()), id);
                }
                if (choice.stamp()) {
                    store.stamp(settings.groupId(), tp, id);
                }
                offsets.topicId(tp.topic(), id);
                KafkaOffsets.Row row = rows.get(tp);
                if (choice.reason() == OffsetChoice.Reason.OTHER_TOPIC
                        || choice.reason() == OffsetChoice.Reason.UNPROVEN_ROW) {
                    otherTopic.put(tp, row.next() + " (topic id " + row.topicId() + ")");
                }
                settle(tp, choice, row == null ? null : row.next());
            }
            if (!otherTopic.isEmpty()) {
                KafkaMessage.INBOX0617W.log(settings.channel(), otherTopic.toString(),
                        choices.keySet().stream().filter(otherTopic::containsKey).map(tp -> ids.get(tp.topic()))
                                .distinct().toList().toString());
            }
        } catch (WakeupException e) {
            throw e;
        } catch (Exception e) {
            Set<TopicPartition> newly = offsets.unresolved(partitions);
            if (!newly.isEmpty()) {
                KafkaMessage.INBOX0616W.log(settings.channel(), newly.toString(), Failures.describe(e));
            }
            c.pause(partitions);
            nextResolve = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(InboxKafkaChannel.RETRY_MILLIS);
        }
    }

    /** Records where a partition resumed, resumes it if it was paused, and says why when it matters. */
    private void settle(TopicPartition tp, OffsetChoice choice, Long row) {
        if (offsets.settled(tp, choice.known())) {
            consumer.get().resume(List.of(tp));
        }
        switch (choice.reason()) {
            case DATABASE_BEHIND -> KafkaMessage.INBOX0612W.log(settings.channel(), tp.toString(),
                    String.valueOf(row), String.valueOf(choice.kafkaOffset()));
            case KAFKA_SET_ELSEWHERE, DATABASE_BEYOND_END -> KafkaMessage.INBOX0614I.log(settings.channel(),
                    tp.toString(), String.valueOf(row), String.valueOf(choice.kafkaOffset()),
                    choice.reason() == OffsetChoice.Reason.DATABASE_BEYOND_END ? "the database's lies beyond the "
                            + "partition's end: its log was cut below it" : "Kafka's was set by another client, "
                            + "another offset-store or an earlier version");
            default -> InboxLog.LOG.fine(() -> "Channel " + settings.channel() + ": " + tp + " resumes "
                    + (choice.seekTo() == null ? "at Kafka's committed offset" : "at " + choice.seekTo())
                    + " (" + choice.reason() + ", database " + row + ")");
        }
    }

    /**
     * Assigned partitions whose topic was deleted and made again while the channel read them (the consumer keeps
     * its position, which is no position in the new topic): their rows are set to the new topic's start with its
     * id, and they are sought there ({@code INBOX0617W}). A failure leaves them for the next watch round.
     *
     * @param partitions the partitions
     * @param topicId    the new topic's Kafka topic id
     */
    void recreated(Collection<TopicPartition> partitions, String topicId) {
        Consumer<?, ?> c = consumer.get();
        try {
            Map<TopicPartition, Long> starts = new LinkedHashMap<>(c.beginningOffsets(partitions,
                    Duration.ofSeconds(10)));
            Map<TopicPartition, String> rows = new LinkedHashMap<>();
            for (TopicPartition tp : partitions) {
                rows.put(tp, offsets.known(tp) + " (topic id " + offsets.topicId(tp.topic()) + ")");
            }
            store.set(settings.groupId(), starts, topicId);
            offsets.restart(starts);
            partitions.forEach(tp -> offsets.topicId(tp.topic(), topicId));
            starts.forEach(c::seek);
            KafkaMessage.INBOX0617W.log(settings.channel(), rows.toString(), List.of(topicId).toString());
        } catch (WakeupException e) {
            throw e;
        } catch (Exception e) {
            InboxLog.LOG.log(Level.FINE, "Channel " + settings.channel() + ": setting the rows of " + partitions
                    + " to the start of the topic made again failed; tried again at the next round", e);
        }
    }

    /**
     * Brings the database's rows up to the positions where they are behind (records processed one by one, a
     * transaction marker skipped, a partition just assigned), in a transaction of their own. Rows found lost are
     * sought back and their partitions taken out of the positions; a failure leaves the rows as they are (Kafka then
     * gets no offset beyond them).
     *
     * @param positions the consumer's positions, of which lost partitions are removed
     */
    void bringUp(Map<TopicPartition, Long> positions) {
        Map<TopicPartition, KafkaOffsets.Advance> advances = offsets.rowsBehind(positions);
        if (advances.isEmpty()) {
            return;
        }
        try {
            transaction.begin();
            Set<TopicPartition> found = store.advance(settings.groupId(), advances);
            if (!found.isEmpty()) {
                GroupTransaction.rollback(transaction);
                lost.seekBack(found);
                found.forEach(positions::remove);
                return;
            }
            transaction.commit();
            offsets.wrote(advances);
        } catch (Exception e) {
            GroupTransaction.rollback(transaction);
            InboxLog.LOG.log(Level.FINE, "writing the offsets of " + settings.channel()
                    + " to the database failed; Kafka's commit waits for them", e);
        }
    }
}
