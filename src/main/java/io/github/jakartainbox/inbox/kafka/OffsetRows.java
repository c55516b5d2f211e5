package io.github.jakartainbox.inbox.kafka;

import io.github.jakartainbox.inbox.failure.Failures;
import io.github.jakartainbox.inbox.logging.InboxLog;
import io.github.jakartainbox.inbox.logging.InboxMessage;
import jakarta.transaction.UserTransaction;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import java.util.logging.Level;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.common.PartitionInfo;
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
    private long nextResolve;
    private boolean rowsChecked;
    /** Rows of the group's offsets for partitions this channel's topics do not have (for health). */
    private volatile List<String> rowsNotRead = List.of();

    OffsetRows(InboxKafkaChannel.Settings settings, Supplier<? extends Consumer<?, ?>> consumer,
               UserTransaction transaction, KafkaOffsets store, PartitionOffsets offsets, LostCommits lost) {
        this.settings = settings;
        this.consumer = consumer;
        this.transaction = transaction;
        this.store = store;
        this.offsets = offsets;
        this.lost = lost;
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
     * offsets cannot be read (the database, or Kafka, not answering) are paused and tried again a second later.
     */
    void resolve(Collection<TopicPartition> partitions) {
        Consumer<?, ?> c = consumer.get();
        try {
            Map<TopicPartition, Long> rows = store.read(settings.groupId(), partitions);
            Map<TopicPartition, OffsetChoice> choices = OffsetChoice.resume(c, partitions, rows,
                    Duration.ofSeconds(10));
            for (Map.Entry<TopicPartition, OffsetChoice> e : choices.entrySet()) {
                TopicPartition tp = e.getKey();
                OffsetChoice choice = e.getValue();
                if (choice.dropRow()) {
                    store.delete(settings.groupId(), List.of(tp));
                }
                if (choice.rowSetTo() != null) {
                    store.set(settings.groupId(), Map.of(tp, choice.rowSetTo()));
                }
                settle(tp, choice, rows.get(tp));
            }
            if (!rowsChecked) {
                rowsChecked = true;
                checkRows();
            }
        } catch (WakeupException e) {
            throw e;
        } catch (Exception e) {
            Set<TopicPartition> newly = offsets.unresolved(partitions);
            if (!newly.isEmpty()) {
                InboxMessage.INBOX0616W.log(settings.channel(), newly.toString(), Failures.describe(e));
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
            case DATABASE_BEHIND -> InboxMessage.INBOX0612W.log(settings.channel(), tp.toString(),
                    String.valueOf(row), String.valueOf(choice.kafkaOffset()));
            case KAFKA_SET_ELSEWHERE, DATABASE_BEYOND_END -> InboxMessage.INBOX0614I.log(settings.channel(),
                    tp.toString(), String.valueOf(row), String.valueOf(choice.kafkaOffset()),
                    choice.reason() == OffsetChoice.Reason.DATABASE_BEYOND_END ? "the database's lies beyond the "
                            + "partition's end: the topic was made again" : "Kafka's was set by another client, "
                            + "another offset-store or an earlier version");
            default -> InboxLog.LOG.fine(() -> "Channel " + settings.channel() + ": " + tp + " resumes "
                    + (choice.seekTo() == null ? "at Kafka's committed offset" : "at " + choice.seekTo())
                    + " (" + choice.reason() + ", database " + row + ")");
        }
    }

    /** Finds rows of the group's offsets for partitions that none of the channel's topics has (for health). */
    private void checkRows() throws SQLException {
        List<String> notRead = new ArrayList<>();
        for (TopicPartition tp : store.readAll(settings.groupId()).keySet()) {
            if (!settings.topics().contains(tp.topic())) {
                notRead.add(tp.toString());
                continue;
            }
            List<PartitionInfo> infos = consumer.get().partitionsFor(tp.topic(), Duration.ofSeconds(10));
            if (infos == null || tp.partition() >= infos.size()) {
                notRead.add(tp.toString());
            }
        }
        notRead.sort(null);
        rowsNotRead = List.copyOf(notRead);
        if (!notRead.isEmpty()) {
            InboxMessage.INBOX0615W.log(settings.channel(), settings.groupId(), notRead.toString(),
                    settings.topics().toString());
        }
    }

    /** @return rows of the group's database offsets for partitions the channel's topics do not have */
    List<String> rowsNotRead() {
        return rowsNotRead;
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
