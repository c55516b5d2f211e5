package io.github.jakartainbox.inbox.kafka;

import io.github.jakartainbox.inbox.failure.Failures;
import io.github.jakartainbox.inbox.logging.InboxLog;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import java.util.logging.Level;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;

/**
 * Every {@value #EVERY_MILLIS} ms, on the poll thread, compares what the cluster says of the channel's topics
 * ({@link ClusterTopics}, one {@code describeTopics} request) with what the channel reads:
 * <ul>
 *   <li>a topic that does not exist is reported once and shown by health until it exists: a topic not seen since
 *       the start is not made yet ({@code INBOX0628I}, then {@code INBOX0629I}), as when the service makes its own
 *       topics just after its channels start; one seen before was deleted ({@code INBOX0618W}, then
 *       {@code INBOX0619I});</li>
 *   <li>an assigned partition whose topic now has another topic id (deleted and made again while the channel read
 *       it) starts over at the new topic's start ({@link OffsetRows#recreated});</li>
 *   <li>partitions the cluster has and this consumer's metadata does not yet know (partitions added, seen by the
 *       consumer at its next metadata refresh, {@code metadata.max.age.ms}) are shown by health with the records
 *       waiting in them;</li>
 *   <li>offset rows of the group that no partition of the channel's topics matches are shown by health
 *       ({@code INBOX0615W} when they change).</li>
 * </ul>
 * The results are read by health from other threads.
 */
final class TopicWatch {

    /** How often the cluster is asked. */
    static final long EVERY_MILLIS = 10_000;

    /**
     * What the last round found.
     *
     * @param missing    the channel's topics the cluster does not have
     * @param unassigned partitions this consumer has not yet seen ({@code <topic>-<n>}), with the records in each
     * @param rowsNotRead offset rows of the group for partitions none of the channel's topics has
     */
    record Seen(List<String> missing, Map<String, Long> unassigned, List<String> rowsNotRead) {
        static final Seen NOTHING = new Seen(List.of(), Map.of(), List.of());
    }

    private final InboxKafkaChannel.Settings settings;
    private final Supplier<? extends Consumer<?, ?>> consumer;
    private final ClusterTopics topics;
    private final PartitionOffsets offsets;
    private final OffsetRows rows;
    private final KafkaOffsets store;
    /** The channel's topics seen in the cluster since the start (poll thread only). */
    private final Set<String> existed = new HashSet<>();
    private long next = System.nanoTime();
    private volatile Seen seen = Seen.NOTHING;

    /**
     * @param rows  {@code null} unless offsets are kept in the database
     * @param store the database's offsets (read only when {@code rows} is not {@code null})
     */
    TopicWatch(InboxKafkaChannel.Settings settings, Supplier<? extends Consumer<?, ?>> consumer, ClusterTopics topics,
               PartitionOffsets offsets, OffsetRows rows, KafkaOffsets store) {
        this.settings = settings;
        this.consumer = consumer;
        this.topics = topics;
        this.offsets = offsets;
        this.rows = rows;
        this.store = store;
    }

    /** @return what the last round found */
    Seen seen() {
        return seen;
    }

    /** A round when one is due; failures wait for the next round. */
    void run() {
        if (System.nanoTime() - next < 0) {
            return;
        }
        next = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(EVERY_MILLIS);
        try {
            round();
        } catch (WakeupException e) {
            throw e;
        } catch (Exception e) {
            InboxLog.LOG.log(Level.FINE, "Channel " + settings.channel() + ": reading its topics from the cluster "
                    + "failed (" + Failures.describe(e) + "); tried again in " + EVERY_MILLIS + " ms", e);
        }
    }

