package io.github.jakartainbox.inbox.kafka;

import io.github.jakartainbox.inbox.failure.Failures;
import io.github.jakartainbox.inbox.spi.DeliveryOutcome;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
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
 * a JTA transaction of the inbox's own, with its failure policy and dead letters) and is acknowledged once that
 * path settled it: {@code ACCEPT} after its commit or after a duplicate was skipped, {@code REJECT} after its dead
 * letter was recorded (the inbox's dead letter keeps it; the broker archives it at once). With {@code group.max-size}
 * above 1 a poll's records run as a classic channel's group instead ({@link #deliverGroup}), accepted after its
 * commit; a group that rolls back runs through the per-message path one record at a time.
 *
 * <p>Before its consumer joins, the channel sets the group's config and reads the limits it works within: the
 * delivery count limit (a record's earlier deliveries count as the inbox's attempts, so that the failure policy
 * dead-letters it at the last delivery instead of the broker archiving it), the lock duration, and whether the group
 * takes {@code RENEW}.
 *
 * <p>The delivery runs on a second thread, so that this one watches it: nothing new is acquired while it lasts (a
 * database outage holds the first delivery, so the consumer stops polling). With renewal on, the locks of the poll's
 * records still held are renewed ({@code RENEW}) each time the delivery has run half the lock since the last
 * renewal, so that neither a slow transaction nor an outage uses a delivery; the client hands renewed records back
 * through the next poll, which this thread makes at once. With renewal off, a delivery that outlasts the lock is said
 * once ({@code INBOX0624W}): its poll's records go back to the group with their delivery counts raised, and come back
 * to a consumer that meets their inbox rows.
 *
 * <p>A delivery the inbox leaves unacknowledged (the inbox not ready, a method without {@code @Idempotent} that
 * fails) is retried here, never released: a release at the group's delivery count limit would have the broker archive
 * a record the inbox never recorded. Records of a poll left undone by a stop are released.
 */
final class ShareLoop implements Runnable {

    /** The lock duration assumed when the consumer cannot say it (the broker's default). */
    static final long DEFAULT_LOCK_MILLIS = 30_000;
    /** The delivery count limit assumed when the group's cannot be read (the broker's default). */
    static final int DEFAULT_DELIVERY_LIMIT = 5;
    /** How often a delivery in progress is looked at: for the stop and the lock's expiry. */
    private static final long SLICE_MILLIS = 50;

    private final InboxKafkaChannel channel;
    private final InboxKafkaChannel.Settings settings;
    private final InboxKafkaChannel.Clients clients;
    private final ThreadFactory threads;
    private final RepeatedNacks nacks = new RepeatedNacks();
    /** Runs a group of records in one transaction; {@code null} when each record runs alone. */
    private final GroupTransaction groups;
    private volatile ShareConsumer<Object, Object> consumer;
    /** Whether this consumer's first acknowledgement failure was logged (INBOX0623W). */
    private volatile boolean ackFailureSaid;
    /** {@link System#nanoTime()} of the current poll's acquisition, or of its records' last renewal. */
    private long acquiredAt;
    /** The group's delivery count limit, read before the consumer joins. */
    private int deliveryLimit = DEFAULT_DELIVERY_LIMIT;
    /** Whether the group takes {@code RENEW} and the channel renews. */
    private boolean renew;
    /** Whether the current poll's locks were said to have expired (INBOX0624W). */
    private boolean expirySaid;

    ShareLoop(InboxKafkaChannel channel, ThreadFactory threads, InboxKafkaChannel.Clients clients) {
        this(channel, threads, clients, null);
    }

    /**
     * @param groups the transaction of a group of records ({@code group.max-size} above 1); {@code null} when each
     *               record runs alone
     */
    ShareLoop(InboxKafkaChannel channel, ThreadFactory threads, InboxKafkaChannel.Clients clients,
              GroupTransaction groups) {
        this.channel = channel;
        this.settings = channel.settings();
        this.clients = clients;
        this.threads = threads;
        this.groups = settings.maxGroupSize() > 1 ? groups : null;
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
            boolean configured = false;
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
     * Sets the share group's own configuration (its isolation level, where a new group starts, lock renewal) before
     * the consumer joins: records read under the group's default {@code read_uncommitted} could be of aborted
     * transactions. Then reads the limits the channel works within: the delivery count limit and whether the group
     * takes {@code RENEW}.
     *
     * @return whether it is set and read; if not, it was said (INBOX0625W) and the channel waited before the next try
     */
    private boolean configureGroup() {
        Map<String, String> configs = new TreeMap<>(settings.shareGroupConfig());
        if (settings.shareRenew()) {
            configs.put(ShareGroupConfig.RENEW, "true");
        }
        try {
            ShareGroupConfig group = clients.shareGroupConfig().apply(settings.kafka());
            if (!configs.isEmpty()) {
                group.set(settings.groupId(), configs);
            }
            Map<String, String> limits = group.read(settings.groupId(),
                    List.of(ShareGroupConfig.DELIVERY_COUNT_LIMIT, ShareGroupConfig.RENEW));
            deliveryLimit = Optional.ofNullable(limits.get(ShareGroupConfig.DELIVERY_COUNT_LIMIT))
                    .map(Integer::parseInt).filter(n -> n > 0).orElse(DEFAULT_DELIVERY_LIMIT);
            renew = settings.shareRenew()
                    && Boolean.parseBoolean(limits.getOrDefault(ShareGroupConfig.RENEW, "true"));
            return true;
        } catch (Exception e) {
            if (e instanceof InterruptedException) {
                Thread.currentThread().interrupt();
            }
            if (channel.running()) {
                KafkaMessage.INBOX0625W.log(settings.channel(), settings.groupId(), configs.toString(),
                        Failures.describe(e), String.valueOf(InboxKafkaChannel.RETRY_MILLIS * 5));
                channel.pause(InboxKafkaChannel.RETRY_MILLIS * 5);
            }
            return false;
        }
    }

    /** Delivers a poll's records, in groups or one by one; releases those a stop leaves undone. */
    private void process(ShareConsumer<Object, Object> c, ConsumerRecords<Object, Object> records,
                         ExecutorService deliveries) throws InterruptedException {
        List<ConsumerRecord<Object, Object>> pending = new ArrayList<>(records.count());
        records.forEach(pending::add);
        channel.figures().acquired(pending.size());
        acquiredAt = System.nanoTime();
        expirySaid = false;
        while (!pending.isEmpty() && channel.running()) {
            if (groups != null && pending.size() > 1) {
                if (!deliverGroup(c, pending, deliveries)) {
                    break;
                }
                continue;
            }
            ConsumerRecord<Object, Object> record = pending.get(0);
            if (!deliver(c, record, pending, deliveries)) {
                break;
            }
            pending.remove(0);
        }
        for (ConsumerRecord<Object, Object> undone : pending) {
            acknowledge(c, undone, AcknowledgeType.RELEASE);
        }
        channel.figures().released(pending.size());
    }

    /**
     * Delivers the first records of the poll (up to {@code group.max-size}) in one transaction through the classic
     * group's {@link GroupTransaction#inOne} and, once it committed, accepts each (a skipped duplicate too). A group
     * that rolled back (a record failed, or its commit) is delivered again one by one through the per-record path,
     * where the failing record is dead-lettered and rejected alone and the others accepted after their own commits;
     * so is the first record when the group's transaction could not begin or the inbox is not ready. The poll's
     * locks are renewed while the group runs, as while a record does.
     *
     * @return whether the records it took are settled and removed from {@code pending}; {@code false} when the channel
     *         stopped first
     */
    private boolean deliverGroup(ShareConsumer<Object, Object> c, List<ConsumerRecord<Object, Object>> pending,
                                 ExecutorService deliveries) throws InterruptedException {
        List<ConsumerRecord<Object, Object>> group = List.copyOf(
                pending.subList(0, Math.min(settings.maxGroupSize(), pending.size())));
        Duration unrenewed = renew ? null : Duration.ofMillis(lockMillis(c));
        if (groupMayOutlastLock(settings.groupTimeout(), unrenewed) && GROUP_LOCK_SAID.add(settings.channel())) {
            KafkaMessage.INBOX0635W.log(settings.channel(), settings.groupTimeout().toString(),
                    String.valueOf(unrenewed.toMillis()));
        }
        List<KafkaRecordMessage> messages = group.stream()
                .map(r -> KafkaRecordMessage.ofShare(r, deliveryLimit, unrenewed)).toList();
        GroupTransaction.Run run = new GroupTransaction.Run(0, false, false, null);
        if (groups.inboxReady()) {
            Future<GroupTransaction.Run> running = deliveries.submit(() -> groups.inOne(messages, emitted -> true));
            run = awaitGroup(c, running, pending, key(group.get(0)));
        }
        if (run.committed()) {
            for (int i = 0; i < run.emitted(); i++) {
                settle(c, group.get(i), messages.get(i).outcome());
                pending.remove(group.get(i));
            }
            nacks.settled();
            return true;
        }
        // rolled back, never begun, or nothing delivered: one by one, at least the first so that the poll moves on
        for (ConsumerRecord<Object, Object> record : group.subList(0, Math.max(1, run.emitted()))) {
            if (!deliver(c, record, pending, deliveries)) {
                return false;
            }
            pending.remove(record);
        }
        return true;
    }

    /**
     * Waits for a group's transaction to end (its own stop bounds it: a stopping channel delivers no more and commits
     * what was delivered); renews the poll's locks when due, or says once when they have expired meanwhile.
     */
    private GroupTransaction.Run awaitGroup(ShareConsumer<Object, Object> c, Future<GroupTransaction.Run> running,
                                            List<ConsumerRecord<Object, Object>> pending, String at)
            throws InterruptedException {
        long start = System.nanoTime();
        while (true) {
            try {
                return running.get(SLICE_MILLIS, TimeUnit.MILLISECONDS);
            } catch (ExecutionException e) {
                return new GroupTransaction.Run(0, false, false, e.getCause());
            } catch (TimeoutException e) {
                renewIfDue(c, pending);
                expiredIfDue(c, at, start, pending);
            }
        }
    }

    /**
     * Delivers one record until the inbox acknowledges it, then accepts it, or rejects it when the inbox
     * dead-lettered it.
     *
     * @return whether it was acknowledged; {@code false} when the channel stopped first
     */
    private boolean deliver(ShareConsumer<Object, Object> c, ConsumerRecord<Object, Object> record,
                            List<ConsumerRecord<Object, Object>> pending, ExecutorService deliveries)
            throws InterruptedException {
        String at = record.topic() + "-" + record.partition() + "@" + record.offset();
        while (channel.running()) {
            KafkaRecordMessage message = KafkaRecordMessage.ofShare(record, deliveryLimit,
                    renew ? null : Duration.ofMillis(lockMillis(c)));
            Future<Boolean> emitted = deliveries.submit(() -> channel.emit(message));
            Throwable nack = await(c, message, emitted, pending, at);
            if (nack == null) {
                settle(c, record, message.outcome());
                nacks.settled();
                return true;
            }
            if (!channel.running()) {
                return false;
            }
            nacks.failed(settings.channel(), at, nack);
            long until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(InboxKafkaChannel.RETRY_MILLIS);
            while (channel.running() && System.nanoTime() < until) {
                renewIfDue(c, pending); // the record stays held between tries, its lock kept
                channel.pause(SLICE_MILLIS);
            }
        }
        return false;
    }

    /**
     * Acknowledges a record the inbox settled: {@code REJECT} after its dead letter (a fingerprint mismatch is one),
     * else {@code ACCEPT}; a redelivery that met its row is a lock that had expired after it was processed.
     */
    private void settle(ShareConsumer<Object, Object> c, ConsumerRecord<Object, Object> record,
                        DeliveryOutcome outcome) {
        boolean redelivery = record.deliveryCount().orElse((short) 1) > 1;
        if (outcome == DeliveryOutcome.DEAD_LETTERED || outcome == DeliveryOutcome.FINGERPRINT_MISMATCH) {
            acknowledge(c, record, AcknowledgeType.REJECT);
            channel.figures().reject();
            return;
        }
        acknowledge(c, record, AcknowledgeType.ACCEPT);
        channel.figures().accepted(redelivery);
        if (redelivery && outcome == DeliveryOutcome.DUPLICATE) {
            channel.figures().redeliveredDuplicate();
        }
    }

    /**
     * Acknowledges a record; a record the client no longer holds (its renewal refused) is counted as an
     * acknowledgement failure: it comes back and meets its inbox row.
     */
    private void acknowledge(ShareConsumer<Object, Object> c, ConsumerRecord<Object, Object> record,
                             AcknowledgeType type) {
        try {
            c.acknowledge(record, type);
        } catch (IllegalStateException e) {
            channel.figures().acknowledgementFailed(1);
            if (!ackFailureSaid) {
                ackFailureSaid = true;
                KafkaMessage.INBOX0623W.log(settings.channel(), record.topic() + "-" + record.partition() + "@"
                        + record.offset(), Failures.describe(e));
            }
        }
    }

    /**
     * Waits for the inbox to settle a message; renews the poll's locks when due, or says once when they have
     * expired meanwhile.
     *
     * @return {@code null} once acknowledged; the reason once nacked, or when the channel stopped first
     */
    private Throwable await(ShareConsumer<Object, Object> c, KafkaRecordMessage message, Future<Boolean> emitted,
                            List<ConsumerRecord<Object, Object>> pending, String at)
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
                continue;
            }
            renewIfDue(c, pending);
            expiredIfDue(c, at, start, pending);
        }
    }

    /** Without renewal, says once per poll that its locks expired while a delivery started at {@code start} ran. */
    private void expiredIfDue(ShareConsumer<Object, Object> c, String at, long start,
                              List<ConsumerRecord<Object, Object>> pending) {
        long lockNanos = TimeUnit.MILLISECONDS.toNanos(lockMillis(c));
        if (!renew && !expirySaid && System.nanoTime() - acquiredAt > lockNanos) {
            expirySaid = true;
            channel.figures().locksExpired(pending.size());
            KafkaMessage.INBOX0624W.log(settings.channel(), at,
                    String.valueOf(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)),
                    String.valueOf(lockMillis(c)), String.valueOf(pending.size()));
        }
    }

    /**
     * Renews ({@code RENEW}) the locks of the poll's records still held, the one being delivered included, once half
     * the lock has passed since they were acquired or last renewed; then polls at once, through which the client
     * hands the renewed records back (they must be in flight again to be accepted). A record that poll brings
     * besides them joins the end of the poll's records.
     */
    private void renewIfDue(ShareConsumer<Object, Object> c, List<ConsumerRecord<Object, Object>> pending) {
        long lockNanos = TimeUnit.MILLISECONDS.toNanos(lockMillis(c));
        if (!renew || pending.isEmpty() || System.nanoTime() - acquiredAt < lockNanos / 2) {
            return;
        }
        long renewedAt = System.nanoTime();
        for (ConsumerRecord<Object, Object> held : pending) {
            acknowledge(c, held, AcknowledgeType.RENEW);
        }
        try {
            c.commitSync(settings.groupTimeout());
            Set<String> back = new HashSet<>();
            Set<String> held = new HashSet<>();
            pending.forEach(r -> held.add(key(r)));
            long until = System.nanoTime() + settings.groupTimeout().toNanos();
            while (back.size() < held.size() && channel.running() && System.nanoTime() < until) {
                for (ConsumerRecord<Object, Object> r : c.poll(Duration.ofMillis(SLICE_MILLIS))) {
                    if (held.contains(key(r))) {
                        back.add(key(r));
                    } else {
                        pending.add(r);
                        channel.figures().acquired(1);
                    }
                }
            }
        } catch (WakeupException e) {
            return; // stopping
        } catch (IllegalStateException e) {
            // a poll that handed back only some of them refuses the next: those not back are acknowledged in vain
            // (counted, INBOX0623W) and come back to meet their rows
        }
        acquiredAt = renewedAt;
        channel.figures().renewed(pending.size());
    }

    private static String key(ConsumerRecord<?, ?> record) {
        return record.topic() + "-" + record.partition() + "@" + record.offset();
    }

    private static boolean emittedNormally(Future<Boolean> emitted) throws InterruptedException {
        try {
            return emitted.get();
        } catch (ExecutionException e) {
            return false;
        }
    }

    /** Channels told that their groups may outlast the lock (INBOX0635W), once each. */
    private static final Set<String> GROUP_LOCK_SAID = ConcurrentHashMap.newKeySet();

    /**
     * @param groupTimeout the channel's {@code group.timeout}: the group transaction's timeout
     * @param unrenewed    the records' lock when the channel does not renew it; {@code null} when it does
     * @return whether a group's transaction may run past its records' lock ({@code INBOX0242W}'s rule for a group)
     */
    static boolean groupMayOutlastLock(Duration groupTimeout, Duration unrenewed) {
        return unrenewed != null && groupTimeout.compareTo(unrenewed) > 0;
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
