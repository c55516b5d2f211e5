package io.github.jakartainbox.inbox.kafka;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.jakartainbox.inbox.incoming.TransportSettlement;
import io.github.jakartainbox.inbox.spi.DeliveryOutcome;
import io.github.jakartainbox.testing.FakeTransactions;
import jakarta.enterprise.concurrent.ManagedThreadFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.ForkJoinWorkerThread;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.consumer.AcknowledgeType;
import org.apache.kafka.clients.consumer.AcknowledgementCommitCallback;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.MockShareConsumer;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicIdPartition;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.errors.InvalidRecordStateException;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.eclipse.microprofile.reactive.messaging.Message;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.reactivestreams.Subscriber;
import org.reactivestreams.Subscription;

/**
 * A share channel's poll thread ({@link ShareLoop}) on a share consumer that records its acknowledgements and, as
 * the real one in explicit mode, refuses a poll while a record of the last one is unacknowledged; the method is
 * played by the test's subscriber, as the inbox's per-message path would settle each message.
 */
class ShareLoopTest {

    private static final String TOPIC = "orders";
    private static final TopicPartition P0 = new TopicPartition(TOPIC, 0);

    private final FakeTransactions transaction = new FakeTransactions();
    private final AckingShareConsumer consumer = new AckingShareConsumer(transaction);
    private final Method method = new Method();
    private final AtomicInteger consumersOpened = new AtomicInteger();
    private final List<String> groupConfigs = Collections.synchronizedList(new ArrayList<>());
    private final AtomicInteger groupConfigRefusals = new AtomicInteger();
    /** What the group's config says of its limits, as the cluster describes it. */
    private volatile Map<String, String> groupLimits = Map.of();
    private InboxKafkaChannel channel;

    @AfterEach
    void stop() {
        method.release();
        if (channel != null) {
            channel.stop();
            channel.awaitStopped(Duration.ofSeconds(10));
        }
    }

    @Test
    void eachRecordIsAcceptedOnlyOnceTheInboxAcknowledgedIt() {
        consumer.acquire(record(0, 1), record(1, 1), record(2, 1));
        start(() -> consumer);

        await().atMost(Duration.ofSeconds(10)).until(() -> consumer.acks().size() == 3);
        assertAll(() -> assertEquals(List.of("0:ACCEPT", "1:ACCEPT", "2:ACCEPT"), consumer.acks()),
                () -> assertEquals(List.of(0L, 1L, 2L), method.delivered()),
                () -> assertEquals(List.of(List.of(), List.of("0:ACCEPT"), List.of("0:ACCEPT", "1:ACCEPT")),
                        method.acksSeen(), "no record is accepted before the inbox settled it"),
                () -> assertEquals(3, channel.figures().acquired()),
                () -> assertEquals(3, channel.figures().accepted()),
                () -> assertEquals(0, channel.figures().redelivered()));
    }

    @Test
    void aRecordTheBrokerDeliveredBeforeIsAcceptedAndCountedAsARedelivery() {
        consumer.acquire(record(0, 1), record(1, 3));
        start(() -> consumer);

        await().atMost(Duration.ofSeconds(10)).until(() -> consumer.acks().size() == 2);
        assertAll(() -> assertEquals(List.of("0:ACCEPT", "1:ACCEPT"), consumer.acks()),
                () -> assertEquals(1, channel.figures().redelivered()));
    }

    @Test
    void aNackedRecordIsDeliveredAgainHereNeverReleasedToTheBroker() {
        consumer.acquire(record(0, 5), record(1, 1));
        method.nackOnce(0);
        start(() -> consumer);

        await().atMost(Duration.ofSeconds(10)).until(() -> consumer.acks().size() == 2);
        assertAll(() -> assertEquals(List.of(0L, 0L, 1L), method.delivered(),
                        "a release at the delivery count limit (5 here) would have the broker archive it"),
                () -> assertEquals(List.of("0:ACCEPT", "1:ACCEPT"), consumer.acks()),
                () -> assertEquals(0, channel.figures().released()));
    }

