package io.github.jakartainbox.inbox.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.github.jakartainbox.billing.SampleEvents;
import io.github.jakartainbox.billing.SampleEvents.Event;
import io.github.jakartainbox.testing.Db;
import io.github.jakartainbox.testing.Deployments;
import io.github.jakartainbox.testing.TestEnv;
import io.github.jakartainbox.testing.Waiting;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewPartitions;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.container.test.api.RunAsClient;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.shrinkwrap.api.ShrinkWrap;
import org.jboss.shrinkwrap.api.asset.EmptyAsset;
import org.jboss.shrinkwrap.api.asset.StringAsset;
import org.jboss.shrinkwrap.api.spec.JavaArchive;
import org.jboss.shrinkwrap.api.spec.WebArchive;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Issue 38, item 2, on real Liberty, Kafka and PostgreSQL: a topic deleted and made again under the same name is
 * another topic, and the {@code inbox-kafka} channel's offset rows of the old one (offsets in the database) must not
 * be taken as positions in it. Two ways the reported losses came: the topic made again with 8 partitions and records
 * written to it before the channel is assigned its partitions, past the old rows; and the topic made again with 1
 * partition by a producer's first record, then widened to 8, with records on a new partition before the channel sees
 * it. Each new record must be processed. The channels' {@code metadata.max.age.ms} is 5 s so that the partitions
 * appear within the test's wait.
 */
@ExtendWith(ArquillianExtension.class)
@RunAsClient
class RecreatedTopicIT {

    private static final Duration WAIT = Duration.ofSeconds(120);
    private static final String RUN = UUID.randomUUID().toString().substring(0, 8);
    private static final String RECREATED = "it.topic-recreated." + RUN;
    private static final String WIDENED = "it.topic-widened." + RUN;

    private final Db db = Db.overJdbc();

    @Deployment
    static WebArchive deployment() throws Exception {
        StringBuilder config = new StringBuilder();
        for (String[] channel : new String[][] {{"probe-topic-recreated", RECREATED}, {"probe-topic-widened", WIDENED}}) {
            String p = "mp.messaging.incoming." + channel[0] + ".";
            config.append(p).append("connector=inbox-kafka\n")
                    .append(p).append("topic=").append(channel[1]).append('\n')
                    .append(p).append("group.id=it-").append(channel[0]).append('-').append(RUN).append('\n')
                    .append(p).append("bootstrap.servers=").append(TestEnv.BOOTSTRAP).append('\n')
                    .append(p).append("key.deserializer=").append(StringDeserializer.class.getName()).append('\n')
                    .append(p).append("value.deserializer=").append(StringDeserializer.class.getName()).append('\n')
                    .append(p).append("metadata.max.age.ms=5000\n")
                    .append(p).append("auto.offset.reset=earliest\n");
        }
        try (Admin admin = admin()) {
            admin.createTopics(List.of(new NewTopic(RECREATED, 3, (short) 1), new NewTopic(WIDENED, 8, (short) 1)))
                    .all().get();
        }
        try (Connection c = DriverManager.getConnection("jdbc:postgresql://127.0.0.1:5432/"
                + System.getenv().getOrDefault("DB_NAME", "billing"), "postgres", "");
             Statement s = c.createStatement()) {
            s.execute("CREATE TABLE IF NOT EXISTS topic_probe (consumer text NOT NULL, order_id text NOT NULL)");
        }
        JavaArchive probes = ShrinkWrap.create(JavaArchive.class, "topic-probes.jar")
                .addClass(TopicProbeConsumers.class)
                .addAsManifestResource(EmptyAsset.INSTANCE, "beans.xml")
                .addAsManifestResource(new StringAsset(config.toString()), "microprofile-config.properties");
        return Deployments.billingWithProbes().addAsLibrary(probes);
    }

    @Test
    void aTopicMadeAgainWithEightPartitionsLosesNoRecordWrittenBeforeTheAssignment() throws Exception {
        String consumer = "probe-topic-recreated";
        // the old topic: 20 records on each of its 3 partitions, so each row reaches 20
        send(RECREATED, 0, 3, 20, "old");
        awaitProcessed(consumer, "old", 60);
        awaitRows("it-" + consumer + "-" + RUN, RECREATED, 3, 20);
        deleteAndMake(RECREATED, 8);
        // before the channel is assigned the new partitions: 40 on each of 0..2 (past the old rows), 10 on 3..7
        send(RECREATED, 0, 3, 40, "new");
        send(RECREATED, 3, 8, 10, "more");
        assertEquals(120, awaitProcessed(consumer, "new", 120), "records of the new topic's partitions 0..2 "
                + "processed: offsets below the old topic's rows must not be skipped");
        assertEquals(50, awaitProcessed(consumer, "more", 50));
    }

