package io.github.jakartainbox.inbox.kafka;

import io.github.jakartainbox.inbox.failure.Failures;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.consumer.AcknowledgeType;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.ShareConsumer;
import org.apache.kafka.common.TopicIdPartition;
import org.apache.kafka.common.errors.WakeupException;

/**
 * A share channel's poll thread ({@code group.type=share}, KIP-932): a {@link ShareConsumer} in explicit
 * acknowledgement mode acquires records; each goes through the per-message path (the inbox's claim and the method in
 * a JTA transaction of the inbox's own, with its failure policy and dead letters) and is {@code ACCEPT}ed once that
 * path acknowledged it: after its commit, after a duplicate was skipped, or after its dead letter was recorded.
 *
 * <p>The delivery runs on a second thread, so that this one watches it: nothing new is acquired while it lasts (a
 * database outage holds the first delivery, so the consumer stops polling), and a delivery that outlasts the
 * acquisition lock is said once ({@code INBOX0624W}): its poll's records go back to the group with their delivery
 * counts raised, and come back to a consumer that meets their inbox rows. Locks are not renewed ({@code RENEW}): a
 * 4.1 broker has no renewal, a newer one refuses it unless the group sets
 * {@code share.renew.acknowledge.enable}, and the client hands renewed records back through the next poll
 * (KAFKA-20458); docs/kafka-connector.md, "Share groups".
 *
 * <p>A delivery the inbox leaves unacknowledged (the inbox not ready, a method without {@code @Idempotent} that
 * fails) is retried here, never released: a release at the group's delivery count limit would have the broker archive
 * a record the inbox never recorded. Records of a poll left undone by a stop are released.
 */
final class ShareLoop implements Runnable {

    /** The lock duration assumed when the consumer cannot say it (the broker's default). */
    static final long DEFAULT_LOCK_MILLIS = 30_000;
    /** How often a delivery in progress is looked at: for the stop and the lock's expiry. */
    private static final long SLICE_MILLIS = 50;

    private final InboxKafkaChannel channel;
    private final InboxKafkaChannel.Settings settings;
    private final InboxKafkaChannel.Clients clients;
    private final ThreadFactory threads;
    private final RepeatedNacks nacks = new RepeatedNacks();
    private volatile ShareConsumer<Object, Object> consumer;
    /** Whether this consumer's first acknowledgement failure was logged (INBOX0623W). */
    private volatile boolean ackFailureSaid;
    /** {@link System#nanoTime()} of the current poll's acquisition. */
    private long acquiredAt;
    /** Whether the current poll's locks were said to have expired (INBOX0624W). */
    private boolean expirySaid;

    ShareLoop(InboxKafkaChannel channel, ThreadFactory threads, InboxKafkaChannel.Clients clients) {
        this.channel = channel;
        this.settings = channel.settings();
        this.clients = clients;
        this.threads = threads;
    }

    /** Interrupts a poll in progress. */
    void wakeup() {
        ShareConsumer<Object, Object> c = consumer;
        if (c != null) {
            c.wakeup();
        }
    }

    @Override
    public void run() {
        ExecutorService deliveries = Executors.newSingleThreadExecutor(task -> {
            Thread t = threads.newThread(task);
            t.setName("inbox-kafka-" + settings.channel() + "-delivery");
            return t;
        });
        try {
            boolean configured = settings.shareGroupConfig().isEmpty();
            while (channel.running()) {
                if (!configured) {
                    configured = configureGroup();
                    continue;
                }
                try (ShareConsumer<Object, Object> c = clients.shareConsumers().apply(settings.kafka())) {
                    consumer = c;
                    ackFailureSaid = false;
                    c.setAcknowledgementCommitCallback(this::acknowledged);
                    c.subscribe(settings.topics());
                    while (channel.running()) {
                        ConsumerRecords<Object, Object> records;
                        try {
                            records = c.poll(settings.pollTimeout());
                        } catch (WakeupException e) {
                            continue; // stopping: the loop condition ends it
                        }
                        if (!records.isEmpty()) {
                            process(c, records, deliveries);
                        }
                    }
                    c.commitSync(settings.groupTimeout()); // the acknowledgements made since the last poll
                } catch (Exception | Error e) {
                    if (!channel.running()) {
                        break;
                    }
                    KafkaMessage.INBOX0606E.log(settings.channel(), Failures.describe(e),
                            String.valueOf(InboxKafkaChannel.RETRY_MILLIS * 5));
                    channel.pause(InboxKafkaChannel.RETRY_MILLIS * 5);
                } finally {
                    consumer = null;
                }
            }
        } finally {
            deliveries.shutdownNow();
        }
    }

    /**
     * Sets the share group's own configuration (its isolation level, where a new group starts) before the consumer
     * joins: records read under the group's default {@code read_uncommitted} could be of aborted transactions.
     *
     * @return whether it is set; if not, it was said (INBOX0625W) and the channel waited before the next try
     */
    private boolean configureGroup() {
        try {
            clients.shareGroupConfig().apply(settings.kafka()).set(settings.groupId(), settings.shareGroupConfig());
            return true;
        } catch (Exception e) {
            if (e instanceof InterruptedException) {
                Thread.currentThread().interrupt();
            }
            if (channel.running()) {
                KafkaMessage.INBOX0625W.log(settings.channel(), settings.groupId(),
                        settings.shareGroupConfig().toString(), Failures.describe(e),
                        String.valueOf(InboxKafkaChannel.RETRY_MILLIS * 5));
                channel.pause(InboxKafkaChannel.RETRY_MILLIS * 5);
            }
            return false;
        }
    }

