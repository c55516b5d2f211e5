package io.github.jakartainbox.bench;

import io.github.jakartainbox.billing.SampleEvents;
import io.github.jakartainbox.billing.SampleEvents.Event;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * How grouped throughput grows with channels and servers (issue 26): the example's own consumer {@code billing}
 * ({@code inbox-kafka}, groups of up to 100, the invoice, its outbox row and the relay) on a topic of
 * {@value #PARTITIONS} partitions, with 1, 2 and 4 copies of the channel ({@code concurrency}) on one server, and on
 * two servers; against PostgreSQL's ceiling for the same SQL, a group as the service sends it, with pgbench on 1, 2
 * and 4 clients, measured in the same run.
 *
 * <p>Servers {@code scale-a} (HTTP 9491) and {@code scale-b} (9492) under target/liberty/wlp, the packaged billing
 * WAR; database {@value #DB} (dropped and made afresh); the broker at 127.0.0.1:9092 with a topic and consumer group
 * per configuration, named after the run. Each configuration starts its servers, drains a warm-up backlog (which also
 * waits out the group's rebalances), then {@code rounds} backlogs of {@code events}: throughput is the backlog over
 * the time from its first send until the group's committed offsets cover it (the e2e benchmark's method). During the
 * measured rounds the CPU per process, the database's commits and its WAL flushes ({@code pg_stat_wal.wal_sync}) are
 * read, to say what bounds the figure.
 *
 * <pre>
 * bin/benchmark scale [--events 20000] [--rounds 3] [--no-doc]
 * </pre>
 */
public final class ScaleBenchmark {

    static final String DB = "inbox_bench_scale";
    static final int PARTITIONS = 4;
    private static final BenchServer A = new BenchServer("scale-a", 9491);
    private static final BenchServer B = new BenchServer("scale-b", 9492);

    /** One configuration: copies of the channel per server, and servers. */
    record Config(String label, int channels, int servers) {
    }

    /** What one configuration measured. */
    record Result(Config config, Spread rate, Cpu.Use cpu, double commitsPerSecond, double walSyncsPerSecond,
                  double sendSeconds) {
    }

    private final String bootstrap;
    private final String run = "scale" + System.currentTimeMillis();
    private final Admin admin;
    private final KafkaProducer<String, String> producer;

    private ScaleBenchmark(String bootstrap) {
        this.bootstrap = bootstrap;
        Properties props = new Properties();
        props.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        this.admin = Admin.create(props);
        this.producer = backlogProducer(bootstrap);
    }

    /**
     * @param bootstrap the broker
     * @return a producer of a backlog: acknowledged by all replicas, in large batches, so that the backlog is on the
     *         broker well before the consumers are through it (also ShareBenchmark's)
     */
    static KafkaProducer<String, String> backlogProducer(String bootstrap) {
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.LINGER_MS_CONFIG, "10");
        p.put(ProducerConfig.BATCH_SIZE_CONFIG, "262144");
        p.put(ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, "1"); // KAFKA-15591, as SampleEvents.producer
        return new KafkaProducer<>(p);
    }

    public static void main(String[] args) throws Exception {
        int events = 20000;
        int rounds = 3;
        boolean doc = true;
        String bootstrap = System.getenv().getOrDefault("KAFKA_BOOTSTRAP_SERVERS", "127.0.0.1:9092");
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--events" -> events = Integer.parseInt(args[++i]);
                case "--rounds" -> rounds = Integer.parseInt(args[++i]);
                case "--bootstrap" -> bootstrap = args[++i];
                case "--no-doc" -> doc = false;
                default -> throw new IllegalArgumentException("unknown option " + args[i]
                        + "; use --events N --rounds N --bootstrap host:port --no-doc");
            }
        }
        ScaleBenchmark bench = new ScaleBenchmark(bootstrap);
        try {
            String table = bench.run(events, rounds);
            System.out.println();
            System.out.println(table);
            if (doc) {
                DocSection.write(Path.of("docs/benchmarks.md"), "scale-benchmark", table);
                System.out.println("written to docs/benchmarks.md");
            }
        } finally {
            A.run("stop");
            B.run("stop");
            bench.producer.close();
            bench.admin.close();
        }
    }

    private String run(int events, int rounds) throws Exception {
        String loadBefore = Load.averages();
        BenchServer.recreateDatabase(DB);
        List<Config> configs = List.of(new Config("1 server, 1 channel", 1, 1),
                new Config("1 server, 2 channels", 2, 1), new Config("1 server, 4 channels", 4, 1),
                new Config("2 servers, 1 channel each", 1, 2), new Config("2 servers, 2 channels each", 2, 2));
        List<Result> results = new ArrayList<>();
        for (Config config : configs) {
            results.add(measure(config, events, rounds));
            System.out.printf("%s: %s events/s%n", config.label(), results.get(results.size() - 1).rate().rate());
        }
        double[] ceiling = ceiling();
        String loadAfter = Load.averages();
        long invoices = BenchServer.count(DB, "SELECT count(*) FROM invoice");
        long expected = (long) events * (rounds + 1) * configs.size();
        return table(events, rounds, results, ceiling, invoices, expected, loadBefore, loadAfter);
    }

    private Result measure(Config config, int events, int rounds) throws Exception {
        String name = run + "-c" + config.channels() + "s" + config.servers();
        String topic = name.replace('-', '.');
        String idle = name + ".idle";
        admin.createTopics(List.of(new NewTopic(topic, PARTITIONS, (short) 1), new NewTopic(idle, 1, (short) 1)))
                .all().get();
        List<BenchServer> servers = config.servers() == 1 ? List.of(A) : List.of(A, B);
        for (BenchServer server : servers) {
            server.write("written by ScaleBenchmark for one configuration: the billing server on the run's topic",
                    variables(server == A ? 9491 : 9492, topic, name, idle, config.channels()), BenchServer.billingWar());
        }
        for (BenchServer server : servers) {
            server.run("start");
        }
        for (BenchServer server : servers) {
            server.awaitReady();
        }
        try {
            long produced = 0;
            produced += events;
            drain(topic, name, SampleEvents.events(name + "-warm", events), produced);
            List<Double> rates = new ArrayList<>();
            double send = 0;
            Cpu cpu = Cpu.start();
            long[] before = databaseCounters();
            Instant from = Instant.now();
            for (int r = 1; r <= rounds; r++) {
                produced += events;
                double[] d = drain(topic, name, SampleEvents.events(name + "-r" + r, events), produced);
                rates.add(d[0]);
                send = Math.max(send, d[1]);
            }
            Instant to = Instant.now();
            long[] after = databaseCounters();
            double seconds = Duration.between(from, to).toNanos() / 1e9;
            return new Result(config, Spread.of(rates), cpu.stop(from, to), (after[0] - before[0]) / seconds,
                    (after[1] - before[1]) / seconds, send);
        } finally {
            for (BenchServer server : servers) {
                server.run("stop");
            }
        }
    }

    /** The server's variables: the billing channel on the configuration's topic, the other consumers idle. */
    private Map<String, String> variables(int httpPort, String topic, String group, String idle, int channels) {
        Map<String, String> v = new LinkedHashMap<>();
        v.put("http.port", Integer.toString(httpPort));
        v.put("db.name", DB);
        v.put("kafka.bootstrap.servers", bootstrap);
        v.put("inbox.purge.schedule", "off");
        v.put("billing.orders-confirmed.partitions", Integer.toString(PARTITIONS));
        v.put("mp.messaging.incoming.orders-billing.topic", topic);
        v.put("mp.messaging.incoming.orders-billing.group.id", group);
        v.put("mp.messaging.incoming.orders-billing.concurrency", Integer.toString(channels));
        v.put("mp.messaging.incoming.orders-analytics.topic", idle);
        v.put("mp.messaging.incoming.orders-analytics.group.id", idle);
        v.put("mp.messaging.incoming.orders-analytics.concurrency", "1");
        // the run's own invoices.issued and mailer group (the mailer waits: no SMTP server), order-status idle too
        v.put("mp.messaging.incoming.invoices-mailer.topic", idle + ".issued");
        v.put("mp.messaging.incoming.invoices-mailer.group.id", idle + "-mailer");
        v.put("mp.messaging.incoming.orders-status.topic", idle);
        v.put("mp.messaging.incoming.orders-status.group.id", idle + "-status");
        return v;
    }

    /**
     * Sends the backlog and waits until the group's committed offsets reach {@code target}.
     *
     * @return events per second from the first send until then, and the seconds the send itself took
     */
    private double[] drain(String topic, String group, List<Event> events, long target) throws Exception {
        long start = System.nanoTime();
        SampleEvents.send(producer, topic, events);
        double send = (System.nanoTime() - start) / 1e9;
        long deadline = System.nanoTime() + Duration.ofMinutes(5).toNanos();
        while (true) {
            Map<TopicPartition, OffsetAndMetadata> offsets = admin.listConsumerGroupOffsets(group)
                    .partitionsToOffsetAndMetadata().get();
            long committed = 0;
            for (int p = 0; p < PARTITIONS; p++) {
                OffsetAndMetadata o = offsets.get(new TopicPartition(topic, p));
                committed += o == null ? 0 : o.offset();
            }
            if (committed >= target) {
                return new double[] {events.size() / ((System.nanoTime() - start) / 1e9), send};
            }
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException(group + ": offset " + target + " not committed within 5 minutes");
            }
            Thread.sleep(20);
        }
    }

    /** @return the database's commits and the cluster's WAL flushes so far */
    private static long[] databaseCounters() throws Exception {
        try (Connection c = BenchServer.source(DB).getConnection(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT (SELECT xact_commit FROM pg_stat_database WHERE datname = '" + DB
                     + "'), (SELECT wal_sync FROM pg_stat_wal)")) {
            rs.next();
            return new long[] {rs.getLong(1), rs.getLong(2)};
        }
    }

    /**
     * pgbench running a group of 100 as the service sends it ({@link EndToEndBenchmark#groupScript}) with 1, 2 and 4
     * clients, 10 s each, under the relay's lease (so that no server sends its outbox rows; none runs now anyway).
     *
     * @return events per second with 1, 2 and 4 clients; NaN without pgbench
     */
    private static double[] ceiling() throws Exception {
        double[] ceiling = {Double.NaN, Double.NaN, Double.NaN};
        if (!Pgbench.available()) {
            return ceiling;
        }
        try (Connection c = BenchServer.source(DB).getConnection(); Statement st = c.createStatement()) {
            st.execute("UPDATE outbox_relay_state SET owner = 'pgbench', leased_until = now() + interval '1 hour' "
                    + "WHERE id = 'outbox'");
        }
        try {
            Pgbench pgbench = new Pgbench(DB, "scale-group", EndToEndBenchmark.groupScript(true));
            int[] clients = {1, 2, 4};
            for (int i = 0; i < clients.length; i++) {
                ceiling[i] = pgbench.run(clients[i], 10) * 100;
            }
        } finally {
            try (Connection c = BenchServer.source(DB).getConnection(); Statement st = c.createStatement()) {
                st.execute("DELETE FROM invoice WHERE order_id = 'pgbench'");
                st.execute("DELETE FROM inbox WHERE consumer = 'pgbench'");
                st.execute("DELETE FROM outbox WHERE topic = 'pgbench.ceiling'");
                st.execute("UPDATE outbox_relay_state SET owner = NULL, leased_until = NULL WHERE id = 'outbox' "
                        + "AND owner = 'pgbench'");
            }
        }
        return ceiling;
    }

    /** @return whether the cores were the bound, and who used them most */
    private static String bound(Cpu.Use use) {
        Map.Entry<String, Double> top = use.parts().entrySet().stream().max(Map.Entry.comparingByValue())
                .orElse(null);
        String largest = top == null ? "" : String.format("; the largest share %s (%.2f cores)", top.getKey(),
                top.getValue());
        return (use.busy() >= 0.9 * use.cores() ? String.format("the cores were saturated (%s busy), so CPU bounds it",
                use.busyText()) : String.format("the cores were not saturated (%s busy): the consumers wait, on the "
                + "commits' WAL flushes and the broker's fetches", use.busyText())) + largest;
    }

    private String table(int events, int rounds, List<Result> results, double[] ceiling, long invoices,
                         long expected, String loadBefore, String loadAfter) throws Exception {
        StringBuilder out = new StringBuilder();
        out.append(String.format("Run %s on %s, PostgreSQL %s, Open Liberty %s (datasource pool 20 per server, "
                        + "groups of up to 100), Kafka broker at %s, a topic of %d partitions per configuration. Load "
                        + "averages (1, 5, 15 min) before: %s; after: %s. Command: `bin/benchmark scale --events %d "
                        + "--rounds %d`. Per configuration a warm-up backlog of %,d events, then %d of %,d.%n%n",
                Load.now(), Load.machine(), BenchServer.pgVersion(DB),
                System.getProperty("liberty.runtime.version", "26.0.0.3"), bootstrap, PARTITIONS, loadBefore,
                loadAfter, events, rounds, events, rounds, events));
        out.append("| configuration | events per second, median (min–max) | ÷ 1 channel | ÷ pgbench 4 clients "
                + "| database commits/s | WAL flushes/s | CPU during the measured rounds, cores of 2 |\n");
        out.append("| --- | ---: | ---: | ---: | ---: | ---: | --- |\n");
        double one = results.get(0).rate().median();
        Result best = results.get(0);
        for (Result r : results) {
            if (r.rate().median() > best.rate().median()) {
                best = r;
            }
            out.append(String.format("| %s | %s | %.2f | %.2f | %,.0f | %,.0f | %s |%n", r.config().label(),
                    r.rate().rate(), r.rate().median() / one, r.rate().median() / ceiling[2], r.commitsPerSecond(),
                    r.walSyncsPerSecond(), r.cpu().describe()));
        }
        out.append(String.format("| pgbench, a group of 100 as the service sends it (claim, invoices, outbox rows, "
                + "commit), 1 / 2 / 4 clients | %,.0f / %,.0f / %,.0f | – | – | – | – | – |%n", ceiling[0], ceiling[1],
                ceiling[2]));
        double two = results.get(1).rate().median();
        out.append(String.format("%nRatios (medians, same run): 2 channels ÷ 1 channel **%.2f** (target ≥ 1.3: %s); "
                        + "best (%s) ÷ pgbench's 4-client ceiling **%.2f** (target ≥ 0.5: %s), ÷ its 1-client "
                        + "ceiling %.2f; pgbench's own 2 ÷ 1 clients %.2f, 4 ÷ 1 clients %.2f.%n",
                two / one, two / one >= 1.3 ? "met" : "not met", best.config().label(),
                best.rate().median() / ceiling[2], best.rate().median() / ceiling[2] >= 0.5 ? "met" : "not met",
                best.rate().median() / ceiling[0], ceiling[1] / ceiling[0], ceiling[2] / ceiling[0]));
        out.append(String.format("%nWhat bounds the best configuration: %s. The slowest send of a backlog took "
                + "%.2f s (the producer is not the bound when that is well under the backlog's drain time).%n",
                bound(best.cpu()), results.stream().mapToDouble(Result::sendSeconds).max().orElse(0)));
        out.append(String.format("%nCheck: %,d invoices in the database for %,d events sent (%s).%n", invoices,
                expected, invoices == expected ? "one each" : "NOT one each"));
        return out.toString();
    }
}