    @Test
    void aDeliveryThatOutlastsTheLockAcquiresNothingMeanwhileAndItsRecordsAreStillAcceptedAfter() {
        consumer.lockMillis = 100;
        consumer.acquire(record(0, 1), record(1, 1));
        consumer.acquire(record(2, 1));
        method.hold(0);
        start(() -> consumer);

        await().atMost(Duration.ofSeconds(10)).until(() -> channel.figures().locksExpired() == 2);
        int pollsWhileHeld = consumer.polls.get();
        List<String> whileHeld = consumer.acks();
        method.release();

        await().atMost(Duration.ofSeconds(10)).until(() -> consumer.acks().size() == 3);
        assertAll(() -> assertEquals(List.of(), whileHeld, "nothing acknowledged while the delivery runs"),
                () -> assertEquals(1, pollsWhileHeld, "no poll, so no record acquired, while the delivery runs"),
                () -> assertEquals(List.of("0:ACCEPT", "1:ACCEPT", "2:ACCEPT"), consumer.acks(),
                        "accepted all the same: a refusal comes back through the callback, harmless"),
                () -> assertEquals(2, channel.figures().locksExpired(), "counted once per poll"));
    }

    @Test
    void aStopReleasesThePollsRecordsNotDelivered() throws InterruptedException {
        consumer.acquire(record(0, 1), record(1, 1), record(2, 1));
        method.hold(1);
        start(() -> consumer);
        await().atMost(Duration.ofSeconds(10)).until(() -> method.delivered().contains(1L));

        channel.stop();
        method.release();
        channel.awaitStopped(Duration.ofSeconds(10));

        assertAll(() -> assertEquals(List.of("0:ACCEPT", "1:ACCEPT", "2:RELEASE"), consumer.acks()),
                () -> assertEquals(1, channel.figures().released()),
                () -> assertEquals(1, consumer.commitsSync.get(), "the acknowledgements are sent before the close"),
                () -> assertTrue(consumer.closedNow()));
    }

    @Test
    void acknowledgementFailuresAreCountedAndTheChannelGoesOn() {
        consumer.acquire(record(0, 1));
        start(() -> consumer);
        await().atMost(Duration.ofSeconds(10)).until(() -> consumer.acks().size() == 1);

        TopicIdPartition partition = new TopicIdPartition(Uuid.randomUuid(), P0);
        consumer.callback.onComplete(Map.of(partition, Set.of(0L, 1L)),
                new InvalidRecordStateException("the record's lock had expired"));
        consumer.callback.onComplete(Map.of(partition, Set.of(2L)), new InvalidRecordStateException("again"));
        consumer.callback.onComplete(Map.of(partition, Set.of(3L)), null);
        consumer.acquire(record(1, 2));

        await().atMost(Duration.ofSeconds(10)).until(() -> consumer.acks().size() == 2);
        assertAll(() -> assertEquals(3, channel.figures().acknowledgementErrors()),
                () -> assertEquals("1:ACCEPT", consumer.acks().get(1)));
    }

    @Test
    void aShareConsumerThatFailsIsClosedAndANewOneTakesOver() {
        AckingShareConsumer second = new AckingShareConsumer(transaction);
        second.acquire(record(0, 2));
        consumer.pollFailure = new KafkaException("the broker went away");
        start(() -> consumersOpened.get() == 1 ? consumer : second);

        await().atMost(Duration.ofSeconds(20)).until(() -> second.acks().size() == 1);
        assertAll(() -> assertTrue(consumer.closedNow()), () -> assertEquals(List.of("0:ACCEPT"), second.acks()));
    }

    @Test
    void theShareGroupsConfigIsSetBeforeAConsumerJoinsAndTriedAgainWhenRefused() {
        groupConfigRefusals.set(1);
        consumer.acquire(record(0, 1));
        start(() -> consumer);

        await().atMost(Duration.ofSeconds(20)).until(() -> consumer.acks().size() == 1);
        String set = "billing {share.isolation.level=read_committed} with 0 consumers open";
        assertEquals(List.of(set, set), groupConfigs, "refused once, set at the second try, before any consumer");
    }

