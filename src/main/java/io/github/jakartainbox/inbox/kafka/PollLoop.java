package io.github.jakartainbox.inbox.kafka;

import io.github.jakartainbox.inbox.claim.InboxClaim;
import io.github.jakartainbox.inbox.failure.Failures;
import jakarta.transaction.UserTransaction;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;

/**
 * A channel's poll thread: opens the Kafka consumer (again after a failure), polls, runs each poll's records
 * completely ({@link GroupTransaction}) before the next poll, seeks back what a halted poll left undone, then commits
 * ({@link KafkaCommits}). A rebalance runs inside a poll: revoked partitions' positions are committed, assigned ones
 * resume where the database's rows say ({@link OffsetRows}).
 */
final class PollLoop implements Runnable {

    private final InboxKafkaChannel channel;
    private final InboxKafkaChannel.Settings settings;
    private final PartitionOffsets offsets = new PartitionOffsets();
    private final LostCommits lost;
    private final OffsetRows rows;
    private final KafkaCommits commits;
    private final GroupTransaction groups;
    private final ClusterTopics topics;
    private final TopicWatch watch;
    private final InboxKafkaChannel.Clients clients;
    private volatile Consumer<Object, Object> consumer;

    PollLoop(InboxKafkaChannel channel, UserTransaction transaction, InboxClaim inbox, KafkaOffsets store,
             InboxKafkaChannel.Clients clients) {
        this.channel = channel;
        this.clients = clients;
        this.settings = channel.settings();
        this.lost = new LostCommits(settings.channel(), this::consumer, offsets,
                partitions -> next(store.read(settings.groupId(), partitions)));
        this.topics = clients.topics().apply(settings.kafka());
        this.rows = new OffsetRows(settings, this::consumer, transaction, store, offsets, lost, topics);
        this.watch = new TopicWatch(settings, this::consumer, topics, offsets,
                settings.offsetsInDatabase() ? rows : null, store);
        this.commits = new KafkaCommits(settings, this::consumer, offsets, rows, channel::running);
        this.groups = new GroupTransaction(channel, transaction, inbox, store, offsets, lost);
    }

    Consumer<Object, Object> consumer() {
        return consumer;
    }

    /** @return see {@link PartitionOffsets#behindSince()} */
    Map<TopicPartition, Long> behindSince() {
        return offsets.behindSince();
    }

    /** @return what the last round of the topic watch found ({@link TopicWatch}) */
    TopicWatch.Seen seen() {
        return watch.seen();
    }

    private static Map<TopicPartition, Long> next(Map<TopicPartition, KafkaOffsets.Row> rows) {
        Map<TopicPartition, Long> next = new java.util.HashMap<>();
        rows.forEach((tp, row) -> next.put(tp, row.next()));
        return next;
    }

    /** Interrupts a poll in progress. */
    void wakeup() {
        Consumer<Object, Object> c = consumer;
        if (c != null) {
            c.wakeup();
        }
    }

    @Override
    public void run() {
        while (channel.running()) {
            try (Consumer<Object, Object> c = clients.consumers().apply(settings.kafka())) {
                consumer = c;
                offsets.newConsumer();
                c.subscribe(settings.topics(),
                        new Rebalance(commits, offsets, settings.offsetsInDatabase() ? rows : null,
                                channel::assigned));
                while (channel.running()) {
                    rows.retryUnresolved();
                    ConsumerRecords<Object, Object> records;
                    try {
                        records = c.poll(settings.pollTimeout());
                    } catch (WakeupException e) {
                        continue; // stopping: the loop condition ends it
                    }
                    if (!records.isEmpty()) {
                        process(records);
                    }
                    if (channel.running()) {
                        commits.progress(false); // when stopping, the synchronous commit below does it
                        if (settings.offsetsInDatabase()) {
                            lost.verify();
                        }
                        watch.run();
                    }
                }
                commits.progress(true);
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
        topics.close();
    }

    /** Processes one poll's records in groups; seeks back the partitions of what was left undone. */
    private void process(ConsumerRecords<Object, Object> records) {
        List<ConsumerRecord<Object, Object>> all = new ArrayList<>(records.count());
        records.forEach(all::add);
        int next = 0;
        groups.newPoll();
        offsets.newPoll();
        while (next < all.size() && channel.running() && !groups.halted()) {
            int size = Math.min(settings.maxGroupSize(), all.size() - next);
            List<ConsumerRecord<Object, Object>> chunk = all.subList(next, next + size);
            next += size == 1 ? (groups.single(chunk.get(0)) ? 1 : 0) : groups.group(chunk);
        }
        if (next < all.size()) {
            resumeAt(all.subList(next, all.size()), offsets.rewound()).forEach(consumer::seek);
        }
    }

    /**
     * @param undone  a poll's records not done, in the poll's order
     * @param rewound partitions already sought further back, to the database's offsets
     * @return per partition, the first record not done: where it resumes, so nothing after it is committed
     */
    static Map<TopicPartition, Long> resumeAt(List<? extends ConsumerRecord<?, ?>> undone,
                                              Set<TopicPartition> rewound) {
        Map<TopicPartition, Long> resume = new LinkedHashMap<>();
        for (ConsumerRecord<?, ?> r : undone) {
            resume.putIfAbsent(new TopicPartition(r.topic(), r.partition()), r.offset());
        }
        resume.keySet().removeAll(rewound);
        return resume;
    }

    /**
     * Commits what is done for revoked partitions, then forgets them: no acknowledgement of theirs stays pending.
     * Forgets lost partitions without a commit; resolves assigned ones against the database's rows.
     *
     * @param rows     {@code null} unless offsets are kept in the database
     * @param assigned what else to run when partitions are assigned (the channel's {@code onAssigned})
     */
    record Rebalance(KafkaCommits commits, PartitionOffsets offsets, OffsetRows rows, Runnable assigned)
            implements ConsumerRebalanceListener {

        /** A rebalance listener with nothing else to run at an assignment. */
        Rebalance(KafkaCommits commits, PartitionOffsets offsets, OffsetRows rows) {
            this(commits, offsets, rows, () -> { });
        }

        @Override
        public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
            commits.revoked(partitions);
        }

        @Override
        public void onPartitionsLost(Collection<TopicPartition> partitions) {
            offsets.forget(partitions);
        }

        @Override
        public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
            if (!partitions.isEmpty()) {
                assigned.run();
            }
            if (rows != null && !partitions.isEmpty()) {
                rows.resolve(partitions);
            }
        }
    }
}
