package io.github.jakartainbox.inbox.kafka;

import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.MockConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.consumer.OffsetCommitCallback;
import org.apache.kafka.clients.consumer.RetriableCommitFailedException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.TimeoutException;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * What the channel commits to Kafka ({@link KafkaCommits}, {@link PartitionOffsets}, {@link PollLoop.Rebalance},
 * {@link LostCommits}) on Kafka's {@link MockConsumer}, with offset-store=kafka: the records' processing is played by
 * the test, which marks records done as the group transaction does.
 */
class KafkaCommitsTest {

    private static final String TOPIC = "orders";
    private static final TopicPartition P0 = new TopicPartition(TOPIC, 0);
    private static final TopicPartition P1 = new TopicPartition(TOPIC, 1);
    private static final InboxKafkaChannel.Settings SETTINGS = new InboxKafkaChannel.Settings("orders-billing",
            new Properties(), List.of(TOPIC), "billing", 100, Duration.ofSeconds(30), Duration.ofMillis(10),
            Duration.ofMinutes(5), true, false);

    private TestConsumer consumer;
    private PartitionOffsets offsets;
    private KafkaCommits commits;
    /** Where {@link LostCommits} reads the database's rows from. */
    private final Map<TopicPartition, Long> rows = new HashMap<>();
    private LostCommits lost;

    @BeforeEach
    void subscribe() {
        consumer = new TestConsumer();
        offsets = new PartitionOffsets();
        commits = new KafkaCommits(SETTINGS, () -> consumer, offsets, null, () -> true);
        lost = new LostCommits(SETTINGS.channel(), () -> consumer, offsets, partitions -> Map.copyOf(rows));
        consumer.subscribe(List.of(TOPIC), new PollLoop.Rebalance(commits, offsets, null));
        consumer.updateBeginningOffsets(Map.of(P0, 0L, P1, 0L));
        consumer.rebalance(List.of(P0, P1));
    }

    @Test
    void aCompactionGapIsCommittedPast() {
        add(P0, 0, 1, 5, 6); // 2 to 4 compacted away: never delivered, never acknowledged
        doneAll(consumer.poll(Duration.ZERO));
        commits.progress(true);
        assertEquals(7L, kafkaCommitted(P0));
    }

    @Test
    void aTransactionMarkerIsCommittedPastTheLastRecord() {
        add(P0, 0, 1, 2);
        consumer.positionAfterPoll(P0, 4); // offset 3 is the transaction's commit marker: the fetch skips it
        doneAll(consumer.poll(Duration.ZERO));
        commits.progress(true);
        assertEquals(4L, kafkaCommitted(P0), "the position, not the last record + 1");
    }

    @Test
    void anAbortedTransactionsRecordsAndMarkerAreCommittedPast() {
        add(P0, 0, 1); // 2 to 4 aborted (not delivered under read_committed), 5 the abort marker
        consumer.positionAfterPoll(P0, 6);
        doneAll(consumer.poll(Duration.ZERO));
        commits.progress(false);
        assertAll(() -> assertEquals(6L, kafkaCommitted(P0)),
                () -> assertEquals(6L, offsets.committed(P0), "the asynchronous commit's confirmation is recorded"));
    }

    @Test
    void aHaltedPollIsSoughtBackAndCommitsOnlyWhatIsDone() {
        add(P0, 0, 1, 2, 3, 4);
        add(P1, 0, 1, 2);
        List<ConsumerRecord<Object, Object>> all = list(consumer.poll(Duration.ZERO));
        List<ConsumerRecord<Object, Object>> p0 = all.stream().filter(r -> r.partition() == 0).toList();
        done(p0.subList(0, 2)); // then a record is left unacknowledged: the poll halts
        List<ConsumerRecord<Object, Object>> undone = new ArrayList<>(p0.subList(2, p0.size()));
        all.stream().filter(r -> r.partition() == 1).forEach(undone::add);
        PollLoop.resumeAt(undone, Set.of()).forEach(consumer::seek);
        commits.progress(true);
        assertAll(() -> assertEquals(2L, kafkaCommitted(P0), "nothing after the first record not done"),
                () -> assertEquals(0L, kafkaCommitted(P1)),
                () -> assertEquals(2L, consumer.position(P0), "the next poll starts at the record not done"));
    }

