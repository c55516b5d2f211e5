package io.github.jakartainbox.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.jakartainbox.adopter.PaymentConsumer;
import io.github.jakartainbox.testing.UuidV7;
import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.UUID;
import java.util.stream.Stream;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.jboss.shrinkwrap.api.ShrinkWrap;
import org.jboss.shrinkwrap.api.asset.StringAsset;
import org.jboss.shrinkwrap.api.exporter.ZipExporter;
import org.jboss.shrinkwrap.api.spec.WebArchive;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import io.github.jakartainbox.billing.SampleEvents;

/**
 * The library as another team adopts it: a WAR made of the library jar ({@code target/billing-inbox.jar}), the
 * third-party jars docs/using-the-library.md names, and one {@code @Idempotent} consumer of the team's own (on its own topic, writing
 * its own table), deployed on a Liberty server configured only as docs/using-the-library.md says
 * ({@code src/test/adopter/server.xml}). Duplicates give one effect per event, in both partitioning modes. Nothing of
 * the billing example is in the WAR.
 */
class AdopterIT {

    private static final Path WLP = Path.of(System.getProperty("wlp.dir", "target/liberty/wlp"));
    private static final Path WAR = Path.of(System.getProperty("war.file", "target/billing.war"));
    private static final String SERVER = "adopter";
    private static final Duration WAIT = Duration.ofMinutes(3);
    private static final int EVENTS = 100;

    private Map<String, String> environment = Map.of();

    @AfterEach
    void stopServer() throws Exception {
        server("stop");
    }

    @Test
    void aWarWithTheLibraryJarAloneProcessesEachEventOnceWithThePlainInbox() throws Exception {
        adoptAndDeliverDuplicates("adopter_it_plain", false);
    }

    @Test
    void aWarWithTheLibraryJarAloneProcessesEachEventOnceWithTheMonthlyPartitionedInbox() throws Exception {
        Db db = adoptAndDeliverDuplicates("adopter_it_monthly", true);
        assertEquals("p", db.text("SELECT relkind::text FROM pg_class WHERE relname = 'inbox'"),
                "the jar's monthly migration partitioned the inbox");
    }

    private Db adoptAndDeliverDuplicates(String database, boolean monthly) throws Exception {
        Db.recreate(database);
        Db db = Db.overJdbc(database);
        execute(database, "CREATE TABLE payment_booked (event_id text NOT NULL, payment_id text NOT NULL)");
        String run = UUID.randomUUID().toString().substring(0, 8);
        String topic = "adopter.payments." + run;
        deploy();
        environment = Map.of("DB_NAME", database, "HTTP_PORT", String.valueOf(TestEnv.HTTP_PORT + 400),
                "KAFKA_BOOTSTRAP_SERVERS", TestEnv.BOOTSTRAP, "MP_MESSAGING_INCOMING_PAYMENTS_TOPIC", topic,
                "MP_MESSAGING_INCOMING_PAYMENTS_GROUP_ID", "payments-" + run,
                "INBOX_PARTITIONING", monthly ? "monthly" : "none");
        server("start");
        awaitApplicationStarted();

        List<String> deliveries = new ArrayList<>();
        for (int i = 0; i < EVENTS; i++) {
            String event = "{\"event_id\":\"" + UuidV7.at(Instant.now()) + "\",\"payment_id\":\"" + run + "-" + i
                    + "\",\"amount\":\"10.00\"}";
            for (int copy = 0; copy <= i % 3; copy++) { // 1 to 3 deliveries each
                deliveries.add(event);
            }
        }
        Collections.shuffle(deliveries, new Random(7));
        try (KafkaProducer<String, String> producer = SampleEvents.producer(TestEnv.BOOTSTRAP)) {
            for (String event : deliveries) {
                producer.send(new ProducerRecord<>(topic, event));
            }
            producer.flush();
        }
        assertEquals(EVENTS, db.await(WAIT, n -> n >= EVENTS, "SELECT count(*) FROM inbox WHERE consumer = 'payments'"),
                "every event claimed");
        Thread.sleep(2000); // the last duplicates go through too
        assertEquals(EVENTS, db.number("SELECT count(*) FROM payment_booked"), "one booking per event, "
                + deliveries.size() + " deliveries");
        assertEquals(EVENTS, db.number("SELECT count(DISTINCT payment_id) FROM payment_booked"));
        assertEquals(0, db.number("SELECT count(*) FROM inbox_dead_letter"), "nothing dead-lettered");
        return db;
    }

