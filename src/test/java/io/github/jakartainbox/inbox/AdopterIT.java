package io.github.jakartainbox.inbox;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.jakartainbox.billing.SampleEvents;
import io.github.jakartainbox.testing.Db;
import io.github.jakartainbox.testing.LibertyServer;
import io.github.jakartainbox.testing.TestEnv;
import io.github.jakartainbox.testing.UuidV7;
import io.github.jakartainbox.testing.Waiting;
import io.github.jakartainbox.testkit.IdempotencyCheck;
import io.github.jakartainbox.testkit.InboxFigures;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.UUID;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The library as another team adopts it: the adopter project {@code src/test/adopter} (a {@code pom.xml} that
 * depends on {@code io.github.jakartainbox:inbox} alone, one {@code @Idempotent} consumer on its own topic writing its
 * own table, its {@code microprofile-config.properties}, the inbox's version from {@code inbox-bom}) built by Maven with
 * an empty local repository against the repository the build deployed the library to before the integration tests
 * ({@code library.repo}) and Maven Central; deployed on a Liberty server configured only by the
 * project's {@code server.xml}. Duplicates give one effect per event, in both partitioning modes: 100 events sent 1 to
 * 3 times each, shuffled, and one more event through the test kit ({@link IdempotencyCheck}: 5 deliveries in a row, 5
 * at once, a {@code kill -9} of the server right after its first commit). Nothing of the billing example is in the
 * WAR.
 */
class AdopterIT {

    private static final Path WAR = Path.of(System.getProperty("war.file", "target/billing.war"));
    private static final Path PROJECT = Path.of("src/test/adopter");
    private static final Duration WAIT = Duration.ofMinutes(3);
    private static final int EVENTS = 100;
    private static final String KEY = "adopter";

    /** The billing tests' channel settings (Failsafe's environment) are no channels of this application. */
    private final LibertyServer server = new LibertyServer(LibertyServer.WLP, "adopter",
            LibertyServer.messagingSettings());

    @AfterEach
    void stopServer() throws Exception {
        serverCommand("stop");
    }

    /** With mpMetrics in the server, the library's own gauges show the run's figures at /metrics. */
    @Test
    void aWarDependingOnTheInboxAloneProcessesEachEventOnceWithThePlainInbox() throws Exception {
        Db db = adoptAndDeliverDuplicates("adopter_it_plain", false, true);
        long processed = db.number("SELECT count(*) FROM inbox WHERE consumer = 'payments'");
        String metrics = Waiting.lastValue(Waiting.await("the inbox_processed gauge").atMost(WAIT), this::metrics,
                body -> value(body, "inbox_processed", "payments") == processed);
        assertEquals(processed, value(metrics, "inbox_processed", "payments"), metrics);
        assertEquals(0, value(metrics, "inbox_dead_lettered", "payments"), metrics);
        assertEquals(0, value(metrics, "inbox_purge_overdue", null), metrics);
        assertFalse(metrics.contains("consumer=\"\""), "a gauge per consumer of the application, no other: " + metrics);
        Set<String> exposed = new TreeSet<>();
        Matcher names = Pattern.compile("(?m)^((?:inbox|outbox)_[a-z_]+)[{ ]").matcher(metrics);
        while (names.find()) {
            exposed.add(names.group(1));
        }
        // the adopter's channel is liberty-kafka's: inbox-kafka's gauges are GroupedDeliveryIT's
        Set<String> documented = io.github.jakartainbox.docs.Markdown.documentedMetrics().stream()
                .filter(n -> n.startsWith("inbox_") && !n.startsWith("inbox_kafka_"))
                .collect(Collectors.toCollection(TreeSet::new));
        assertEquals(documented, exposed, "docs/observability.md's metrics table against an adopter's /metrics "
                + "(no outbox jar in this WAR, no inbox-kafka channel)");
        System.out.println("adopter metrics: " + metrics.lines().filter(l -> l.startsWith("inbox_")).toList());
    }

    /** Without mpMetrics the library publishes nothing and says nothing about it. */
    @Test
    void aWarDependingOnTheInboxAloneProcessesEachEventOnceWithTheMonthlyPartitionedInbox() throws Exception {
        Db db = adoptAndDeliverDuplicates("adopter_it_monthly", true, false);
        assertEquals("p", db.text("SELECT relkind::text FROM pg_class WHERE relname = 'inbox'"),
                "the jar's monthly migration partitioned the inbox");
        assertEquals(List.of(), server.logLines(l -> l.toLowerCase(java.util.Locale.ROOT).contains("metric")),
                "no word of metrics from a server without mpMetrics");
    }

    private String metrics() throws Exception {
        return java.net.http.HttpClient.newHttpClient().send(java.net.http.HttpRequest.newBuilder(java.net.URI.create(
                        "http://127.0.0.1:" + (TestEnv.HTTP_PORT + 400) + "/metrics?scope=application")).build(),
                java.net.http.HttpResponse.BodyHandlers.ofString()).body();
    }

    /** @return a gauge's value in a Prometheus text body, -1 when absent */
    private static long value(String body, String name, String consumer) {
        String tags = consumer == null ? "\\{[^}]*\\}" : "\\{[^}]*consumer=\"" + consumer + "\"[^}]*\\}";
        Matcher m = Pattern.compile("(?m)^" + name + tags + " ([0-9.E+-]+)$").matcher(body);
        return m.find() ? (long) Double.parseDouble(m.group(1)) : -1;
    }

    private Db adoptAndDeliverDuplicates(String database, boolean monthly, boolean metrics) throws Exception {
        Db.recreate(database);
        Db db = Db.overJdbc(database);
        execute(database, Files.readString(PROJECT.resolve("schema.sql")));
        String run = UUID.randomUUID().toString().substring(0, 8);
        String topic = "adopter.payments." + run;
        deploy(metrics);
        server.environment(Map.of("DB_NAME", database, "HTTP_PORT", String.valueOf(TestEnv.HTTP_PORT + 400),
                "KAFKA_BOOTSTRAP_SERVERS", TestEnv.BOOTSTRAP, "MP_MESSAGING_INCOMING_PAYMENTS_TOPIC", topic,
                "MP_MESSAGING_INCOMING_PAYMENTS_GROUP_ID", "payments-" + run,
                "INBOX_PARTITIONING", monthly ? "monthly" : "none"));
        serverCommand("start");
        awaitApplicationStarted();
        assertEquals(List.of(), errorLines(), "a normal start logs no error (an operations team alerts on them)");

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
            // one key for every record: one partition, so that the test kit's markers below come after all of them
            for (String event : deliveries) {
                producer.send(new ProducerRecord<>(topic, KEY, event));
            }
            producer.flush();

            // the test kit on one more event: in a row, at once, and a kill -9 right after its first commit; each of
            // its markers is processed after every record sent before it, the shuffled duplicates above included
            String eventId = UuidV7.at(Instant.now());
            String payment = "{\"event_id\":\"" + eventId + "\",\"payment_id\":\"kit-" + run + "\",\"amount\":\"10.00\"}";
            IdempotencyCheck.Result result = IdempotencyCheck.of("payments", eventId)
                    .delivery(() -> producer.send(new ProducerRecord<>(topic, KEY, payment)).get())
                    .state(() -> db.number("SELECT count(*) FROM payment_booked WHERE event_id = ?", eventId))
                    .figures(InboxFigures.overJdbc(() -> java.sql.DriverManager.getConnection(
                            "jdbc:postgresql://127.0.0.1:5432/" + database, "postgres", "")))
                    .marker(() -> {
                        String marker = UuidV7.at(Instant.now());
                        producer.send(new ProducerRecord<>(topic, KEY, "{\"event_id\":\"" + marker
                                + "\",\"payment_id\":\"marker-" + marker + "\",\"amount\":\"1.00\"}")).get();
                        return marker;
                    })
                    .crash(this::killAndRestart)
                    .times(5)
                    .timeout(WAIT)
                    .run();
            System.out.println("test kit: " + result);
        }
        assertEquals(EVENTS, db.number("SELECT count(*) FROM inbox WHERE consumer = 'payments' AND event_id IN "
                + "(SELECT event_id FROM payment_booked WHERE payment_id LIKE ?)", run + "-%"), "every event claimed");
        assertEquals(EVENTS, db.number("SELECT count(*) FROM payment_booked WHERE payment_id LIKE ?", run + "-%"),
                "one booking per event, " + deliveries.size() + " deliveries");
        assertEquals(EVENTS, db.number("SELECT count(DISTINCT payment_id) FROM payment_booked WHERE payment_id LIKE ?",
                run + "-%"));
        assertEquals(0, db.number("SELECT count(*) FROM inbox_dead_letter"), "nothing dead-lettered");
        return db;
    }

    /** The test kit's crash: SIGKILL, then a start with the same environment, until the application is started. */
    private void killAndRestart() throws Exception {
        assertTrue(server.kill(), "server " + server.name() + " is not running");
        Files.deleteIfExists(server.messagesLog()); // the next start's alone
        serverCommand("start");
        awaitApplicationStarted();
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

    /** The team's WAR, built by Maven from the adopter project, with the project's server.xml; no example. */
    private void deploy(boolean metrics) throws Exception {
        Path serverDir = server.dir();
        Files.createDirectories(serverDir.resolve("dropins"));
        String config = Files.readString(PROJECT.resolve("src/main/liberty/config/server.xml"));
        if (!metrics) {
            config = config.replaceAll("(?m)^.*(mpMetrics).*\\R", "");
        }
        Files.writeString(serverDir.resolve("server.xml"), config);
        Path war = buildAdopterWar();
        try (ZipFile zip = new ZipFile(war.toFile())) {
            List<String> entries = zip.stream().map(ZipEntry::getName).toList();
            assertTrue(entries.stream().anyMatch(e -> e.startsWith("WEB-INF/lib/inbox-")),
                    "the inbox jar in WEB-INF/lib: " + entries);
            assertTrue(entries.stream().noneMatch(e -> e.contains("billing") || e.contains("pdfbox")),
                    "nothing of the billing example: " + entries);
        }
        Files.copy(war, serverDir.resolve("dropins/adopter.war"), StandardCopyOption.REPLACE_EXISTING);
    }

    /** The adopter's WAR, built once per run: both tests deploy the same WAR. */
    private static Path adopterWar;

    /**
     * Builds a copy of the adopter project in the build directory (its target/ stays out of src/), as a team does
     * from its repository manager: with a local repository of its own, empty at the start, and a settings file that
     * names the repository this build deployed the library to ({@code library.repo}) besides Maven Central. The inbox
     * and its BOM can come only from there: no other repository holds them, and the test asserts where they came from.
     */
    private static synchronized Path buildAdopterWar() throws Exception {
        if (adopterWar != null) {
            return adopterWar;
        }
        Path copy = WAR.resolveSibling("adopter-project");
        Path localRepository = WAR.resolveSibling("adopter-repository");
        for (Path old : List.of(copy, localRepository)) {
            deleteTree(old);
        }
        try (Stream<Path> files = Files.walk(PROJECT)) {
            for (Path file : files.filter(Files::isRegularFile).toList()) {
                Path to = copy.resolve(PROJECT.relativize(file));
                Files.createDirectories(to.getParent());
                Files.copy(file, to);
            }
        }
        Path library = Path.of(System.getProperty("library.repo", "target/library-repo")).toAbsolutePath();
        assertTrue(Files.isDirectory(library.resolve("io/github/jakartainbox/inbox-bom")),
                "the library is deployed to " + library + " before the integration tests (pom.xml, execution library)");
        Path settings = copy.resolve("settings.xml");
        Files.writeString(settings, librarySettings(library));
        String version = System.getProperty("library.version", "0.1.0-SNAPSHOT");
        maven(copy, "-s", settings.toString(), "-Dmaven.repo.local=" + localRepository.toAbsolutePath(),
                "-Dinbox.version=" + version, "package");
        for (String artifact : List.of("inbox-bom", "inbox")) {
            Path origin = localRepository.resolve("io/github/jakartainbox/" + artifact + "/" + version
                    + "/_remote.repositories");
            assertTrue(Files.isRegularFile(origin) && Files.readString(origin).contains(">library="),
                    artifact + " resolved from the deployed repository (" + origin + ")");
        }
        adopterWar = copy.resolve("target/adopter.war");
        return adopterWar;
    }

    /** @return a Maven settings file whose only repository besides Maven Central is {@code library} */
    static String librarySettings(Path library) {
        return """
                <settings>
                  <profiles>
                    <profile>
                      <id>library</id>
                      <repositories>
                        <repository>
                          <id>library</id>
                          <url>%s</url>
                          <releases><enabled>true</enabled></releases>
                          <snapshots><enabled>true</enabled></snapshots>
                        </repository>
                      </repositories>
                    </profile>
                  </profiles>
                  <activeProfiles>
                    <activeProfile>library</activeProfile>
                  </activeProfiles>
                </settings>
                """.formatted(library.toUri());
    }

    static void deleteTree(Path root) throws java.io.IOException {
        if (Files.exists(root)) {
            try (Stream<Path> old = Files.walk(root)) {
                old.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
    }

    static void maven(Path project, String... arguments) throws Exception {
        String mvn = Path.of(System.getProperty("maven.home"), "bin", "mvn").toString();
        List<String> command = new ArrayList<>(List.of(mvn, "-B", "-ntp"));
        command.addAll(List.of(arguments));
        Path log = project.resolve("build.log");
        Process maven = new ProcessBuilder(command).directory(project.toFile()).redirectErrorStream(true)
                .redirectOutput(log.toFile()).start();
        assertEquals(0, maven.waitFor(), () -> String.join(" ", command) + " failed in " + project + ":\n"
                + readQuietly(log));
    }

    private static String readQuietly(Path file) {
        try {
            return Files.readString(file);
        } catch (java.io.IOException e) {
            return e.toString();
        }
    }

    /** @return the lines of the server's messages.log at level E (error) */
    private List<String> errorLines() throws java.io.IOException {
        return server.logLines(l -> l.matches("^\\[[^\\]]+] \\S+ \\S+\\s+E .*"));
    }

    /** Waits for Liberty's CWWKZ0001I for the application; fails with the log's errors when it did not start. */
    private void awaitApplicationStarted() throws Exception {
        if (server.awaitLog("CWWKZ0001I: Application adopter started", List.of("CWWKZ0002E", "CWWKZ0012I"), WAIT)) {
            return;
        }
        String errors = Files.exists(server.messagesLog()) ? server.logLines(l -> l.contains(" E ")
                || l.contains("INBOX")).stream().reduce("", (a, b) -> a + "\n" + b) : "no log";
        throw new AssertionError("application adopter did not start:" + errors);
    }

    private void serverCommand(String action) throws Exception {
        int rc = server.run(action);
        assertTrue(rc == 0 || action.equals("stop") && rc == 1, "server " + action + " exited " + rc + "; see "
                + server.commandsLog());
    }
}