    @Test
    void aRevocationDuringAGroupCommitsWhatIsDoneThenForgetsThePartition() {
        add(P0, 0, 1, 2, 3, 4, 5);
        add(P1, 0, 1);
        List<ConsumerRecord<Object, Object>> all = list(consumer.poll(Duration.ZERO));
        // the group is in flight when the broker moves P0: the consumer learns it at the next poll
        consumer.schedulePollTask(() -> consumer.rebalance(List.of(P1)));
        done(all);
        consumer.poll(Duration.ZERO); // no commit after the group: the revocation's commit must cover it
        assertAll(() -> assertEquals(6L, kafkaCommitted(P0), "the revoked partition's position, committed"),
                () -> assertEquals(Set.of(P1), consumer.assignment()),
                () -> assertNull(offsets.committed(P0), "forgotten: a new assignment starts from Kafka"),
                () -> assertNull(offsets.processedUpTo(P0)),
                () -> assertFalse(offsets.behindSince().containsKey(P0)));
    }

    @Test
    void lostPartitionsAreForgottenWithoutACommit() {
        add(P0, 0, 1, 2);
        doneAll(consumer.poll(Duration.ZERO));
        offsets.lagging(System.nanoTime(), SETTINGS.lagWarning()); // P0 is behind its commit now
        assertTrue(offsets.behindSince().containsKey(P0));
        consumer.losePartitions(List.of(P0));
        assertAll(() -> assertNull(kafkaCommitted(P0), "another member may own it: nothing is committed"),
                () -> assertNull(offsets.processedUpTo(P0)),
                () -> assertTrue(offsets.behindSince().isEmpty(), "health no longer counts it"));
    }

    @Test
    void aFailedCommitIsSentAgainAtTheNextRound() {
        add(P0, 0, 1, 2);
        doneAll(consumer.poll(Duration.ZERO));
        consumer.failCommits = 2;
        commits.progress(true); // synchronous: the broker times out
        commits.progress(false); // asynchronous: refused, retriable
        assertAll(() -> assertNull(kafkaCommitted(P0)), () -> assertNull(offsets.committed(P0)));
        commits.progress(false);
        assertAll(() -> assertEquals(3L, kafkaCommitted(P0)), () -> assertEquals(3L, offsets.committed(P0)));
    }

    @Test
    void aLateConfirmationFromBeforeASeekBackDoesNotRaiseTheCommittedOffset() {
        add(P0, range(0, 1000));
        doneAll(consumer.poll(Duration.ZERO));
        consumer.deferConfirmations = true;
        commits.progress(false); // 1000 sent, not yet confirmed
        // a failover lost the database's commits: its row says 400, the partition is read again from there
        rows.put(P0, 400L);
        offsets.newPoll();
        lost.seekBack(Set.of(P0));
        consumer.confirmAll(); // the broker confirms 1000 only now
        assertNull(offsets.committed(P0), "a confirmation sent before the seek-back is ignored");
        commits.progress(false);
        consumer.confirmAll();
        assertEquals(400L, kafkaCommitted(P0), "the lower offset is committed over the late one");
        add(P0, range(400, 1000));
        doneAll(consumer.poll(Duration.ZERO));
        commits.progress(false);
        consumer.confirmAll();
        assertAll(() -> assertEquals(1000L, kafkaCommitted(P0), "nothing left uncommitted"),
                () -> assertEquals(1000L, offsets.committed(P0)),
                () -> assertEquals(Set.of(P0), offsets.rewound()));
    }