    /** Delivers a poll's records one by one; releases those a stop leaves undone. */
    private void process(ShareConsumer<Object, Object> c, ConsumerRecords<Object, Object> records,
                         ExecutorService deliveries) throws InterruptedException {
        List<ConsumerRecord<Object, Object>> pending = new ArrayList<>(records.count());
        records.forEach(pending::add);
        channel.figures().acquired(pending.size());
        acquiredAt = System.nanoTime();
        expirySaid = false;
        long lockNanos = TimeUnit.MILLISECONDS.toNanos(lockMillis(c));
        while (!pending.isEmpty() && channel.running()) {
            ConsumerRecord<Object, Object> record = pending.get(0);
            if (!deliver(c, record, pending, deliveries, lockNanos)) {
                break;
            }
            pending.remove(0);
        }
        for (ConsumerRecord<Object, Object> undone : pending) {
            c.acknowledge(undone, AcknowledgeType.RELEASE);
        }
        channel.figures().released(pending.size());
    }

    /**
     * Delivers one record until the inbox acknowledges it, then accepts it.
     *
     * @return whether it was accepted; {@code false} when the channel stopped first
     */
    private boolean deliver(ShareConsumer<Object, Object> c, ConsumerRecord<Object, Object> record,
                            List<ConsumerRecord<Object, Object>> pending, ExecutorService deliveries,
                            long lockNanos) throws InterruptedException {
        String at = record.topic() + "-" + record.partition() + "@" + record.offset();
        while (channel.running()) {
            KafkaRecordMessage message = new KafkaRecordMessage(record);
            Future<Boolean> emitted = deliveries.submit(() -> channel.emit(message));
            Throwable nack = await(c, message, emitted, pending, lockNanos, at);
            if (nack == null) {
                c.acknowledge(record, AcknowledgeType.ACCEPT);
                channel.figures().accepted(record.deliveryCount().orElse((short) 1) > 1);
                nacks.settled();
                return true;
            }
            if (!channel.running()) {
                return false;
            }
            nacks.failed(settings.channel(), at, nack);
            channel.pause(InboxKafkaChannel.RETRY_MILLIS);
        }
        return false;
    }

    /**
     * Waits for the inbox to settle a message; says once when the poll's locks have expired meanwhile.
     *
     * @return {@code null} once acknowledged; the reason once nacked, or when the channel stopped first
     */
    private Throwable await(ShareConsumer<Object, Object> c, KafkaRecordMessage message, Future<Boolean> emitted,
                            List<ConsumerRecord<Object, Object>> pending, long lockNanos, String at)
            throws InterruptedException {
        long start = System.nanoTime();
        long stoppingSince = 0;
        while (true) {
            try {
                return message.settled().get(SLICE_MILLIS, TimeUnit.MILLISECONDS);
            } catch (ExecutionException e) {
                return e.getCause();
            } catch (TimeoutException e) {
                if (emitted.isDone() && !emittedNormally(emitted)) {
                    return new IllegalStateException("the channel stopped before the message was delivered");
                }
            }
            if (!channel.running()) {
                stoppingSince = stoppingSince == 0 ? System.nanoTime() : stoppingSince;
                if (System.nanoTime() - stoppingSince > settings.groupTimeout().toNanos()) {
                    return new IllegalStateException("the application stopped before the message was acknowledged");
                }
            }
            if (!expirySaid && System.nanoTime() - acquiredAt > lockNanos) {
                expirySaid = true;
                channel.figures().locksExpired(pending.size());
                KafkaMessage.INBOX0624W.log(settings.channel(), at,
                        String.valueOf(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)),
                        String.valueOf(lockMillis(c)), String.valueOf(pending.size()));
            }
        }
    }

    private static boolean emittedNormally(Future<Boolean> emitted) throws InterruptedException {
        try {
            return emitted.get();
        } catch (ExecutionException e) {
            return false;
        }
    }

    private static long lockMillis(ShareConsumer<Object, Object> c) {
        return c.acquisitionLockTimeoutMs().map(Integer::longValue).filter(ms -> ms > 0).orElse(DEFAULT_LOCK_MILLIS);
    }

    /**
     * The consumer's report of acknowledgements sent: a failure is counted and said once per consumer. Harmless: a
     * record whose {@code ACCEPT} was lost comes back and meets its inbox row.
     */
    void acknowledged(Map<TopicIdPartition, Set<Long>> offsets, Exception failure) {
        if (failure == null) {
            return;
        }
        channel.figures().acknowledgementFailed(offsets.values().stream().mapToInt(Set::size).sum());
        if (!ackFailureSaid) {
            ackFailureSaid = true;
            KafkaMessage.INBOX0623W.log(settings.channel(), offsets.toString(), Failures.describe(failure));
        }
    }
}
