package io.github.jakartainbox.inbox.kafka;

import io.github.jakartainbox.inbox.claim.InboxClaim;
import io.github.jakartainbox.inbox.failure.Failures;
import io.github.jakartainbox.inbox.logging.InboxLog;
import jakarta.transaction.Status;
import jakarta.transaction.UserTransaction;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.logging.Level;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.TopicPartition;
import org.eclipse.microprofile.reactive.messaging.Message;

/**
 * Runs a channel's records: a group of consecutive records in one JTA transaction with the group's offset rows, and
 * after a rollback the same records one by one through the per-message path (no transaction here: the inbox begins
 * one per attempt). A message left unacknowledged halts the poll: the poll loop seeks the rest back.
 */
final class GroupTransaction {

    private final InboxKafkaChannel channel;
    private final InboxKafkaChannel.Settings settings;
    private final UserTransaction transaction;
    private final InboxClaim inbox;
    private final KafkaOffsets store;
    private final PartitionOffsets offsets;
    private final LostCommits lost;
    /** Set when a message of the current poll was left unacknowledged: the rest of the poll is sought back. */
    private boolean halted;
    private final RepeatedNacks nacks = new RepeatedNacks();

    GroupTransaction(InboxKafkaChannel channel, UserTransaction transaction, InboxClaim inbox, KafkaOffsets store,
                     PartitionOffsets offsets, LostCommits lost) {
        this.channel = channel;
        this.settings = channel.settings();
        this.transaction = transaction;
        this.inbox = inbox;
        this.store = store;
        this.offsets = offsets;
        this.lost = lost;
    }

    /** A poll's records are about to be run: nothing is halted yet. */
    void newPoll() {
        halted = false;
    }

    /** @return whether a message of the current poll was left unacknowledged (or the channel stopped first) */
    boolean halted() {
        return halted;
    }

    /**
     * Runs records in one JTA transaction. A group stops taking records when half its transaction timeout is used.
     *
     * @return how many of the records are done (committed, or processed one by one after a rollback)
     */
    int group(List<ConsumerRecord<Object, Object>> records) {
        try {
            inbox.ready(); // tables made or checked outside any transaction
        } catch (RuntimeException e) {
            return oneByOne(records); // the per-message path waits for the database and logs why
        }
        long start = System.nanoTime();
        long cutAfter = settings.groupTimeout().toNanos() / 2;
        List<KafkaRecordMessage> messages = records.stream().map(KafkaRecordMessage::new).toList();
        DeliveryGroup group = new DeliveryGroup(messages.stream().<Message<?>>map(KafkaRecordMessage::message)
                .toList(), settings.multiRowClaim());
        int emitted = 0;
        try {
            transaction.setTransactionTimeout((int) Math.max(1, settings.groupTimeout().toSeconds()));
            transaction.begin();
        } catch (Exception e) {
            return oneByOne(records);
        }
        group.enter();
        try {
            for (KafkaRecordMessage message : messages) {
                if (!channel.running() || (emitted > 0 && System.nanoTime() - start > cutAfter)) {
                    break;
                }
                group.at(emitted);
                if (!channel.emit(message)) {
                    halted = true;
                    break;
                }
                emitted++;
                Throwable nack = channel.awaitSettled(message);
                if (nack != null) {
                    group.failed(nack);
                }
                if (group.failure() != null) {
                    break;
                }
            }
        } catch (RuntimeException | Error e) {
            group.failed(e);
        } finally {
            group.leave();
        }
        if (group.failure() == null && emitted > 0) {
            try {
                return commit(group, records.subList(0, emitted), start);
            } catch (Exception e) {
                group.failed(e);
                // a statement before the commit failed (the database gone): the transaction is still the thread's,
                // and the one-by-one retries below would run inside it
                rollback(transaction);
            }
        } else {
            rollback(transaction);
            if (emitted == 0) {
                return 0;
            }
        }
        channel.figures().rolledBack();
        KafkaMessage.INBOX0603W.log(settings.channel(), String.valueOf(emitted),
                Failures.describe(group.failure()));
        return oneByOne(records.subList(0, emitted));
    }

    /**
     * Writes the group's offset rows and commits.
     *
     * @param start {@link System#nanoTime()} when the group began
     * @return how many records are done: all, or none when the database lost rows (the partitions are sought back)
     */
    private int commit(DeliveryGroup group, List<ConsumerRecord<Object, Object>> emitted, long start)
            throws Exception {
        if (transaction.getStatus() == Status.STATUS_MARKED_ROLLBACK) {
            throw new IllegalStateException("the transaction was marked for rollback");
        }
        group.beforeCommit(emitted.size()); // a group cut short gives back the claims of what it did not deliver
        Map<TopicPartition, KafkaOffsets.Advance> advances = settings.offsetsInDatabase()
                ? offsets.advances(emitted) : Map.of();
        Set<TopicPartition> found = store.advance(settings.groupId(), advances);
        if (!found.isEmpty()) {
            rollback(transaction);
            channel.figures().rolledBack();
            lost.seekBack(found);
            halted = true;
            return 0;
        }
        transaction.commit();
        channel.figures().committed(emitted.size(), System.nanoTime() - start);
        group.committed();
        offsets.wrote(advances);
        done(emitted);
        return emitted.size();
    }

    /** Rolls back the thread's transaction, if it has one. */
    static void rollback(UserTransaction transaction) {
        try {
            if (transaction.getStatus() != Status.STATUS_NO_TRANSACTION) {
                transaction.rollback();
            }
        } catch (Exception e) {
            InboxLog.LOG.log(Level.FINE, "rollback of a group failed", e);
        }
    }

    /** @return how many of the records were processed, one by one, before one was left unacknowledged */
    int oneByOne(List<ConsumerRecord<Object, Object>> records) {
        int done = 0;
        for (ConsumerRecord<Object, Object> record : records) {
            if (!channel.running() || !single(record)) {
                return done;
            }
            done++;
        }
        return done;
    }

    /** The per-message path: no transaction here; the inbox begins one per attempt. @return whether it is done */
    boolean single(ConsumerRecord<Object, Object> record) {
        KafkaRecordMessage message = new KafkaRecordMessage(record);
        if (!channel.emit(message)) {
            halted = true;
            return false;
        }
        Throwable nack = channel.awaitSettled(message);
        if (nack == null) {
            nacks.settled();
            done(List.of(record));
            return true;
        }
        halted = true;
        if (channel.running()) {
            nacks.failed(settings.channel(), record.topic() + "-" + record.partition() + "@" + record.offset(), nack);
            channel.pause(InboxKafkaChannel.RETRY_MILLIS);
        }
        return false;
    }

    private void done(List<ConsumerRecord<Object, Object>> records) {
        long now = System.nanoTime();
        for (ConsumerRecord<Object, Object> r : records) {
            offsets.processed(new TopicPartition(r.topic(), r.partition()), r.offset(), now,
                    settings.offsetsInDatabase());
        }
    }
}