    /** One round now (tests call it directly; {@link #run()} when one is due). */
    void round() throws Exception {
        Consumer<?, ?> c = consumer.get();
        Map<String, ClusterTopics.Topic> described = topics.describe(settings.topics());
        List<String> missing = new ArrayList<>();
        for (String topic : settings.topics()) {
            if (!described.containsKey(topic)) {
                missing.add(topic);
            }
        }
        changes(settings.topics(), described.keySet(), seen.missing(), existed).forEach((topic, change) -> {
            switch (change) {
                case NOT_YET -> KafkaMessage.INBOX0628I.log(settings.channel(), topic);
                case GONE -> KafkaMessage.INBOX0618W.log(settings.channel(), topic);
                case MADE, BACK -> {
                    ClusterTopics.Topic now = described.get(topic);
                    (change == Change.MADE ? KafkaMessage.INBOX0629I : KafkaMessage.INBOX0619I)
                            .log(settings.channel(), topic, now.id(), String.valueOf(now.partitions()));
                }
            }
        });
        settings.topics().stream().filter(described::containsKey).forEach(existed::add);
        if (rows != null) {
            Map<String, List<TopicPartition>> changed = changedUnderfoot(c.assignment(), described);
            changed.forEach((topic, partitions) -> rows.recreated(partitions, described.get(topic).id()));
        }
        Map<String, Long> unassigned = new TreeMap<>();
        List<TopicPartition> unseen = unseen(c, described);
        if (!unseen.isEmpty()) {
            topics.records(unseen).forEach((tp, n) -> unassigned.put(tp.toString(), n));
        }
        List<String> notRead = rows == null ? List.of() : rowsNotRead(described);
        if (!notRead.isEmpty() && !notRead.equals(seen.rowsNotRead())) {
            KafkaMessage.INBOX0615W.log(settings.channel(), settings.groupId(), notRead.toString(),
                    settings.topics().toString());
        }
        seen = new Seen(List.copyOf(missing), Map.copyOf(unassigned), notRead);
    }

    /** What a round has to say of a topic. */
    enum Change {
        /** missing, never seen since the start: not made yet (the service may be making it) */
        NOT_YET,
        /** missing, seen before: deleted */
        GONE,
        /** reported NOT_YET, now there */
        MADE,
        /** reported GONE, there again */
        BACK
    }

    /**
     * @param topics  the channel's topics
     * @param present the topics the cluster has now
     * @param missing the topics missing at the last round (each already reported)
     * @param existed the topics seen in the cluster at any round before
     * @return the topics whose state changed since the last round, with what to say of each; no entry for a topic
     *         still missing or still there
     */
    static Map<String, Change> changes(List<String> topics, Set<String> present, List<String> missing,
                                       Set<String> existed) {
        Map<String, Change> changes = new LinkedHashMap<>();
        for (String topic : topics) {
            boolean seenBefore = existed.contains(topic);
            if (!present.contains(topic) && !missing.contains(topic)) {
                changes.put(topic, seenBefore ? Change.GONE : Change.NOT_YET);
            } else if (present.contains(topic) && missing.contains(topic)) {
                changes.put(topic, seenBefore ? Change.BACK : Change.MADE);
            }
        }
        return changes;
    }

    /**
     * @return per topic, the assigned partitions resolved against another topic id than the cluster's now
     */
    Map<String, List<TopicPartition>> changedUnderfoot(Collection<TopicPartition> assigned,
                                                       Map<String, ClusterTopics.Topic> described) {
        Map<String, List<TopicPartition>> changed = new HashMap<>();
        for (TopicPartition tp : assigned) {
            ClusterTopics.Topic now = described.get(tp.topic());
            String resolved = offsets.topicId(tp.topic());
            if (now != null && resolved != null && !resolved.equals(now.id()) && !offsets.isUnresolved(tp)) {
                changed.computeIfAbsent(tp.topic(), t -> new ArrayList<>()).add(tp);
            }
        }
        return changed;
    }

    /** @return the partitions the cluster has that the consumer's metadata does not yet know */
    static List<TopicPartition> unseen(Consumer<?, ?> c, Map<String, ClusterTopics.Topic> described) {
        Set<TopicPartition> assigned = c.assignment();
        List<TopicPartition> unseen = new ArrayList<>();
        described.forEach((topic, t) -> {
            // the consumer's cached metadata (no request while the topic is in it)
            List<PartitionInfo> known = c.partitionsFor(topic);
            Set<Integer> seenPartitions = new LinkedHashSet<>();
            if (known != null) {
                known.forEach(p -> seenPartitions.add(p.partition()));
            }
            for (int p = 0; p < t.partitions(); p++) {
                TopicPartition tp = new TopicPartition(topic, p);
                if (!seenPartitions.contains(p) && !assigned.contains(tp)) {
                    unseen.add(tp);
                }
            }
        });
        return unseen;
    }

    private List<String> rowsNotRead(Map<String, ClusterTopics.Topic> described) throws Exception {
        List<String> notRead = new ArrayList<>();
        for (TopicPartition tp : store.readAll(settings.groupId()).keySet()) {
            ClusterTopics.Topic t = described.get(tp.topic());
            if (!settings.topics().contains(tp.topic()) || t == null || tp.partition() >= t.partitions()) {
                notRead.add(tp.toString());
            }
        }
        notRead.sort(null);
        return List.copyOf(notRead);
    }
}