    @Test
    void aTopicAutoCreatedWithOnePartitionAndWidenedLosesNothingOnItsNewPartitions() throws Exception {
        String consumer = "probe-topic-widened";
        // the old topic: 30 records on partition 1, so its row reaches 30
        send(WIDENED, 1, 2, 30, "old");
        awaitProcessed(consumer, "old", 30);
        awaitRows("it-" + consumer + "-" + RUN, WIDENED, 1, 30);
        try (Admin admin = admin()) {
            String old = id(admin, WIDENED);
            admin.deleteTopics(List.of(WIDENED)).all().get();
            awaitGone(admin, WIDENED, old);
        }
        // a producer's record makes the broker create the topic again, with its default of 1 partition
        send(WIDENED, -1, 0, 1, "first");
        awaitProcessed(consumer, "first", 1);
        try (Admin admin = admin()) {
            admin.createPartitions(Map.of(WIDENED, NewPartitions.increaseTo(8))).all().get();
        }
        send(WIDENED, 1, 2, 60, "widened");
        assertEquals(60, awaitProcessed(consumer, "widened", 60), "records of the new partition 1 processed: "
                + "offsets below the old topic's row must not be skipped");
    }

    /**
     * Sends {@code perPartition} events to each partition from {@code from} to {@code to} (exclusive); {@code from}
     * -1: one event without a partition, to the topic's default (auto-creation). A producer of its own each time: an
     * idempotent producer's sequence numbers of a deleted topic's partition are refused by the new one.
     */
    private static void send(String topic, int from, int to, int perPartition, String label) throws Exception {
        try (KafkaProducer<String, String> producer = SampleEvents.producer(TestEnv.BOOTSTRAP)) {
            send(producer, topic, from, to, perPartition, label);
        }
    }

    private static void send(KafkaProducer<String, String> producer, String topic, int from, int to,
                             int perPartition, String label) throws Exception {
        List<java.util.concurrent.Future<?>> sent = new ArrayList<>();
        if (from < 0) {
            Event e = SampleEvents.event(UUID.randomUUID().toString(), RUN + "-" + label + "-0", "1.00", "EUR");
            producer.send(new ProducerRecord<>(topic, e.orderId(), e.json())).get();
            return;
        }
        for (int p = from; p < to; p++) {
            for (int i = 0; i < perPartition; i++) {
                Event e = SampleEvents.event(UUID.randomUUID().toString(), RUN + "-" + label + "-" + p + "-" + i,
                        "1.00", "EUR");
                sent.add(producer.send(new ProducerRecord<>(topic, p, e.orderId(), e.json())));
            }
        }
        for (java.util.concurrent.Future<?> f : sent) {
            f.get();
        }
    }

    /** @return the distinct orders processed by the consumer whose id has the label, once there are as many */
    private long awaitProcessed(String consumer, String label, long count) throws InterruptedException {
        return db.await(WAIT, n -> n >= count, "SELECT count(DISTINCT order_id) FROM topic_probe "
                + "WHERE consumer = ? AND order_id LIKE ?", consumer, RUN + "-" + label + "-%");
    }

    private void awaitRows(String group, String topic, int partitions, long next) throws InterruptedException {
        assertEquals(partitions, db.await(WAIT, n -> n >= partitions, "SELECT count(*) FROM inbox_kafka_offset "
                + "WHERE consumer_group = ? AND topic = ? AND next_offset >= ?", group, topic, next));
    }

    /** Deletes the topic and makes it again with {@code partitions}; the channel's consumer may make it first. */
    private static void deleteAndMake(String topic, int partitions) throws Exception {
        try (Admin admin = admin()) {
            String old = id(admin, topic);
            admin.deleteTopics(List.of(topic)).all().get();
            awaitGone(admin, topic, old);
            try {
                admin.createTopics(List.of(new NewTopic(topic, partitions, (short) 1))).all().get();
            } catch (ExecutionException e) {
                if (!(e.getCause() instanceof TopicExistsException)) {
                    throw e;
                }
                // made again at once with the broker's default by a consumer's metadata request: widened instead
                admin.createPartitions(Map.of(topic, NewPartitions.increaseTo(partitions))).all().get();
            }
        }
    }

    /** Waits until the topic of that id is gone: no such topic, or one of another id (made again at once). */
    private static void awaitGone(Admin admin, String topic, String id) {
        Waiting.await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(100))
                .until(() -> !admin.listTopics().names().get().contains(topic) || !id.equals(id(admin, topic)));
    }

    /** @return the topic's Kafka topic id, {@code null} when it does not exist */
    private static String id(Admin admin, String topic) throws InterruptedException {
        try {
            return admin.describeTopics(List.of(topic)).allTopicNames().get().get(topic).topicId().toString();
        } catch (ExecutionException e) {
            return null;
        }
    }

    private static Admin admin() {
        Properties props = new Properties();
        props.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, TestEnv.BOOTSTRAP);
        return Admin.create(props);
    }
}