    @Test
    void aRecordTheInboxDeadLetteredIsRejectedNotAccepted() {
        consumer.acquire(record(0, 1), record(1, 2), record(2, 1));
        method.settleAs(1, DeliveryOutcome.DEAD_LETTERED);
        method.settleAs(2, DeliveryOutcome.FINGERPRINT_MISMATCH);
        start(() -> consumer);

        await().atMost(Duration.ofSeconds(10)).until(() -> consumer.acks().size() == 3);
        assertAll(() -> assertEquals(List.of("0:ACCEPT", "1:REJECT", "2:REJECT"), consumer.acks(),
                        "the inbox's dead letter keeps the record: the broker archives it at once"),
                () -> assertEquals(2, channel.figures().rejected()),
                () -> assertEquals(1, channel.figures().accepted()));
    }

    @Test
    void aRecordsEarlierDeliveriesAreItsPriorAttemptsWithinTheGroupsLimit() {
        groupLimits = Map.of("share.delivery.count.limit", "3");
        consumer.acquire(record(0, 1), record(1, 3));
        start(() -> consumer);

        await().atMost(Duration.ofSeconds(10)).until(() -> consumer.acks().size() == 2);
        assertEquals(List.of("0: 0/3 PT30S", "1: 2/3 PT30S"), method.settlementsSeen(),
                "attempts start from deliveryCount() - 1; the limit is the group's; the lock is not renewed");
    }

    @Test
    void onlyARedeliveryThatMeetsItsRowCountsAsAnExpiredLock() {
        consumer.acquire(record(0, 2), record(1, 3), record(2, 1));
        method.settleAs(1, DeliveryOutcome.DUPLICATE);
        method.settleAs(2, DeliveryOutcome.DUPLICATE);
        start(() -> consumer);

        await().atMost(Duration.ofSeconds(10)).until(() -> consumer.acks().size() == 3);
        assertAll(() -> assertEquals(1, channel.figures().redeliveredDuplicates(),
                        "record 0 was redelivered but processed now (its first delivery did not commit), record 2 "
                                + "was a duplicate on its first delivery (sent twice)"),
                () -> assertEquals(2, channel.figures().redelivered()));
    }

    @Test
    void aLongDeliveryRenewsThePollsLocksAtHalfTheLockAndNothingExpires() {
        consumer.lockMillis = 200;
        consumer.acquire(record(0, 1), record(1, 1));
        method.hold(0);
        start(() -> consumer, true);

        await().atMost(Duration.ofSeconds(10)).until(() -> channel.figures().renewed() >= 4);
        int pollsWhileHeld = consumer.polls.get();
        method.release();

        await().atMost(Duration.ofSeconds(10)).until(() -> consumer.acks().stream()
                .filter(a -> !a.endsWith(":RENEW")).count() == 2);
        List<String> acks = consumer.acks();
        assertAll(() -> assertEquals(List.of("0:RENEW", "1:RENEW"), acks.subList(0, 2),
                        "both held records renewed, the one being delivered too"),
                () -> assertEquals(List.of("0:ACCEPT", "1:ACCEPT"), acks.stream()
                        .filter(a -> !a.endsWith(":RENEW")).toList(), "accepted after their renewals"),
                () -> assertEquals(1, pollsWhileHeld, "the renewals' polls hand back the held records only"),
                () -> assertEquals(0, channel.figures().locksExpired()),
                () -> assertEquals(List.of("0: 0/5 null", "1: 0/5 null"), method.settlementsSeen(),
                        "a renewed lock is no limit on the transaction"),
                () -> assertEquals(List.of("billing {share.isolation.level=read_committed, "
                        + "share.renew.acknowledge.enable=true} with 0 consumers open"), groupConfigs,
                        "renewal enabled on the group before its consumer joins"));
    }

