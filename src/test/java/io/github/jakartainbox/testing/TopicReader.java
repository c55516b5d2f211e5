package io.github.jakartainbox.testing;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.function.Predicate;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.StringDeserializer;

/** Reads a topic from its beginning to its current end, without a consumer group (tests). */
public final class TopicReader {

    /** A record as read. */
    public record Rec(String key, String value, String eventIdHeader, int partition, long offset) {
    }

    private TopicReader() {
    }

    /**
     * @param topic  the topic
     * @param filter which records to keep
     * @return the kept records, in partition and offset order
     */
    public static List<Rec> read(String topic, Predicate<Rec> filter) {
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, TestEnv.BOOTSTRAP);
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        List<Rec> kept = new ArrayList<>();
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(p, new StringDeserializer(),
                new StringDeserializer())) {
            List<TopicPartition> partitions = consumer.partitionsFor(topic, Duration.ofSeconds(30)).stream()
                    .map(i -> new TopicPartition(topic, i.partition())).toList();
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            Map<TopicPartition, Long> end = consumer.endOffsets(partitions);
            long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
            while (partitions.stream().anyMatch(tp -> consumer.position(tp) < end.get(tp)) && System.nanoTime() < deadline) {
                for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(500))) {
                    Header h = r.headers().lastHeader("event_id");
                    Rec rec = new Rec(r.key(), r.value(), h == null ? null : new String(h.value(), StandardCharsets.UTF_8),
                            r.partition(), r.offset());
                    if (filter.test(rec)) {
                        kept.add(rec);
                    }
                }
            }
        }
        return kept;
    }
}
