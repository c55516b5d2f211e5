package io.github.jakartainbox.inbox.kafka;

import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.jakartainbox.inbox.logging.InboxLog;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.logging.Handler;
import java.util.Properties;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import org.apache.kafka.clients.consumer.MockConsumer;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

/**
 * The topic watch's decisions on Kafka's {@link MockConsumer}: partitions of a topic made again under an assigned
 * consumer, partitions the consumer has not seen yet, what is logged of a topic missing (not made yet, or deleted);
 * and the limit on the Kafka client's repeated warnings.
 */
class TopicWatchTest {

    private static final String TOPIC = "orders";

    private static TopicWatch watch(PartitionOffsets offsets) {
        return watch(offsets, null);
    }

    /** A watch over a cluster that has the topics in {@code cluster} (read at each round). */
    private static TopicWatch watch(PartitionOffsets offsets, Map<String, ClusterTopics.Topic> cluster) {
        ClusterTopics topics = cluster == null ? null : new ClusterTopics() {
            @Override public Map<String, Topic> describe(Collection<String> names) {
                Map<String, Topic> found = new HashMap<>(cluster);
                found.keySet().retainAll(names);
                return found;
            }
            @Override public Map<TopicPartition, Long> records(Collection<TopicPartition> partitions) {
                return Map.of();
            }
            @Override public void close() { }
        };
        MockConsumer<String, String> consumer = new MockConsumer<>("earliest");
        InboxKafkaChannel.Settings settings = new InboxKafkaChannel.Settings("orders-billing", new Properties(),
                List.of(TOPIC), "billing", 100, Duration.ofSeconds(30), Duration.ofMillis(500),
                Duration.ofMinutes(2), true, true);
        return new TopicWatch(settings, () -> consumer, topics, offsets, null, null);
    }

    @Test
    void assignedPartitionsResolvedAgainstAnotherIdAreFound() {
        PartitionOffsets offsets = new PartitionOffsets();
        offsets.topicId(TOPIC, "old-id");
        TopicPartition p0 = new TopicPartition(TOPIC, 0);
        TopicPartition p1 = new TopicPartition(TOPIC, 1);
        Map<String, List<TopicPartition>> changed = watch(offsets).changedUnderfoot(List.of(p0, p1),
                Map.of(TOPIC, new ClusterTopics.Topic("new-id", 8)));
        assertEquals(Map.of(TOPIC, List.of(p0, p1)), changed);
    }

    @Test
    void theSameIdOrNoTopicChangesNothing() {
        PartitionOffsets offsets = new PartitionOffsets();
        offsets.topicId(TOPIC, "id");
        TopicPartition p0 = new TopicPartition(TOPIC, 0);
        assertAll(() -> assertEquals(Map.of(), watch(offsets).changedUnderfoot(List.of(p0),
                        Map.of(TOPIC, new ClusterTopics.Topic("id", 8)))),
                () -> assertEquals(Map.of(), watch(offsets).changedUnderfoot(List.of(p0), Map.of()),
                        "a deleted topic is reported as missing, not made again"));
    }

    @Test
    void partitionsAddedAndNotYetInTheConsumersMetadataAreUnseen() {
        MockConsumer<String, String> consumer = new MockConsumer<>("earliest");
        consumer.updatePartitions(TOPIC, List.of(info(0), info(1)));
        consumer.assign(List.of(new TopicPartition(TOPIC, 0)));
        List<TopicPartition> unseen = TopicWatch.unseen(consumer, Map.of(TOPIC, new ClusterTopics.Topic("id", 4)));
        assertEquals(List.of(new TopicPartition(TOPIC, 2), new TopicPartition(TOPIC, 3)), unseen,
                "partition 1 is known (another server may read it); 2 and 3 were added since the last refresh");
    }