    @Test
    void aGroupThatRefusesRenewalLetsTheLocksExpireAsBefore() {
        groupLimits = Map.of("share.renew.acknowledge.enable", "false");
        consumer.lockMillis = 100;
        consumer.acquire(record(0, 1), record(1, 1));
        method.hold(0);
        start(() -> consumer, true);

        await().atMost(Duration.ofSeconds(10)).until(() -> channel.figures().locksExpired() == 2);
        method.release();
        await().atMost(Duration.ofSeconds(10)).until(() -> consumer.acks().size() == 2);
        assertAll(() -> assertEquals(List.of("0:ACCEPT", "1:ACCEPT"), consumer.acks()),
                () -> assertEquals(0, channel.figures().renewed()));
    }

    @Test
    void aRecordHeldBetweenTriesKeepsItsLock() {
        consumer.lockMillis = 200;
        consumer.acquire(record(0, 1));
        method.nackOnce(0);
        start(() -> consumer, true);

        await().atMost(Duration.ofSeconds(10)).until(() -> consumer.acks().contains("0:ACCEPT"));
        assertAll(() -> assertTrue(consumer.acks().indexOf("0:RENEW") >= 0
                        && consumer.acks().indexOf("0:RENEW") < consumer.acks().indexOf("0:ACCEPT"),
                        "renewed during the second's wait before the next try: " + consumer.acks()),
                () -> assertEquals(0, channel.figures().locksExpired()));
    }

    @Test
    void aGroupRunsInOneTransactionAndItsRecordsAreAcceptedOnlyAfterItsCommit() {
        consumer.acquire(record(0, 1), record(1, 1), record(2, 1));
        method.settleAs(1, DeliveryOutcome.DUPLICATE);
        start(() -> consumer, false, 10);

        await().atMost(Duration.ofSeconds(10)).until(() -> consumer.acks().size() == 3);
        assertAll(() -> assertEquals(List.of("0:ACCEPT", "1:ACCEPT", "2:ACCEPT"), consumer.acks(),
                        "a duplicate of the group is accepted with the others"),
                () -> assertEquals(List.of(0L, 1L, 2L), method.delivered()),
                () -> assertEquals(List.of(List.of(), List.of(), List.of()), method.acksSeen(),
                        "nothing accepted while the group's transaction runs"),
                () -> assertEquals(List.of(1L, 1L, 1L), consumer.commitsAtAcks(),
                        "each accepted after the group's one commit"),
                () -> assertEquals(1, transaction.count("begin")),
                () -> assertEquals(0, transaction.count("rollback")),
                () -> assertEquals(3, channel.figures().accepted()));
    }

    @Test
    void aFailingRecordRollsItsGroupBackAndIsRejectedAloneWhileTheOthersAreAccepted() {
        consumer.acquire(record(0, 1), record(1, 1), record(2, 1), record(3, 1));
        method.nackOnce(2); // the group path reports it, the per-message path dead-letters it
        method.settleAs(2, DeliveryOutcome.DEAD_LETTERED);
        start(() -> consumer, false, 10);

        await().atMost(Duration.ofSeconds(10)).until(() -> consumer.acks().size() == 4);
        assertAll(
                // 0-2 in the group, 0-2 again one by one (the inbox's own transactions), then 3 alone
                () -> assertEquals(List.of(0L, 1L, 2L, 0L, 1L, 2L, 3L), method.delivered()),
                () -> assertEquals(List.of("0:ACCEPT", "1:ACCEPT", "2:REJECT", "3:ACCEPT"), consumer.acks()),
                () -> assertEquals(List.of(), method.acksSeen().get(2), "nothing accepted before the rollback"),
                () -> assertEquals(1, transaction.count("begin")),
                () -> assertEquals(1, transaction.count("rollback")),
                () -> assertEquals(0, transaction.count("commit")),
                () -> assertEquals(1, channel.figures().rejected()));
    }

