package io.github.jakartainbox.inbox.kafka;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.jakartainbox.inbox.claim.InboxClaim;
import io.github.jakartainbox.testing.FakeTransactions;
import jakarta.enterprise.concurrent.ManagedThreadFactory;
import jakarta.transaction.RollbackException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.ForkJoinWorkerThread;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.MockConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.eclipse.microprofile.reactive.messaging.Message;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.reactivestreams.Subscriber;
import org.reactivestreams.Subscription;

/**
 * The channel's poll thread ({@link PollLoop}) and its group transactions ({@link GroupTransaction}) run for real on
 * Kafka's {@link MockConsumer}, with offset-store=kafka, a recording JTA transaction ({@link FakeTransactions}) and a method played by
 * the test's subscriber: what reaches the method, in which order, in how many transactions, and which offset is
 * committed.
 */
class PollLoopTest {

    private static final String TOPIC = "orders";
    private static final TopicPartition P0 = new TopicPartition(TOPIC, 0);

    private final LogConsumer consumer = new LogConsumer();
    private final FakeTransactions transaction = new FakeTransactions();
    private final Method method = new Method();
    private final AtomicInteger consumersOpened = new AtomicInteger();
    private InboxKafkaChannel channel;

    @AfterEach
    void stop() {
        if (channel != null) {
            channel.stop();
            channel.awaitStopped(Duration.ofSeconds(10));
        }
    }

    @Test
    void eachRecordReachesTheMethodOnceInOrderAndItsOffsetIsCommitted() {
        consumer.append(5);
        start(1, () -> consumer);

        awaitCommitted(5);
        assertAll(() -> assertEquals(List.of(0L, 1L, 2L, 3L, 4L), method.delivered()),
                () -> assertEquals(0, transaction.count("begin"), "the per-message path leaves transactions to the inbox"));
    }

    @Test
    void aNackedRecordHaltsThePollAndComesBackBeforeTheRecordsAfterIt() {
        consumer.append(5);
        method.nackOnce(2);
        start(1, () -> consumer);

        awaitCommitted(5);
        assertEquals(List.of(0L, 1L, 2L, 2L, 3L, 4L), method.delivered(),
                "the records after the nacked one were sought back, not skipped nor run before it");
    }

    @Test
    void aGroupRunsInOneTransaction() {
        consumer.append(5);
        start(10, () -> consumer);

        awaitCommitted(5);
        assertAll(() -> assertEquals(List.of(0L, 1L, 2L, 3L, 4L), method.delivered()),
                () -> assertEquals(1, transaction.count("begin")),
                () -> assertEquals(1, transaction.count("commit")),
                () -> assertEquals(0, transaction.count("rollback")));
    }

    @Test
    void aNackInAGroupRollsItBackAndRunsItsRecordsAgainOneByOne() {
        consumer.append(5);
        method.nackOnce(2);
        start(10, () -> consumer);

        awaitCommitted(5);
        assertAll(
                // 0-2 in the group, 0-2 again one by one (no transaction of the loop's), then 3-4 as a new group
                () -> assertEquals(List.of(0L, 1L, 2L, 0L, 1L, 2L, 3L, 4L), method.delivered()),
                () -> assertEquals(2, transaction.count("begin")),
                () -> assertEquals(1, transaction.count("rollback")),
                () -> assertEquals(1, transaction.count("commit")));
    }

    @Test
    void aGroupWhoseCommitFailsIsRunAgainOneByOneAndNothingIsSkipped() {
        consumer.append(3);
        transaction.commitFailure = new RollbackException("the database refused the commit");
        transaction.commitFailures = 1;
        start(10, () -> consumer);

        awaitCommitted(3);
        assertAll(() -> assertEquals(List.of(0L, 1L, 2L, 0L, 1L, 2L), method.delivered()),
                () -> assertEquals(1, transaction.count("begin"), "the redo is the per-message path's"));
    }

    @Test
    void aConsumerThatFailsIsClosedAndANewOneTakesOver() {
        LogConsumer second = new LogConsumer();
        second.append(2);
        consumer.setPollException(new KafkaException("the broker went away"));
        start(1, () -> consumersOpened.get() == 1 ? consumer : second);

        await().atMost(Duration.ofSeconds(20)).until(() -> committed(second) == 2);
        assertAll(() -> assertTrue(consumer.closed(), "the failed consumer is closed"),
                () -> assertEquals(2, consumersOpened.get()),
                () -> assertEquals(List.of(0L, 1L), method.delivered()));
    }

    @Test
    void aStopCommitsWhatIsDoneAndClosesTheConsumer() {
        consumer.append(3);
        start(1, () -> consumer);
        await().atMost(Duration.ofSeconds(10)).until(() -> method.delivered().size() == 3);

        channel.stop();
        channel.awaitStopped(Duration.ofSeconds(10));

        assertAll(() -> assertTrue(consumer.closed()), () -> assertEquals(3, consumer.committedAtClose));
    }