    @Test
    void aTopicNotSeenSinceTheStartIsNotMadeYetAndOneSeenBeforeWasDeleted() {
        Set<String> none = Set.of();
        assertAll(
                () -> assertEquals(Map.of(TOPIC, TopicWatch.Change.NOT_YET),
                        TopicWatch.changes(List.of(TOPIC), none, List.of(), none), "first round, no topic yet"),
                () -> assertEquals(Map.of(TOPIC, TopicWatch.Change.GONE),
                        TopicWatch.changes(List.of(TOPIC), none, List.of(), Set.of(TOPIC)), "seen, now gone"),
                () -> assertEquals(Map.of(TOPIC, TopicWatch.Change.MADE),
                        TopicWatch.changes(List.of(TOPIC), Set.of(TOPIC), List.of(TOPIC), none)),
                () -> assertEquals(Map.of(TOPIC, TopicWatch.Change.BACK),
                        TopicWatch.changes(List.of(TOPIC), Set.of(TOPIC), List.of(TOPIC), Set.of(TOPIC))),
                () -> assertEquals(Map.of(), TopicWatch.changes(List.of(TOPIC), none, List.of(TOPIC), none),
                        "still missing: said once"),
                () -> assertEquals(Map.of(), TopicWatch.changes(List.of(TOPIC), Set.of(TOPIC), List.of(),
                        Set.of(TOPIC)), "still there"));
    }

    @Test
    void aTopicMadeAfterTheStartIsInfoAndOnlyItsDeletionLaterWarns() throws Exception {
        Map<String, ClusterTopics.Topic> cluster = new HashMap<>();
        TopicWatch watch = watch(new PartitionOffsets(), cluster);
        List<String> logged = new ArrayList<>();
        Handler handler = new Handler() {
            @Override public void publish(LogRecord r) {
                logged.add(r.getLevel() + " " + r.getMessage().substring(0, 10));
            }
            @Override public void flush() { }
            @Override public void close() { }
        };
        InboxLog.LOG.addHandler(handler);
        try {
            watch.round();                                          // the service has not made it yet
            watch.round();
            cluster.put(TOPIC, new ClusterTopics.Topic("id-1", 3)); // it makes it
            watch.round();
            cluster.remove(TOPIC);                                  // someone deletes it
            watch.round();
            cluster.put(TOPIC, new ClusterTopics.Topic("id-2", 3)); // and makes it again
            watch.round();
        } finally {
            InboxLog.LOG.removeHandler(handler);
        }
        assertEquals(List.of("INFO INBOX0628I", "INFO INBOX0629I", "WARNING INBOX0618W", "INFO INBOX0619I"), logged);
    }

    @Test
    void aRepeatedWarningIsLetThroughOncePerWindowAndSaysHowManyWereHeldBack() {
        KafkaClientLogLimit limit = new KafkaClientLogLimit(Duration.ofSeconds(60));
        long t = 1_000_000_000L;
        assertTrue(limit.let(warning("metadata issue with correlation id 17 : {orders=UNKNOWN}"), t));
        assertFalse(limit.let(warning("metadata issue with correlation id 18 : {orders=UNKNOWN}"), t + 1));
        assertFalse(limit.let(warning("metadata issue with correlation id 19 : {orders=UNKNOWN}"), t + 2));
        assertTrue(limit.let(warning("another warning"), t + 3), "another message is not held back");
        LogRecord later = warning("metadata issue with correlation id 900 : {orders=UNKNOWN}");
        assertTrue(limit.let(later, t + Duration.ofSeconds(61).toNanos()));
        assertTrue(later.getMessage().endsWith("(2 like it held back in the last 61 s)"), later.getMessage());
    }

    @Test
    void recordsBelowWarningPass() {
        KafkaClientLogLimit limit = new KafkaClientLogLimit(Duration.ofSeconds(60));
        LogRecord info = new LogRecord(Level.INFO, "same");
        assertTrue(limit.isLoggable(info));
        assertTrue(limit.isLoggable(info));
    }

    private static LogRecord warning(String message) {
        LogRecord record = new LogRecord(Level.WARNING, message);
        record.setLoggerName("org.apache.kafka.clients.NetworkClient");
        return record;
    }

    private static PartitionInfo info(int partition) {
        return new PartitionInfo(TOPIC, partition, null, null, null);
    }
}