    @Test
    void aLateConfirmationFromBeforeARevocationIsIgnored() {
        add(P0, 0, 1, 2);
        doneAll(consumer.poll(Duration.ZERO));
        consumer.deferConfirmations = true;
        commits.progress(false);
        consumer.schedulePollTask(() -> consumer.rebalance(List.of(P1)));
        consumer.poll(Duration.ZERO);
        consumer.schedulePollTask(() -> consumer.rebalance(List.of(P0, P1)));
        consumer.poll(Duration.ZERO);
        consumer.confirmAll();
        assertNull(offsets.committed(P0), "P0 was revoked and assigned again since the commit was sent");
    }

    private static long[] range(long from, long to) {
        long[] offsets = new long[(int) (to - from)];
        for (int i = 0; i < offsets.length; i++) {
            offsets[i] = from + i;
        }
        return offsets;
    }

    private void add(TopicPartition tp, long... offsetsOfRecords) {
        for (long offset : offsetsOfRecords) {
            consumer.addRecord(new ConsumerRecord<>(tp.topic(), tp.partition(), offset, "key", "value"));
        }
    }

    private static List<ConsumerRecord<Object, Object>> list(ConsumerRecords<Object, Object> records) {
        List<ConsumerRecord<Object, Object>> all = new ArrayList<>();
        records.forEach(all::add);
        return all;
    }

    private void doneAll(ConsumerRecords<Object, Object> records) {
        done(list(records));
    }

    /** What the group transaction does once records are committed. */
    private void done(List<ConsumerRecord<Object, Object>> records) {
        long now = System.nanoTime();
        records.forEach(r -> offsets.processed(new TopicPartition(r.topic(), r.partition()), r.offset(), now, false));
    }

    private Long kafkaCommitted(TopicPartition tp) {
        return consumer.brokerCommitted.get(tp); // MockConsumer.committed answers 0 for a partition not assigned
    }

    /**
     * A {@link MockConsumer} whose fetch can skip past a transaction marker, whose commits can fail, and whose
     * asynchronous commits can be confirmed later.
     */
    private static final class TestConsumer extends MockConsumer<Object, Object> {

        private final Map<TopicPartition, Long> positionAfterPoll = new HashMap<>();
        private final List<Runnable> unconfirmed = new ArrayList<>();
        /** What the broker holds, assigned or not. */
        final Map<TopicPartition, Long> brokerCommitted = new HashMap<>();
        int failCommits;
        boolean deferConfirmations;

        TestConsumer() {
            super("earliest");
        }

        void positionAfterPoll(TopicPartition tp, long position) {
            positionAfterPoll.put(tp, position);
        }

        synchronized void confirmAll() {
            List<Runnable> now = List.copyOf(unconfirmed);
            unconfirmed.clear();
            now.forEach(Runnable::run);
        }

        @Override
        public synchronized ConsumerRecords<Object, Object> poll(Duration timeout) {
            ConsumerRecords<Object, Object> records = super.poll(timeout);
            positionAfterPoll.forEach(this::seek);
            positionAfterPoll.clear();
            return records;
        }

        @Override
        public synchronized void commitSync(Map<TopicPartition, OffsetAndMetadata> offsets) {
            if (failCommits > 0) {
                failCommits--;
                throw new TimeoutException("the broker did not answer");
            }
            super.commitSync(offsets);
        }

        @Override
        public synchronized void commitAsync(Map<TopicPartition, OffsetAndMetadata> offsets,
                                             OffsetCommitCallback callback) {
            if (callback == null) { // MockConsumer's commitSync
                super.commitAsync(offsets, null);
                offsets.forEach((tp, o) -> brokerCommitted.put(tp, o.offset()));
                return;
            }
            if (failCommits > 0) {
                failCommits--;
                callback.onComplete(offsets, new RetriableCommitFailedException("the coordinator moved"));
                return;
            }
            Map<TopicPartition, OffsetAndMetadata> sent = Map.copyOf(offsets);
            unconfirmed.add(() -> {
                commitAsync(sent, null);
                callback.onComplete(sent, null);
            });
            if (!deferConfirmations) {
                confirmAll();
            }
        }
    }
}
