package io.github.jakartainbox.inbox.kafka;

import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import org.apache.kafka.clients.consumer.MockConsumer;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

/**
 * The topic watch's decisions on Kafka's {@link MockConsumer}: partitions of a topic made again under an assigned
 * consumer, partitions the consumer has not seen yet; and the limit on the Kafka client's repeated warnings.
 */
class TopicWatchTest {

    private static final String TOPIC = "orders";

    private static TopicWatch watch(PartitionOffsets offsets) {
        InboxKafkaChannel.Settings settings = new InboxKafkaChannel.Settings("orders-billing", new Properties(),
                List.of(TOPIC), "billing", 100, Duration.ofSeconds(30), Duration.ofMillis(500),
                Duration.ofMinutes(2), true, true);
        return new TopicWatch(settings, () -> null, null, offsets, null, null);
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