    @Test
    void aLongGroupRenewsThePollsLocksAndAcceptsAfterItsCommit() {
        consumer.lockMillis = 200;
        consumer.acquire(record(0, 1), record(1, 1), record(2, 1));
        method.hold(1);
        start(() -> consumer, true, 10);

        await().atMost(Duration.ofSeconds(10)).until(() -> channel.figures().renewed() >= 6);
        method.release();

        await().atMost(Duration.ofSeconds(10)).until(() -> consumer.acks().stream()
                .filter(a -> !a.endsWith(":RENEW")).count() == 3);
        List<String> acks = consumer.acks();
        assertAll(() -> assertEquals(List.of("0:RENEW", "1:RENEW", "2:RENEW"), acks.subList(0, 3),
                        "the whole group renewed, the records already delivered too"),
                () -> assertEquals(List.of("0:ACCEPT", "1:ACCEPT", "2:ACCEPT"), acks.stream()
                        .filter(a -> !a.endsWith(":RENEW")).toList()),
                () -> assertEquals(1, transaction.count("commit")),
                () -> assertEquals(0, channel.figures().locksExpired()));
    }

    @Test
    void aGroupMayOutlastItsLockOnlyWhenTheLockIsNotRenewedAndShorterThanTheGroupTimeout() {
        assertAll(() -> assertTrue(ShareLoop.groupMayOutlastLock(Duration.ofSeconds(30), Duration.ofSeconds(15))),
                () -> assertFalse(ShareLoop.groupMayOutlastLock(Duration.ofSeconds(30), null), "renewed"),
                () -> assertFalse(ShareLoop.groupMayOutlastLock(Duration.ofSeconds(15), Duration.ofSeconds(15)),
                        "a group cut at the lock's end"),
                () -> assertFalse(ShareLoop.groupMayOutlastLock(Duration.ofSeconds(10), Duration.ofSeconds(30))));
    }

    // ------------------------------------------------------------------------------------------------ the harness

    private static ConsumerRecord<Object, Object> record(long offset, int deliveryCount) {
        return new ConsumerRecord<>(TOPIC, 0, offset, 0L, TimestampType.CREATE_TIME, -1, -1, "key-" + offset,
                "event-" + offset, new RecordHeaders(), Optional.empty(), Optional.of((short) deliveryCount));
    }

    private void start(java.util.function.Supplier<AckingShareConsumer> consumers) {
        start(consumers, false);
    }

    /** @param renew the channel's {@code share.renew} */
    private void start(java.util.function.Supplier<AckingShareConsumer> consumers, boolean renew) {
        start(consumers, renew, 1);
    }

    /**
     * @param renew        the channel's {@code share.renew}
     * @param maxGroupSize the channel's {@code group.max-size}
     */
    private void start(java.util.function.Supplier<AckingShareConsumer> consumers, boolean renew, int maxGroupSize) {
        InboxKafkaChannel.Settings settings = new InboxKafkaChannel.Settings("orders-billing", new Properties(),
                List.of(TOPIC), "billing", maxGroupSize, Duration.ofSeconds(2), Duration.ofMillis(10), Duration.ofMinutes(5),
                false, false, true, Map.of("share.isolation.level", "read_committed"), renew);
        InboxKafkaChannel.Clients clients = new InboxKafkaChannel.Clients(properties -> {
            throw new AssertionError("a share channel makes no classic consumer");
        }, properties -> {
            throw new AssertionError("a share channel watches no topics");
        }, properties -> {
            consumersOpened.incrementAndGet();
            return consumers.get();
        }, properties -> new ShareGroupConfig() {
            @Override
            public void set(String groupId, Map<String, String> configs) {
                groupConfigs.add(groupId + " " + configs + " with " + consumersOpened.get() + " consumers open");
                if (groupConfigRefusals.getAndDecrement() > 0) {
                    throw new KafkaException("the cluster is away");
                }
            }

            @Override
            public Map<String, String> read(String groupId, java.util.Collection<String> names) {
                return groupLimits;
            }
        });
        channel = new InboxKafkaChannel(settings, new Threads(), transaction, new ReadyInbox(), new KafkaOffsets(null),
                clients);
        channel.subscribe(method);
    }

