package io.github.jakartainbox.faults;

import io.github.jakartainbox.it.TestFiles;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.StringDeserializer;

/**
 * The fault suite's own Kafka broker, started and stopped with {@code bin/kafka-broker} on 127.0.0.1:{@value
 * #PORT} (controller {@value #CONTROLLER_PORT}), home {@code ~/.cache/jakarta-inbox/kafka-faults}, so that
 * stopping it never disturbs the shared broker on 9092. Each suite run starts it on an empty data directory (the
 * broker jars stay). Also the Admin API calls of the suite: topics, consumer-group offsets, lag.
 */
final class PrivateKafka {

    static final int PORT = 19092;
    static final int CONTROLLER_PORT = 19093;
    static final String BOOTSTRAP = "127.0.0.1:" + PORT;
    private static final Duration TIMEOUT = Duration.ofMinutes(3);

    private final Path project = Path.of("").toAbsolutePath();
    private final Path home = Path.of(System.getProperty("user.home"), ".cache/jakarta-inbox/kafka-faults");
    private final Map<String, String> environment = Map.of("KAFKA_HOME_DIR", home.toString(),
            "KAFKA_PORT", String.valueOf(PORT), "KAFKA_CONTROLLER_PORT", String.valueOf(CONTROLLER_PORT));

    /** Stops a broker a crashed earlier run left, empties the data directory and starts the broker. */
    void start() throws IOException, InterruptedException {
        script("stop");
        TestFiles.deleteTree(home.resolve("data"));
        up();
    }

    /** Stops the broker (SIGTERM, waits for it to exit). */
    void stop() throws IOException, InterruptedException {
        script("stop");
    }

    /** Stops the broker and starts it again after {@code down}, on the same data. */
    void restart(Duration down) throws IOException, InterruptedException {
        script("stop");
        Thread.sleep(down.toMillis());
        up();
    }

    private void up() throws IOException, InterruptedException {
        String output = script("start");
        if (!output.contains("started on")) {
            throw new IllegalStateException("bin/kafka-broker did not start a broker of its own on port " + PORT
                    + " (another process listens there?): " + output);
        }
    }

    private String script(String action) throws IOException, InterruptedException {
        Path log = Files.createTempFile("kafka-broker", ".log");
        try {
            Files.createDirectories(home);
            Commands.check(List.of(project.resolve("bin/kafka-broker").toString(), action), project, environment,
                    log, TIMEOUT);
            return Files.readString(log);
        } finally {
            Files.delete(log);
        }
    }

    /** Creates a topic with {@code partitions} partitions. */
    void createTopic(String topic, int partitions) throws ExecutionException, InterruptedException {
        try (Admin admin = admin()) {
            admin.createTopics(List.of(new NewTopic(topic, partitions, (short) 1))).all().get();
        }
    }

    /** @return the sum of the topic's end offsets: how many records it holds */
    long records(String topic) throws ExecutionException, InterruptedException {
        try (Admin admin = admin()) {
            return endOffsets(admin, topic).values().stream().mapToLong(Long::longValue).sum();
        }
    }

    /**
     * Reads a whole topic from its beginning to the end offsets of now.
     *
     * @return the {@code event_id} header of every record (null when it has none), by record key, in offset order
     *         per partition; a key published twice appears with two entries
     */
    Map<String, List<String>> eventIdsByKey(String topic) throws ExecutionException, InterruptedException {
        Map<String, List<String>> byKey = new HashMap<>();
        Properties props = new Properties();
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, BOOTSTRAP);
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        Map<TopicPartition, Long> end;
        try (Admin admin = admin()) {
            end = endOffsets(admin, topic);
        }
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(props, new StringDeserializer(),
                new StringDeserializer())) {
            List<TopicPartition> partitions = new ArrayList<>(end.keySet());
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            long deadline = System.nanoTime() + TIMEOUT.toNanos();
            while (partitions.stream().anyMatch(tp -> consumer.position(tp) < end.get(tp))) {
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("topic " + topic + " not read to its end within " + TIMEOUT);
                }
                for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(500))) {
                    if (r.offset() >= end.get(new TopicPartition(topic, r.partition()))) {
                        continue;
                    }
                    Header h = r.headers().lastHeader("event_id");
                    byKey.computeIfAbsent(r.key(), k -> new ArrayList<>())
                            .add(h == null ? null : new String(h.value(), StandardCharsets.UTF_8));
                }
            }
        }
        return byKey;
    }

    /** @return records of the topic whose offset the group has not committed yet, summed over the partitions */
    long lag(String group, String topic) throws ExecutionException, InterruptedException {
        try (Admin admin = admin()) {
            Map<TopicPartition, OffsetAndMetadata> committed = committed(admin, group);
            return endOffsets(admin, topic).entrySet().stream().mapToLong(e -> {
                OffsetAndMetadata c = committed.get(e.getKey());
                return e.getValue() - (c == null ? 0 : c.offset());
            }).sum();
        }
    }

    /**
     * An operator's replay: sets the group's committed offsets of every partition of the topic to 0. The group
     * must have no members (its servers stopped); tried again for up to a minute while it still has.
     *
     * @return the sum of the offsets committed before: how many records the group will receive a second time
     */
    long rewind(String group, String topic) throws ExecutionException, InterruptedException {
        try (Admin admin = admin()) {
            long before = committed(admin, group).values().stream().mapToLong(OffsetAndMetadata::offset).sum();
            Map<TopicPartition, OffsetAndMetadata> zero = endOffsets(admin, topic).keySet().stream()
                    .collect(Collectors.toMap(p -> p, p -> new OffsetAndMetadata(0)));
            long deadline = System.nanoTime() + Duration.ofMinutes(1).toNanos();
            while (true) {
                try {
                    admin.alterConsumerGroupOffsets(group, zero).all().get();
                    return before;
                } catch (ExecutionException e) {
                    if (System.nanoTime() > deadline) {
                        throw e;
                    }
                    Thread.sleep(500); // the group still has members (a server stopping leaves it)
                }
            }
        }
    }

    private static Map<TopicPartition, OffsetAndMetadata> committed(Admin admin, String group)
            throws ExecutionException, InterruptedException {
        Map<TopicPartition, OffsetAndMetadata> offsets = new HashMap<>(
                admin.listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata().get());
        offsets.values().removeIf(o -> o == null);
        return offsets;
    }

    private static Map<TopicPartition, Long> endOffsets(Admin admin, String topic)
            throws ExecutionException, InterruptedException {
        int partitions = admin.describeTopics(List.of(topic)).allTopicNames().get().get(topic).partitions().size();
        Map<TopicPartition, OffsetSpec> latest = IntStream.range(0, partitions).boxed()
                .collect(Collectors.toMap(p -> new TopicPartition(topic, p), p -> OffsetSpec.latest()));
        return admin.listOffsets(latest).all().get().entrySet().stream()
                .collect(Collectors.toMap(Map.Entry::getKey, e -> e.getValue().offset()));
    }

    private static Admin admin() {
        Properties props = new Properties();
        props.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, BOOTSTRAP);
        props.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, "30000");
        return Admin.create(props);
    }
}
