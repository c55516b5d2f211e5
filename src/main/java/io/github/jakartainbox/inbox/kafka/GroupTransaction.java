package io.github.jakartainbox.inbox.kafka;

import io.github.jakartainbox.inbox.claim.InboxClaim;
import io.github.jakartainbox.inbox.failure.Failures;
import io.github.jakartainbox.inbox.logging.InboxLog;
import jakarta.transaction.Status;
import jakarta.transaction.UserTransaction;
import java.util.HashMap;
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
 * one per attempt). A message left unacknowledged halts the poll: the poll loop seeks the rest back. A share channel
 * ({@link ShareLoop}) runs its groups through {@link #inOne} alone, with nothing to write besides, and settles the
 * records itself.
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
     * Runs records in one JTA transaction with the group's offset rows. A group stops taking records when half its
     * transaction timeout is used.
     *
     * @return how many of the records are done (committed, or processed one by one after a rollback)
     */
    int group(List<ConsumerRecord<Object, Object>> records) {
        if (!inboxReady()) {
            return oneByOne(records); // the per-message path waits for the database and logs why
        }
        Map<TopicPartition, KafkaOffsets.Advance> advances = new HashMap<>();
        Run run = inOne(records.stream().map(KafkaRecordMessage::new).toList(), emitted -> {
            if (settings.offsetsInDatabase()) {
                advances.putAll(offsets.advances(records.subList(0, emitted)));
            }
            Set<TopicPartition> found = store.advance(settings.groupId(), advances);
            if (found.isEmpty()) {
                return true;
            }
            rollback(transaction);
            channel.figures().rolledBack();
            lost.seekBack(found);
            halted = true;
            return false;
        });
        if (!run.begun()) {
            return oneByOne(records);
        }
        if (run.committed()) {
            offsets.wrote(advances);
            done(records.subList(0, run.emitted()));
            return run.emitted();
        }
        return run.failure() == null || run.emitted() == 0 ? 0 : oneByOne(records.subList(0, run.emitted()));
    }

    /**
     * @return whether the inbox's tables are made or checked (outside any transaction); when not, the per-message
     *         path waits for the database and says why
     */
    boolean inboxReady() {
        try {
            inbox.ready();
            return true;
        } catch (RuntimeException e) {
            return false;
        }
    }

    /** What a group's transaction writes besides the deliveries' own work, just before its commit. */
    interface Writes {

        /**
         * @param emitted how many of the group's messages were delivered, from the first
         * @return whether to commit; {@code false} when this rolled the transaction back itself and the group is
         *         neither committed nor run again one by one
         * @throws Exception when a statement fails: the group rolls back and is run again one by one
         */
        boolean write(int emitted) throws Exception;
    }

    /**
     * How a group's transaction ended.
     *
     * @param emitted   how many of its messages were delivered, from the first
     * @param begun     whether its transaction began; when not, nothing was delivered
     * @param committed whether it committed
     * @param failure   why it rolled back (then said, INBOX0603W): its {@code emitted} messages are to be run again
     *                  one by one; {@code null} when it committed, delivered nothing, or its writes gave it up
     */
    record Run(int emitted, boolean begun, boolean committed, Throwable failure) {
    }

    /**
     * Delivers messages in one JTA transaction through the group path ({@link DeliveryGroup}) and commits them: the
     * transaction of a classic group and of a share group alike. It stops taking messages when half the transaction
     * timeout is used, when one fails, or when the channel stops.
     *
     * @param messages the group's messages, in order
     * @param writes   what the group writes before its commit (a classic group's offset rows)
     * @return how it ended; a rolled-back group is counted and said (INBOX0603W), its messages left to the caller
     */
    Run inOne(List<KafkaRecordMessage> messages, Writes writes) {
        long start = System.nanoTime();
        long cutAfter = settings.groupTimeout().toNanos() / 2;
        DeliveryGroup group = new DeliveryGroup(messages.stream().<Message<?>>map(KafkaRecordMessage::message)
                .toList(), settings.multiRowClaim());
        int emitted = 0;
        try {
            transaction.setTransactionTimeout((int) Math.max(1, settings.groupTimeout().toSeconds()));
            transaction.begin();
        } catch (Exception e) {
            return new Run(0, false, false, e);
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
                if (transaction.getStatus() == Status.STATUS_MARKED_ROLLBACK) {
                    throw new IllegalStateException("the transaction was marked for rollback");
                }
                group.beforeCommit(emitted); // a group cut short gives back the claims of what it did not deliver
                if (!writes.write(emitted)) {
                    return new Run(emitted, true, false, null);
                }
                transaction.commit();
                channel.figures().committed(emitted, System.nanoTime() - start);
                group.committed();
                return new Run(emitted, true, true, null);
            } catch (Exception e) {
                group.failed(e);
                // a statement before the commit failed (the database gone): the transaction is still the thread's,
                // and the one-by-one retries after it would run inside it
                rollback(transaction);
            }
        } else {
            rollback(transaction);
            if (emitted == 0) {
                return new Run(0, true, false, null);
            }
        }
        channel.figures().rolledBack();
        KafkaMessage.INBOX0603W.log(settings.channel(), String.valueOf(emitted),
                Failures.describe(group.failure()));
        return new Run(emitted, true, false, group.failure());
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