    /**
     * A share consumer whose polls hand out the records the test acquires for it, one poll each; it records each
     * acknowledgement as {@code <offset>:<type>} and, as the real one in explicit mode, refuses a poll while a record
     * of the last poll has no final acknowledgement.
     */
    private static final class AckingShareConsumer extends MockShareConsumer<Object, Object> {

        private final ConcurrentLinkedDeque<List<ConsumerRecord<Object, Object>>> toAcquire =
                new ConcurrentLinkedDeque<>();
        private final List<String> acks = Collections.synchronizedList(new ArrayList<>());
        /** Per final acknowledgement, how many transactions had committed by then. */
        private final List<Long> commitsAtAcks = Collections.synchronizedList(new ArrayList<>());
        private final FakeTransactions transaction;
        private final Set<Long> finallyAcknowledged = Collections.synchronizedSet(new HashSet<>());
        /** Records acknowledged RENEW and sent (commitSync): the next poll hands them back, in flight again. */
        private final List<ConsumerRecord<Object, Object>> renewing = new ArrayList<>();
        private final List<ConsumerRecord<Object, Object>> renewed = new ArrayList<>();
        private List<ConsumerRecord<Object, Object>> last = List.of();
        final AtomicInteger polls = new AtomicInteger();
        final AtomicInteger commitsAsync = new AtomicInteger();
        final AtomicInteger commitsSync = new AtomicInteger();
        volatile int lockMillis = 30_000;
        volatile KafkaException pollFailure;
        volatile AcknowledgementCommitCallback callback;
        private volatile boolean closedNow;

        AckingShareConsumer(FakeTransactions transaction) {
            this.transaction = transaction;
        }

        List<Long> commitsAtAcks() {
            synchronized (commitsAtAcks) {
                return List.copyOf(commitsAtAcks);
            }
        }

        @SafeVarargs
        final void acquire(ConsumerRecord<Object, Object>... records) {
            toAcquire.add(List.of(records));
        }

        List<String> acks() {
            synchronized (acks) {
                return List.copyOf(acks);
            }
        }

        boolean closedNow() {
            return closedNow;
        }

        @Override
        public synchronized ConsumerRecords<Object, Object> poll(Duration timeout) {
            super.poll(Duration.ZERO); // wakeups and the closed check
            KafkaException failure = pollFailure;
            if (failure != null) {
                pollFailure = null;
                throw failure;
            }
            for (ConsumerRecord<Object, Object> r : last) {
                if (!finallyAcknowledged.contains(r.offset()) && !renewed.contains(r)) {
                    throw new IllegalStateException("All records must be acknowledged in explicit acknowledgement "
                            + "mode.");
                }
            }
            if (!renewed.isEmpty()) {
                last = List.copyOf(renewed);
                renewed.clear();
                return new ConsumerRecords<>(Map.of(P0, last), Map.of());
            }
            List<ConsumerRecord<Object, Object>> next = toAcquire.poll();
            if (next == null) {
                last = List.of();
                try {
                    wait(5); // as a poll waits for records, without holding the test's threads busy
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                return new ConsumerRecords<>(Map.of(), Map.of());
            }
            polls.incrementAndGet();
            last = next;
            return new ConsumerRecords<>(Map.of(P0, next), Map.of());
        }

        @Override
        public synchronized void acknowledge(ConsumerRecord<Object, Object> record, AcknowledgeType type) {
            if (finallyAcknowledged.contains(record.offset()) || renewing.contains(record)
                    || renewed.contains(record)) {
                throw new IllegalStateException("The record cannot be acknowledged.");
            }
            acks.add(record.offset() + ":" + type.name());
            if (type != AcknowledgeType.RENEW) {
                finallyAcknowledged.add(record.offset());
                commitsAtAcks.add(transaction.count("commit"));
            } else {
                renewing.add(record);
            }
        }

        @Override
        public synchronized void commitAsync() {
            commitsAsync.incrementAndGet();
        }

        @Override
        public synchronized Map<TopicIdPartition, Optional<KafkaException>> commitSync(Duration timeout) {
            commitsSync.incrementAndGet();
            renewed.addAll(renewing);
            renewing.clear();
            return Map.of();
        }

        @Override
        public void setAcknowledgementCommitCallback(AcknowledgementCommitCallback callback) {
            this.callback = callback;
        }

        @Override
        public Optional<Integer> acquisitionLockTimeoutMs() {
            return Optional.of(lockMillis);
        }

        @Override
        public synchronized void close() {
            closedNow = true;
            super.close();
        }
    }

