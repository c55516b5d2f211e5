package io.github.jakartainbox.inbox.retention;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.jakartainbox.testing.Api;
import io.github.jakartainbox.testing.Deployments;
import io.github.jakartainbox.testing.TestEnv;
import io.github.jakartainbox.testing.Waiting;
import jakarta.json.Json;
import jakarta.json.JsonObject;
import jakarta.json.JsonReader;
import java.io.StringReader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.function.Predicate;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.common.config.ConfigResource;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.shrinkwrap.api.spec.WebArchive;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The inbox retention is checked against what the broker really keeps: the topic's {@code retention.ms} and the
 * broker's {@code offsets.retention.minutes}, read with the Admin client at start and after each purge run (every
 * 10 s on the test server), shown in {@code /billing/api/inbox/purge} and in the readiness data. The test server
 * sets no {@code inbox.topic-retention} override.
 */
@ExtendWith(ArquillianExtension.class)
class RetentionIT {

    private static final Duration WAIT = Duration.ofSeconds(90);

    @Deployment(testable = false)
    static WebArchive deployment() {
        return Deployments.billingWithProbes();
    }

    /** The "billing" entry of the purge status's retention figures, read until {@code done} holds or WAIT passes. */
    private static JsonObject billingRetention(Predicate<JsonObject> done) throws Exception {
        return Waiting.lastValue(Waiting.await().atMost(WAIT).pollInterval(Duration.ofMillis(500)), () -> {
            String body = Api.call("GET", TestEnv.url("/billing/api/inbox/purge"), Api.READER).body();
            try (JsonReader reader = Json.createReader(new StringReader(body))) {
                return reader.readObject().getJsonArray("retention").stream().map(v -> v.asJsonObject())
                        .filter(r -> r.getString("consumer").equals("billing")).findFirst()
                        .orElse(Json.createObjectBuilder().build());
            }
        }, done);
    }

    private static void topicRetention(AlterConfigOp op) throws Exception {
        Properties p = new Properties();
        p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, TestEnv.BOOTSTRAP);
        try (Admin admin = Admin.create(p)) {
            admin.incrementalAlterConfigs(Map.of(new ConfigResource(ConfigResource.Type.TOPIC, TestEnv.ORDERS_TOPIC),
                    List.of(op))).all().get();
        }
    }

    @Test
    void theTopicAndOffsetRetentionComeFromTheBrokerAndALongerTopicRetentionIsReportedAfterTheNextPurge()
            throws Exception {
        JsonObject before = billingRetention(r -> "broker".equals(r.getString("source", "")));
        assertEquals("broker", before.getString("source", ""), "read from the broker: " + before);
        assertEquals("PT168H", before.getString("offsetsRetention"), "the broker default, 7 days: " + before);
        assertEquals(TestEnv.ORDERS_TOPIC, before.getString("topic"));
        assertEquals(false, before.getBoolean("tooShort"), "P14D exceeds the 7 days of both: " + before);

        topicRetention(new AlterConfigOp(new ConfigEntry("retention.ms", Long.toString(Duration.ofDays(30).toMillis())),
                AlterConfigOp.OpType.SET));
        try {
            JsonObject longer = billingRetention(r -> "PT720H".equals(r.getString("topicRetention", "")));
            assertEquals("PT720H", longer.getString("topicRetention"), "the topic's new retention.ms: " + longer);
            assertEquals("PT720H", longer.getString("required"), "the longer of topic and offsets: " + longer);
            assertTrue(longer.getBoolean("tooShort"), "the inbox keeps rows 14 days, the topic 30: " + longer);
            Path log = Path.of(System.getProperty("wlp.dir"), "usr", "servers", System.getProperty("it.server.name"),
                    "logs", "messages.log");
            assertTrue(Files.readString(log).contains("RETAIN0001W: Consumer billing: inbox retention PT336H"),
                    "logged as RETAIN0001W");
            String health = Api.call("GET", TestEnv.url("/health/ready"), null).body();
            assertTrue(health.matches("(?s).*\"retention\\.billing\\.too-short\"\\s*:\\s*true.*"),
                    "in the readiness data: " + health);
        } finally {
            topicRetention(new AlterConfigOp(new ConfigEntry("retention.ms", ""), AlterConfigOp.OpType.DELETE));
        }
        JsonObject after = billingRetention(r -> "PT168H".equals(r.getString("topicRetention", "")));
        assertEquals(false, after.getBoolean("tooShort"), "back to the broker default: " + after);
    }
}
