package io.github.jakartainbox.faults;

import io.github.jakartainbox.testing.Commands;
import io.github.jakartainbox.testing.TestFiles;
import io.github.jakartainbox.testing.Waiting;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.atomic.AtomicReference;
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
 *
 * <p>{@link #cluster()}: scenario 16's three-broker KRaft cluster ({@code bin/kafka-broker cluster}) on 127.0.0.1:
 * {@value #CLUSTER_PORT} to {@value #CLUSTER_PORT} + 2 (controllers from {@value #CLUSTER_CONTROLLER_PORT}), home
 * {@code ~/.cache/jakarta-inbox/kafka-faults-cluster}, topics with replication factor 3 and min.insync.replicas=2.
 */
final class PrivateKafka {

    static final int PORT = 19092;
    static final int CONTROLLER_PORT = 19093;
    static final String BOOTSTRAP = "127.0.0.1:" + PORT;
    /**
     * The cluster's brokers listen on 19192-19194, its controllers on 19292-19294: below Linux's ephemeral range
     * (32768-60999), where a client's outgoing connection can hold a port (39092 and 39194 were taken so, by clients of
     * another broker, and the cluster's nodes failed to bind).
     */
    static final int CLUSTER_PORT = 19192;
    static final int CLUSTER_CONTROLLER_PORT = 19292;
    private static final Duration TIMEOUT = Duration.ofMinutes(3);

    private final Path project = Path.of("").toAbsolutePath();
    private final Path home;
    private final Map<String, String> environment;
    /** Whether this is the three-broker cluster. */
    private final boolean cluster;
    /** The bootstrap servers of this broker or cluster. */
    final String bootstrap;

    /** The suite's single broker. */
    PrivateKafka() {
        this.cluster = false;
        this.home = Path.of(System.getProperty("user.home"), ".cache/jakarta-inbox/kafka-faults");
        this.environment = Map.of("KAFKA_HOME_DIR", home.toString(), "KAFKA_PORT", String.valueOf(PORT),
                "KAFKA_CONTROLLER_PORT", String.valueOf(CONTROLLER_PORT));
        this.bootstrap = BOOTSTRAP;
    }

    private PrivateKafka(Path home) {
        this.cluster = true;
        this.home = home;
        this.environment = Map.of("KAFKA_CLUSTER_HOME_DIR", home.toString(),
                "KAFKA_CLUSTER_PORT", String.valueOf(CLUSTER_PORT),
                "KAFKA_CLUSTER_CONTROLLER_PORT", String.valueOf(CLUSTER_CONTROLLER_PORT));
        this.bootstrap = IntStream.range(0, 3).mapToObj(i -> "127.0.0.1:" + (CLUSTER_PORT + i))
                .collect(Collectors.joining(","));
    }

    /** @return the suite's three-broker cluster (not started) */
    static PrivateKafka cluster() {
        return new PrivateKafka(Path.of(System.getProperty("user.home"), ".cache/jakarta-inbox/kafka-faults-cluster"));
    }

    /** Stops a broker a crashed earlier run left, empties the data directory and starts the broker. */
    void start() throws IOException, InterruptedException {
        if (cluster) {
            script("cluster", "stop");
            TestFiles.deleteTree(home); // data and cluster id: a new cluster
            String output = script("cluster", "start");
            if (!output.contains("bootstrap")) {
                throw new IllegalStateException("bin/kafka-broker cluster start: " + output);
            }
            return;
        }
        script("stop");
        TestFiles.deleteTree(home.resolve("data"));
        up();
    }

    /** Stops the broker, or every node of the cluster (SIGTERM, waits for it to exit). */
    void stop() throws IOException, InterruptedException {
        script(cluster ? new String[] {"cluster", "stop"} : new String[] {"stop"});
    }

    /**
     * Kills one node of the cluster with SIGKILL.
     *
     * @param node its {@code node.id}, 1 to 3
     */
    void killNode(int node) throws IOException, InterruptedException {
        script("cluster", "kill", String.valueOf(node));
    }

    /**
     * Starts one node of the cluster again, on its data.
     *
     * @param node its {@code node.id}, 1 to 3
     */
    void startNode(int node) throws IOException, InterruptedException {
        script("cluster", "start", String.valueOf(node));
    }

    /** @return the {@code node.id} of the partition's leader now */
    int leader(String topic, int partition) throws ExecutionException, InterruptedException {
        try (Admin admin = admin()) {
            return admin.describeTopics(List.of(topic)).allTopicNames().get().get(topic).partitions().get(partition)
                    .leader().id();
        }
    }

    /** @return the partition's in-sync replicas now, as node ids */
    List<Integer> inSyncReplicas(String topic, int partition) throws ExecutionException, InterruptedException {
        try (Admin admin = admin()) {
            return admin.describeTopics(List.of(topic)).allTopicNames().get().get(topic).partitions().get(partition)
                    .isr().stream().map(n -> n.id()).toList();
        }
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

    private String script(String... action) throws IOException, InterruptedException {
        Path log = Files.createTempFile("kafka-broker", ".log");
        try {
            Files.createDirectories(home);
            List<String> command = new ArrayList<>(List.of(project.resolve("bin/kafka-broker").toString()));
            command.addAll(List.of(action));
            Commands.check(command, project, environment, log, TIMEOUT);
            return Files.readString(log);
        } finally {
            Files.delete(log);
        }
    }

    /** Creates a topic with {@code partitions} partitions. */
    void createTopic(String topic, int partitions) throws ExecutionException, InterruptedException {
        try (Admin admin = admin()) {
            admin.createTopics(List.of(new NewTopic(topic, partitions, (short) (cluster ? 3 : 1)))).all().get();
        }
    }

    /**
     * Deletes the topic and waits until the cluster no longer has it under that id: no such topic, or one made again
     * at once (a consumer's metadata request with {@code allow.auto.create.topics}, a producer's record).
     */
    void deleteTopic(String topic) throws ExecutionException, InterruptedException {
        try (Admin admin = admin()) {
            String id = topicId(admin, topic);
            admin.deleteTopics(List.of(topic)).all().get();
            Waiting.await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(100))
                    .until(() -> !id.equals(topicId(admin, topic)));
        }
    }

    /**
     * Makes the topic with {@code partitions} partitions; when it was made meanwhile with fewer (by a consumer's or
     * producer's metadata request, with the broker's default), raises it to {@code partitions}.
     *
     * @return the partitions it had before, 0 when it did not exist
     */
    int makeOrWiden(String topic, int partitions) throws ExecutionException, InterruptedException {
        try (Admin admin = admin()) {
            try {
                admin.createTopics(List.of(new NewTopic(topic, partitions, (short) (cluster ? 3 : 1)))).all().get();
                return 0;
            } catch (ExecutionException e) {
                if (!(e.getCause() instanceof org.apache.kafka.common.errors.TopicExistsException)) {
                    throw e;
                }
            }
            int had = partitions(admin, topic);
            if (had < partitions) {
                admin.createPartitions(Map.of(topic, org.apache.kafka.clients.admin.NewPartitions
                        .increaseTo(partitions))).all().get();
            }
            return had;
        }
    }

    /** @return the topic's partition count, 0 when it does not exist */
    int partitions(String topic) throws ExecutionException, InterruptedException {
        try (Admin admin = admin()) {
            return partitions(admin, topic);
        }
    }

    private static int partitions(Admin admin, String topic) throws InterruptedException {
        try {
            return admin.describeTopics(List.of(topic)).allTopicNames().get().get(topic).partitions().size();
        } catch (ExecutionException e) {
            return 0;
        }
    }

    /** @return the topic's Kafka topic id, {@code null} when it does not exist */
    private static String topicId(Admin admin, String topic) throws InterruptedException {
        try {
            return admin.describeTopics(List.of(topic)).allTopicNames().get().get(topic).topicId().toString();
        } catch (ExecutionException e) {
            return null;
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
        readAll(topic, r -> {
            Header h = r.headers().lastHeader("event_id");
            byKey.computeIfAbsent(r.key(), k -> new ArrayList<>())
                    .add(h == null ? null : new String(h.value(), StandardCharsets.UTF_8));
        });
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
     * @return records of the topic that the share group has not brought to a final state (accepted, rejected or
     *         archived), summed over the partitions: the broker's share-partition lag, or all of the topic when the
     *         group has no state for it yet
     */
    long shareLag(String group, String topic) throws ExecutionException, InterruptedException {
        try (Admin admin = admin()) {
            Map<TopicPartition, org.apache.kafka.clients.admin.SharePartitionOffsetInfo> offsets = admin
                    .listShareGroupOffsets(Map.of(group, new org.apache.kafka.clients.admin.ListShareGroupOffsetsSpec()))
                    .partitionsToOffsetInfo(group).get();
            return endOffsets(admin, topic).entrySet().stream().mapToLong(e -> {
                var info = offsets.get(e.getKey());
                return info == null ? e.getValue() : info.lag().orElse(e.getValue() - info.startOffset());
            }).sum();
        }
    }

    /**
     * Sets share groups' own configuration (group config, e.g. {@code share.record.lock.duration.ms}), before or
     * while their consumers run.
     */
    void alterGroupConfig(String group, Map<String, String> config) throws ExecutionException, InterruptedException {
        try (Admin admin = admin()) {
            List<org.apache.kafka.clients.admin.AlterConfigOp> ops = config.entrySet().stream()
                    .map(e -> new org.apache.kafka.clients.admin.AlterConfigOp(
                            new org.apache.kafka.clients.admin.ConfigEntry(e.getKey(), e.getValue()),
                            org.apache.kafka.clients.admin.AlterConfigOp.OpType.SET)).toList();
            admin.incrementalAlterConfigs(Map.of(new org.apache.kafka.common.config.ConfigResource(
                    org.apache.kafka.common.config.ConfigResource.Type.GROUP, group), ops)).all().get();
        }
    }

    /**
     * Reads a whole topic from its beginning to the end offsets of now.
     *
     * @return every record's value, in offset order per partition
     */
    List<String> values(String topic) throws ExecutionException, InterruptedException {
        List<String> values = new ArrayList<>();
        readAll(topic, r -> values.add(r.value()));
        return values;
    }

    /** Hands each committed record of the topic, from its beginning to the end offsets of now, to {@code each}. */
    private void readAll(String topic, java.util.function.Consumer<ConsumerRecord<String, String>> each)
            throws ExecutionException, InterruptedException {
        Properties props = new Properties();
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
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
                    if (r.offset() < end.get(new TopicPartition(topic, r.partition()))) {
                        each.accept(r);
                    }
                }
            }
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
            AtomicReference<ExecutionException> refused = new AtomicReference<>();
            boolean rewound = Waiting.reached(Waiting.await().atMost(Duration.ofMinutes(1))
                    .pollInterval(Duration.ofMillis(500)), () -> {
                        try {
                            admin.alterConsumerGroupOffsets(group, zero).all().get();
                            return true;
                        } catch (ExecutionException e) {
                            refused.set(e); // the group still has members (a server stopping leaves it)
                            return false;
                        }
                    });
            if (!rewound) {
                throw refused.get();
            }
            return before;
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

    private Admin admin() {
        Properties props = new Properties();
        props.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        props.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, "30000");
        return Admin.create(props);
    }
}
