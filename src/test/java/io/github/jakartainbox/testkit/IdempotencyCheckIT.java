package io.github.jakartainbox.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.jakartainbox.billing.SampleEvents;
import io.github.jakartainbox.inbox.InboxStatistics;
import io.github.jakartainbox.testing.Db;
import io.github.jakartainbox.testing.Deployments;
import io.github.jakartainbox.testing.TestEnv;
import io.github.jakartainbox.testing.UuidV7;
import io.github.jakartainbox.testing.probes.KitProbeConsumers;
import jakarta.enterprise.inject.spi.CDI;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import javax.naming.InitialContext;
import javax.sql.DataSource;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.shrinkwrap.api.ShrinkWrap;
import org.jboss.shrinkwrap.api.asset.StringAsset;
import org.jboss.shrinkwrap.api.spec.JavaArchive;
import org.jboss.shrinkwrap.api.spec.WebArchive;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The test kit's own tests against the real thing, in-container on Liberty with the broker and PostgreSQL: through
 * Kafka, an {@code @Idempotent} consumer passes {@link IdempotencyCheck} (5 deliveries in a row, 5 at once, the
 * duplicates counted by {@link InboxStatistics}), and so does a share-group consumer ({@link KitShareProbe}: two
 * share consumers of one group on a topic of one partition, {@code group.type=share}); the same check against a
 * consumer without the inbox fails, and its message names the missing inbox row and the annotation to check.
 */
@ExtendWith(ArquillianExtension.class)
class IdempotencyCheckIT {

    private final Db db = Db.lazy();
    private DataSource billing;
    private KafkaProducer<String, String> producer;

    /** The share-group subject's topic, one partition, made before the deployment (one per build, as the others). */
    private static final String SHARE_TOPIC = "it.probe.kit-share."
            + System.getenv().getOrDefault("IT_RUN_ID", "local");

    @Deployment
    static WebArchive deployment() throws Exception {
        String p = "mp.messaging.incoming.probe-kit-share.";
        String config = p + "connector=inbox-kafka\n"
                + p + "group.type=share\n"
                + p + "share.auto.offset.reset=earliest\n"
                + p + "concurrency=2\n"
                + p + "topic=" + SHARE_TOPIC + "\n"
                + p + "group.id=it-probe-kit-share-" + UUID.randomUUID() + "\n"
                + p + "bootstrap.servers=" + TestEnv.BOOTSTRAP + "\n"
                + p + "key.deserializer=" + StringDeserializer.class.getName() + "\n"
                + p + "value.deserializer=" + StringDeserializer.class.getName() + "\n";
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, TestEnv.BOOTSTRAP))) {
            admin.createTopics(List.of(new NewTopic(SHARE_TOPIC, 1, (short) 1))).all().get();
        } catch (ExecutionException e) {
            if (!(e.getCause() instanceof TopicExistsException)) {
                throw e;
            }
        }
        JavaArchive shareConfig = ShrinkWrap.create(JavaArchive.class, "kit-share-config.jar")
                .addAsManifestResource(new StringAsset(config), "microprofile-config.properties");
        // the kit is no part of the WAR: the test adds it, as a team's test deployment would add its jar
        return Deployments.billingWithProbes().addAsLibrary(Deployments.testKit())
                .addClass(KitShareProbe.class).addAsLibrary(shareConfig);
    }

    @BeforeEach
    void setUp() throws Exception {
        billing = (DataSource) new InitialContext().lookup("jdbc/billing");
        db.execute(KitProbeConsumers.TABLE);
        producer = SampleEvents.producer(TestEnv.BOOTSTRAP);
    }

    @AfterEach
    void closeProducer() {
        if (producer != null) {
            producer.close(Duration.ofSeconds(5));
        }
    }

    @Test
    void anIdempotentConsumerPasses() {
        String eventId = UuidV7.at(Instant.now());
        IdempotencyCheck.Result result = check("probe-kit", KitProbeConsumers.IDEMPOTENT_TOPIC, eventId).run();
        assertEquals(0L, result.stateBefore());
        assertEquals(1L, result.stateAfterOne());
        assertEquals(10, result.deliveries(), "1 + 4 in a row + 5 at once");
        assertTrue(result.duplicatesSkipped() >= 9, "every later delivery skipped as a duplicate: " + result);
    }

    @Test
    void aShareGroupConsumerPasses() {
        String eventId = UuidV7.at(Instant.now());
        IdempotencyCheck.Result result = check("probe-kit-share", SHARE_TOPIC, eventId).run();
        assertEquals(0L, result.stateBefore());
        assertEquals(1L, result.stateAfterOne());
        assertEquals(10, result.deliveries(), "1 + 4 in a row + 5 at once");
        assertTrue(result.duplicatesSkipped() >= 9, "every later delivery skipped as a duplicate: " + result);
    }

    @Test
    void aConsumerWithoutTheInboxFailsNamingWhy() {
        String eventId = UuidV7.at(Instant.now());
        AssertionError failure = assertThrows(AssertionError.class,
                () -> check("probe-kit-plain", KitProbeConsumers.PLAIN_TOPIC, eventId).run());
        String message = failure.getMessage();
        assertTrue(message.startsWith("IdempotencyCheck of consumer \"probe-kit-plain\", event " + eventId), message);
        assertTrue(message.contains("the state changed with the first delivery, but the inbox has no row"), message);
        assertTrue(message.contains("the consumer does not go through the inbox"), message);
        assertTrue(message.contains("state before the first delivery: 0"), message);
        assertTrue(message.contains("state now:                       1"), message);
        assertTrue(message.contains("Is the method annotated @Idempotent(consumer = \"probe-kit-plain\")?"), message);
    }

    private IdempotencyCheck.Builder check(String consumer, String topic, String eventId) {
        String json = "{\"event_id\":\"" + eventId + "\",\"note\":\"kit\"}";
        InboxStatistics statistics = CDI.current().select(InboxStatistics.class).get();
        return IdempotencyCheck.of(consumer, eventId)
                .delivery(() -> producer.send(new ProducerRecord<>(topic, eventId, json)).get())
                .state(() -> effects(consumer, eventId))
                .figures(InboxFigures.inContainer(billing, statistics))
                .times(5)
                .threads(4)
                .timeout(Duration.ofSeconds(60));
    }

    private long effects(String consumer, String eventId) {
        return db.number("SELECT count(*) FROM kit_probe_effect WHERE consumer = ? AND event_id = ?", consumer, eventId);
    }
}