    // ------------------------------------------------------------------------------------------------ the harness

    private void start(int maxGroupSize, java.util.function.Supplier<LogConsumer> consumers) {
        InboxKafkaChannel.Settings settings = new InboxKafkaChannel.Settings("orders-billing", new Properties(),
                List.of(TOPIC), "billing", maxGroupSize, Duration.ofSeconds(30), Duration.ofMillis(10),
                Duration.ofMinutes(5), false, false);
        InboxKafkaChannel.Clients clients = new InboxKafkaChannel.Clients(properties -> {
            consumersOpened.incrementAndGet();
            return consumers.get();
        }, properties -> new OneTopic());
        channel = new InboxKafkaChannel(settings, new Threads(), transaction, new ReadyInbox(), new KafkaOffsets(null),
                clients);
        channel.subscribe(method);
    }

    private void awaitCommitted(long offset) {
        await().atMost(Duration.ofSeconds(20)).until(() -> committed(consumer) == offset);
    }

    private static long committed(MockConsumer<Object, Object> consumer) {
        OffsetAndMetadata committed = consumer.committed(Set.of(P0)).get(P0);
        return committed == null ? -1 : committed.offset();
    }

    /**
     * A {@link MockConsumer} over a log that stays: a poll returns the records from the partition's position on, so
     * that a seek back delivers them again, as a broker does ({@code MockConsumer} forgets a record once polled).
     */
    private static final class LogConsumer extends MockConsumer<Object, Object> {

        private final List<ConsumerRecord<Object, Object>> log = Collections.synchronizedList(new ArrayList<>());
        /** The partition's committed offset when the consumer was closed; -1 for none, -2 while open. */
        volatile long committedAtClose = -2;

        LogConsumer() {
            super("earliest");
            updateBeginningOffsets(Map.of(P0, 0L));
            schedulePollTask(() -> rebalance(List.of(P0)));
        }

        void append(int records) {
            for (int i = 0; i < records; i++) {
                log.add(new ConsumerRecord<>(TOPIC, 0, log.size(), "key-" + log.size(), "event-" + log.size()));
            }
        }

        @Override
        public synchronized void close(Duration timeout) {
            committedAtClose = PollLoopTest.committed(this);
            super.close(timeout);
        }

        @Override
        public void close() {
            close(Duration.ofSeconds(30));
        }

        @Override
        public synchronized ConsumerRecords<Object, Object> poll(Duration timeout) {
            super.poll(timeout); // poll tasks, wakeups, exceptions and the assignment's positions
            Map<TopicPartition, List<ConsumerRecord<Object, Object>>> polled = new HashMap<>();
            for (TopicPartition tp : assignment()) {
                long position = position(tp);
                List<ConsumerRecord<Object, Object>> records = new ArrayList<>();
                synchronized (log) {
                    log.stream().filter(r -> r.offset() >= position).forEach(records::add);
                }
                if (!records.isEmpty()) {
                    polled.put(tp, records);
                    seek(tp, records.get(records.size() - 1).offset() + 1);
                }
            }
            if (polled.isEmpty()) {
                try {
                    wait(5); // as a poll waits for records, without holding the test's threads busy
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            return new ConsumerRecords<>(polled, Map.of());
        }
    }

    /** The channel's method, as the interceptor would run it: acknowledges each message, nacks the chosen ones once. */
    private static final class Method implements Subscriber<Message<?>> {

        private final List<Long> delivered = Collections.synchronizedList(new ArrayList<>());
        private final Set<Long> nackOnce = Collections.synchronizedSet(new HashSet<>());

        void nackOnce(long offset) {
            nackOnce.add(offset);
        }

        List<Long> delivered() {
            synchronized (delivered) {
                return List.copyOf(delivered);
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
            if (nackOnce.remove(offset)) {
                message.nack(new IllegalStateException("the method failed on offset " + offset));
            } else {
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

    /** The inbox's tables are ready: the group transaction checks that before it begins. */
    private static final class ReadyInbox extends InboxClaim {

        @Override
        public void ready() {
        }
    }

    /** The topic as the cluster describes it, for the topic watch. */
    private static final class OneTopic implements ClusterTopics {

        @Override
        public Map<String, Topic> describe(java.util.Collection<String> topics) {
            return Map.of(TOPIC, new Topic("topic-id", 1));
        }

        @Override
        public Map<TopicPartition, Long> records(java.util.Collection<TopicPartition> partitions) {
            return Map.of();
        }

        @Override
        public void close() {
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
            throw new UnsupportedOperationException("the channel runs one thread");
        }
    }
}