    /**
     * The channel's method, as the inbox's per-message path settles it: acknowledges each message (after its commit,
     * a duplicate, a dead letter), nacks the chosen ones once, holds the chosen one until released.
     */
    private final class Method implements Subscriber<Message<?>> {

        private final List<Long> delivered = Collections.synchronizedList(new ArrayList<>());
        private final List<List<String>> acksSeen = Collections.synchronizedList(new ArrayList<>());
        private final Set<Long> nackOnce = Collections.synchronizedSet(new HashSet<>());
        private final Map<Long, DeliveryOutcome> outcomes = new java.util.concurrent.ConcurrentHashMap<>();
        private final List<String> settlementsSeen = Collections.synchronizedList(new ArrayList<>());
        private volatile long hold = -1;
        private final CountDownLatch released = new CountDownLatch(1);

        void nackOnce(long offset) {
            nackOnce.add(offset);
        }

        void hold(long offset) {
            hold = offset;
        }

        /** Has the inbox say how it settled the record at this offset, as the per-message path does. */
        void settleAs(long offset, DeliveryOutcome outcome) {
            outcomes.put(offset, outcome);
        }

        /** @return per delivery, {@code <offset>: <prior attempts>/<delivery limit> <unrenewed lock>} */
        List<String> settlementsSeen() {
            synchronized (settlementsSeen) {
                return List.copyOf(settlementsSeen);
            }
        }

        void release() {
            released.countDown();
        }

        List<Long> delivered() {
            synchronized (delivered) {
                return List.copyOf(delivered);
            }
        }

        List<List<String>> acksSeen() {
            synchronized (acksSeen) {
                return List.copyOf(acksSeen);
            }
        }

        @Override
        public void onSubscribe(Subscription subscription) {
            subscription.request(Long.MAX_VALUE);
        }

        @Override
        public void onNext(Message<?> message) {
            @SuppressWarnings("unchecked")
            long offset = ((ConsumerRecord<Object, Object>) message.unwrap(ConsumerRecord.class)).offset();
            delivered.add(offset);
            acksSeen.add(consumer.acks());
            if (offset == hold) {
                try {
                    released.await(20, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            TransportSettlement settlement = TransportSettlement.of(message);
            settlementsSeen.add(offset + ": " + settlement.priorAttempts() + "/" + settlement.deliveryLimit() + " "
                    + settlement.unrenewedLock());
            if (nackOnce.remove(offset)) {
                message.nack(new IllegalStateException("the inbox is not ready for offset " + offset));
            } else {
                settlement.settled(outcomes.getOrDefault(offset, DeliveryOutcome.PROCESSED));
                message.ack();
            }
        }

        @Override
        public void onError(Throwable failure) {
            throw new AssertionError("the channel failed", failure);
        }

        @Override
        public void onComplete() {
        }
    }

    /** The inbox's tables are ready: a group's transaction checks that before it begins. */
    private static final class ReadyInbox extends io.github.jakartainbox.inbox.claim.InboxClaim {

        @Override
        public void ready() {
        }
    }

    private static final class Threads implements ManagedThreadFactory {

        @Override
        public Thread newThread(Runnable task) {
            Thread thread = new Thread(task);
            thread.setDaemon(true);
            return thread;
        }

        @Override
        public ForkJoinWorkerThread newThread(ForkJoinPool pool) {
            throw new UnsupportedOperationException("the channel runs its own threads");
        }
    }
}