    /** The team's own migration, as its DBA would run it. */
    private static void execute(String database, String sql) {
        try (java.sql.Connection c = java.sql.DriverManager.getConnection(
                "jdbc:postgresql://127.0.0.1:5432/" + database, "postgres", "");
             java.sql.Statement s = c.createStatement()) {
            s.execute(sql);
        } catch (java.sql.SQLException e) {
            throw new AssertionError(e);
        }
    }

    /** The team's WAR: the library jar, the jars docs/using-the-library.md names, its own class and configuration; no example. */
    private static void deploy() throws Exception {
        Path serverDir = WLP.resolve("usr/servers/" + SERVER);
        Files.createDirectories(serverDir.resolve("dropins"));
        Files.copy(Path.of("src/test/adopter/server.xml"), serverDir.resolve("server.xml"),
                StandardCopyOption.REPLACE_EXISTING);
        Path libraryJar = WAR.resolveSibling("billing-inbox.jar");
        assertTrue(Files.isRegularFile(libraryJar), libraryJar + " is built by mvn package");
        WebArchive war = ShrinkWrap.create(WebArchive.class, "adopter.war")
                .addAsLibrary(libraryJar.toFile())
                .addClass(PaymentConsumer.class)
                .addAsResource(new StringAsset(String.join("\n",
                        "mp.messaging.connector.liberty-kafka.bootstrap.servers=${kafka.bootstrap.servers}",
                        "mp.messaging.incoming.payments.connector=liberty-kafka",
                        "mp.messaging.incoming.payments.topic=payments",
                        "mp.messaging.incoming.payments.group.id=payments",
                        "mp.messaging.incoming.payments.key.deserializer=org.apache.kafka.common.serialization.StringDeserializer",
                        "mp.messaging.incoming.payments.value.deserializer=org.apache.kafka.common.serialization.StringDeserializer",
                        "mp.messaging.incoming.payments.auto.offset.reset=earliest",
                        "mp.messaging.incoming.payments.enable.auto.commit=false",
                        "mp.messaging.incoming.payments.isolation.level=read_committed", "")),
                        "META-INF/microprofile-config.properties");
        // the third-party jars docs/using-the-library.md names: flyway-core, flyway-database-postgresql, kafka-clients, and theirs
        // (the example's WEB-INF/lib holds exactly those: the example has no other dependency)
        Path lib = WAR.resolveSibling("billing").resolve("WEB-INF/lib");
        try (Stream<Path> jars = Files.list(lib)) {
            jars.forEach(p -> war.addAsLibrary(p.toFile()));
        }
        assertTrue(war.getContent().keySet().stream().noneMatch(p -> p.get().contains("/billing/")),
                "nothing of the billing example");
        File target = serverDir.resolve("dropins/adopter.war").toFile();
        war.as(ZipExporter.class).exportTo(target, true);
    }

    /** Waits for Liberty's CWWKZ0001I for the application; fails with the log's errors when it did not start. */
    private static void awaitApplicationStarted() throws Exception {
        Path log = WLP.resolve("usr/servers/" + SERVER + "/logs/messages.log");
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (System.nanoTime() < deadline) {
            String text = Files.exists(log) ? Files.readString(log) : "";
            if (text.contains("CWWKZ0001I: Application adopter started")) {
                return;
            }
            if (text.contains("CWWKZ0002E") || text.contains("CWWKZ0012I")) {
                break;
            }
            Thread.sleep(500);
        }
        String errors = Files.exists(log) ? Files.readAllLines(log).stream()
                .filter(l -> l.contains(" E ") || l.contains("INBOX")).reduce("", (a, b) -> a + "\n" + b) : "no log";
        throw new AssertionError("application adopter did not start:" + errors);
    }

    private void server(String action) throws Exception {
        ProcessBuilder builder = new ProcessBuilder(WLP.resolve("bin/server").toString(), action, SERVER).inheritIO();
        // the billing tests' channel settings (Failsafe's environment) are no channels of this application
        builder.environment().keySet().removeIf(name -> name.startsWith("MP_MESSAGING_"));
        builder.environment().putAll(environment);
        int rc = builder.start().waitFor();
        assertTrue(rc == 0 || action.equals("stop") && rc == 1, "server " + action + " exited " + rc);
    }
}
