package io.github.jakartainbox.inbox.kafka;

import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.jakartainbox.billing.SampleEvents;
import io.github.jakartainbox.billing.SampleEvents.Event;
import io.github.jakartainbox.testing.Api;
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
import java.util.UUID;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.container.test.api.RunAsClient;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.shrinkwrap.api.ShrinkWrap;
import org.jboss.shrinkwrap.api.asset.EmptyAsset;
import org.jboss.shrinkwrap.api.asset.StringAsset;
import org.jboss.shrinkwrap.api.spec.JavaArchive;
import org.jboss.shrinkwrap.api.spec.WebArchive;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Issue 42: an {@code inbox-kafka} channel in share-group mode ({@code group.type=share}) on real Liberty, Kafka
 * and PostgreSQL: two share consumers (the channel's two copies) of one group on a topic of one partition. The
 * channel sets its group's config before joining: {@code share.auto.offset.reset=earliest} (the channel's
 * attribute) and {@code share.isolation.level=read_committed} (its default), and {@code
 * share.renew.acknowledge.enable=true} ({@code share.renew}, the default). The test sets the group's lock to the
 * broker's shortest ({@value #LOCK_MILLIS} ms) before the channel starts, so that a slow delivery outlasts it.
 */
@ExtendWith(ArquillianExtension.class)
@RunAsClient
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ShareGroupIT {

    /** The group's lock: the broker's default {@code group.share.min.record.lock.duration.ms}. */
    private static final int LOCK_MILLIS = 15_000;

    private static final Duration WAIT = Duration.ofSeconds(90);
    private static final String RUN = UUID.randomUUID().toString().substring(0, 8);
    private static final String CHANNEL = "probe-share";
    private static final String TOPIC = "it.probe-share." + RUN;
    private static final String GROUP = "it-probe-share-" + RUN;
    /** The grouped channel ({@code group.max-size=10}): a share group and a topic of its own. */
    private static final String GROUPED = "probe-share-grouped";
    private static final String GROUPED_TOPIC = "it.probe-share-grouped." + RUN;

    private final Db db = Db.overJdbc();

    @Deployment
    static WebArchive deployment() throws Exception {
        String p = "mp.messaging.incoming." + CHANNEL + ".";
        String config = p + "connector=inbox-kafka\n"
                + p + "group.type=share\n"
                + p + "share.auto.offset.reset=earliest\n"
                + p + "concurrency=2\n"
                + p + "topic=" + TOPIC + "\n"
                + p + "group.id=" + GROUP + "\n"
                + p + "bootstrap.servers=" + TestEnv.BOOTSTRAP + "\n"
                + p + "key.deserializer=" + StringDeserializer.class.getName() + "\n"
                + p + "value.deserializer=" + StringDeserializer.class.getName() + "\n";
        String g = "mp.messaging.incoming." + GROUPED + ".";
        config += g + "connector=inbox-kafka\n"
                + g + "group.type=share\n"
                + g + "group.max-size=10\n"
                + g + "share.auto.offset.reset=earliest\n"
                + g + "concurrency=2\n"
                + g + "topic=" + GROUPED_TOPIC + "\n"
                + g + "group.id=it-probe-share-grouped-" + RUN + "\n"
                + g + "bootstrap.servers=" + TestEnv.BOOTSTRAP + "\n"
                + g + "key.deserializer=" + StringDeserializer.class.getName() + "\n"
                + g + "value.deserializer=" + StringDeserializer.class.getName() + "\n";
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, TestEnv.BOOTSTRAP))) {
            admin.createTopics(List.of(new NewTopic(TOPIC, 1, (short) 1), new NewTopic(GROUPED_TOPIC, 1, (short) 1)))
                    .all().get();
            admin.incrementalAlterConfigs(Map.of(new ConfigResource(ConfigResource.Type.GROUP, GROUP), List.of(
                    new AlterConfigOp(new ConfigEntry("share.record.lock.duration.ms", String.valueOf(LOCK_MILLIS)),
                            AlterConfigOp.OpType.SET)))).all().get();
        }
        try (Connection c = DriverManager.getConnection("jdbc:postgresql://127.0.0.1:5432/"
                + System.getenv().getOrDefault("DB_NAME", "billing"), "postgres", "");
             Statement s = c.createStatement()) {
            s.execute("CREATE TABLE IF NOT EXISTS share_probe (order_id text NOT NULL, thread text NOT NULL)");
        }
        JavaArchive probes = ShrinkWrap.create(JavaArchive.class, "share-probes.jar")
                .addClass(ShareProbeConsumers.class)
                .addAsManifestResource(EmptyAsset.INSTANCE, "beans.xml")
                .addAsManifestResource(new StringAsset(config), "microprofile-config.properties");
        return Deployments.billingWithProbes().addAsLibrary(probes);
    }

    @Test
    @Order(1)
    void eachEventSentTwiceTakesEffectOnceAndThePoisonIsDeadLetteredOnce() throws Exception {
        String prefix = RUN + "-share";
        List<Event> events = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            events.add(SampleEvents.event(UUID.randomUUID().toString(), prefix + "-" + i, "2.00", "EUR"));
        }
        Event poison = SampleEvents.event(UUID.randomUUID().toString(), prefix + "-poison", "2.00", "EUR");
        List<Event> records = new ArrayList<>(events);
        records.add(poison);
        records.addAll(events); // each event a second time
        try (KafkaProducer<String, String> producer = SampleEvents.producer(TestEnv.BOOTSTRAP)) {
            SampleEvents.send(producer, TOPIC, records);
        }

        assertEquals(41, Waiting.lastValue(Waiting.await().atMost(WAIT).pollInterval(Duration.ofMillis(500)),
                () -> gauge("inbox_kafka_share_accepted") + gauge("inbox_kafka_share_rejected"), n -> n >= 41),
                "every record settled: 20 processed and 20 duplicates accepted, 1 dead letter rejected");
        assertEquals(1, gauge("inbox_kafka_share_rejected"), "the dead-lettered poison rejected, not accepted");
        assertAll(
                () -> assertEquals(20, db.number("SELECT count(*) FROM share_probe WHERE order_id LIKE ? "
                        + "AND order_id NOT LIKE '%-poison'", prefix + "-%"),
                        "each of the 20 events took effect once (the poison's attempts rolled back)"),
                () -> assertEquals(20, db.number("SELECT count(DISTINCT order_id) FROM share_probe "
                        + "WHERE order_id LIKE ? AND order_id NOT LIKE '%-poison'", prefix + "-%")),
                () -> assertEquals(1, db.number("SELECT count(*) FROM inbox_dead_letter WHERE consumer = ? "
                        + "AND event_id = ?", CHANNEL, poison.eventId()), "the poison event dead-lettered once"),
                () -> assertEquals(20, Api.figure(CHANNEL, "duplicatesSkipped"), "each second copy skipped"),
                () -> assertEquals(20, Api.figure(CHANNEL, "processed")),
                () -> assertEquals(1, Api.figure(CHANNEL, "deadLettered")),
                () -> assertEquals(0, gauge("inbox_kafka_share_released")),
                () -> assertEquals("read_committed", groupConfig("share.isolation.level")),
                () -> assertEquals(0, gauge("inbox_kafka_share_ack_errors")));
    }

    @Test
    @Order(2)
    void aDeliveryLongerThanTheLockKeepsItsRecordsByRenewingThem() throws Exception {
        String prefix = RUN + "-renew";
        Event slow = SampleEvents.event(UUID.randomUUID().toString(), prefix + "-slow", "2.00", "EUR");
        List<Event> records = new ArrayList<>(List.of(slow));
        for (int i = 0; i < 3; i++) {
            records.add(SampleEvents.event(UUID.randomUUID().toString(), prefix + "-" + i, "2.00", "EUR"));
        }
        long accepted = gauge("inbox_kafka_share_accepted");
        long redelivered = gauge("inbox_kafka_share_redelivered");
        try (KafkaProducer<String, String> producer = SampleEvents.producer(TestEnv.BOOTSTRAP)) {
            SampleEvents.send(producer, TOPIC, records);
        }

        assertEquals(accepted + 4, Waiting.lastValue(Waiting.await().atMost(WAIT).pollInterval(Duration.ofMillis(500)),
                () -> gauge("inbox_kafka_share_accepted"), n -> n >= accepted + 4),
                "the slow record and the three after it accepted");
        assertAll(
                () -> assertEquals(1, db.number("SELECT count(*) FROM share_probe WHERE order_id = ?",
                        slow.orderId()), "the slow event took effect once"),
                () -> assertEquals(4, db.number("SELECT count(*) FROM share_probe WHERE order_id LIKE ?",
                        prefix + "-%")),
                () -> assertTrue(gauge("inbox_kafka_share_renewed") >= 1,
                        "the slow delivery (" + ShareProbeConsumers.SLOW_MILLIS + " ms) outlasted the lock ("
                                + LOCK_MILLIS + " ms), so its locks were renewed"),
                () -> assertEquals(redelivered, gauge("inbox_kafka_share_redelivered"),
                        "no record came back with its delivery count raised: no lock expired"),
                () -> assertEquals(0, gauge("inbox_kafka_share_locks_expired")),
                () -> assertEquals(0, gauge("inbox_kafka_share_ack_errors"), "every renewal and accept taken"),
                () -> assertEquals("true", groupConfig("share.renew.acknowledge.enable")),
                () -> assertEquals(String.valueOf(LOCK_MILLIS), groupConfig("share.record.lock.duration.ms")));
    }

    @Test
    @Order(3)
    void aGroupedShareChannelTakesEachEffectOnceAndRejectsOnlyThePoisonOfItsGroup() throws Exception {
        String prefix = RUN + "-grouped";
        List<Event> events = new ArrayList<>();
        for (int i = 0; i < 30; i++) {
            events.add(SampleEvents.event(UUID.randomUUID().toString(), prefix + "-" + i, "2.00", "EUR"));
        }
        Event poison = SampleEvents.event(UUID.randomUUID().toString(), prefix + "-poison", "2.00", "EUR");
        List<Event> records = new ArrayList<>();
        for (int i = 0; i < events.size(); i++) {
            for (int copy = 0; copy <= i % 3; copy++) { // each event sent 1, 2 or 3 times
                records.add(events.get(i));
            }
            if (i == 14) {
                records.add(poison);
            }
        }
        int total = records.size();
        try (KafkaProducer<String, String> producer = SampleEvents.producer(TestEnv.BOOTSTRAP)) {
            SampleEvents.send(producer, GROUPED_TOPIC, records);
        }

        assertEquals(total, Waiting.lastValue(Waiting.await().atMost(WAIT).pollInterval(Duration.ofMillis(500)),
                () -> gauge("inbox_kafka_share_accepted", GROUPED) + gauge("inbox_kafka_share_rejected", GROUPED),
                n -> n >= total), "every record settled once: accepted, or the poison rejected");
        long groups = gauge("inbox_kafka_groups_committed", GROUPED);
        long grouped = gauge("inbox_kafka_group_records", GROUPED);
        assertAll(
                () -> assertEquals(1, gauge("inbox_kafka_share_rejected", GROUPED), "only the poison rejected"),
                () -> assertEquals(30, db.number("SELECT count(*) FROM share_probe WHERE order_id LIKE ? "
                        + "AND order_id NOT LIKE '%-poison'", prefix + "-%"),
                        "each of the 30 events took effect once (the poison's group and attempts rolled back)"),
                () -> assertEquals(30, db.number("SELECT count(DISTINCT order_id) FROM share_probe "
                        + "WHERE order_id LIKE ? AND order_id NOT LIKE '%-poison'", prefix + "-%")),
                () -> assertEquals(1, db.number("SELECT count(*) FROM inbox_dead_letter WHERE consumer = ? "
                        + "AND event_id = ?", GROUPED, poison.eventId()), "the poison event dead-lettered once"),
                () -> assertTrue(groups >= 1 && grouped > groups,
                        "records ran in groups of more than one: " + grouped + " records in " + groups + " groups"),
                () -> assertTrue(gauge("inbox_kafka_groups_rolled_back", GROUPED) >= 1,
                        "the poison's group rolled back and ran one by one"),
                () -> assertEquals(0, gauge("inbox_kafka_share_released", GROUPED)),
                () -> assertEquals(0, gauge("inbox_kafka_share_ack_errors", GROUPED)));
    }

    /** @return the share group's config value as the broker describes it */

    private static String groupConfig(String name) throws Exception {
        ConfigResource group = new ConfigResource(ConfigResource.Type.GROUP, GROUP);
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, TestEnv.BOOTSTRAP))) {
            return admin.describeConfigs(List.of(group)).all().get().get(group).get(name).value();
        }
    }

    /** @return the share channel's gauge at /metrics (its copies summed), -1 when it is not there */
    private static long gauge(String name) throws Exception {
        return gauge(name, CHANNEL);
    }

    /** @return a channel's gauge at /metrics (its copies summed), -1 when it is not there */
    private static long gauge(String name, String channel) throws Exception {
        String body = java.net.http.HttpClient.newHttpClient().send(java.net.http.HttpRequest.newBuilder(
                java.net.URI.create(TestEnv.url("/metrics?scope=application"))).build(),
                java.net.http.HttpResponse.BodyHandlers.ofString()).body();
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("(?m)^" + name + "\\{[^}]*channel=\"" + channel
                + "\"[^}]*\\} ([0-9.E+-]+)$").matcher(body);
        return m.find() ? (long) Double.parseDouble(m.group(1)) : -1;
    }
}
