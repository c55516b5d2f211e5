package io.github.jakartainbox.bench;

import io.github.jakartainbox.billing.SampleEvents;
import java.nio.file.Path;
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
import org.apache.kafka.clients.producer.KafkaProducer;

/**
 * Share groups against a classic consumer group (issue 42): the billing handler ({@link ShareBillingConsumers}) on
 * a topic of one partition, read by a classic grouped channel with one consumer (groups of up to 100, the baseline)
 * and by share channels ({@code group.type=share}, groups of up to 100) with 1, 2 and 4 consumers ({@code
 * concurrency}) on one server; once with the example's handler and once with a handler that also waits
 * {@value ShareBillingConsumers#CALL_MILLIS} ms in its transaction (a call to another service). Every channel runs on
 * the one server from its start, each on a topic and group of its own; the configurations are measured one after
 * the other. Throughput is a backlog over the time from its first send until all its invoices are in the database
 * (share groups keep no offsets); the CPU per event is that of the server, the database and the broker during the
 * measured backlogs. Ratios are to the classic baseline of the same handler in the same run.
 *
 * <p>Server {@code share-bench} (HTTP 9483) under target/liberty/wlp, database {@value #DB} (made afresh).
 *
 * <pre>
 * bin/benchmark share [--events 2000] [--call-events 1000] [--rounds 1] [--no-doc]
 * </pre>
 */
public final class ShareBenchmark {

    static final String DB = "inbox_bench_share";
    private static final int HTTP_PORT = 9483;
    private static final BenchServer SERVER = new BenchServer("share-bench", HTTP_PORT);
    /** A share consumer's {@code max.poll.records} with {@code share.acquire.mode=record_limit}. */
    static final int SHARE_POLL_RECORDS = 100;

    /** One configuration: its channel, its label, its consumers, whether the handler waits. */
    record Config(String channel, String label, int consumers, boolean share, boolean call) {
    }

    /** What one configuration measured. */
    record Result(Config config, Spread rate, Cpu.Use cpu, double cpuMillisPerEvent) {
    }

    private static final List<Config> CONFIGS = List.of(
            new Config("bench-classic", "classic group, 1 consumer (baseline)", 1, false, false),
            new Config("bench-share1", "share group, 1 consumer", 1, true, false),
            new Config("bench-share2", "share group, 2 consumers", 2, true, false),
            new Config("bench-share4", "share group, 4 consumers", 4, true, false),
            new Config("bench-classic-call", "classic group, 1 consumer (baseline)", 1, false, true),
            new Config("bench-share1-call", "share group, 1 consumer", 1, true, true),
            new Config("bench-share2-call", "share group, 2 consumers", 2, true, true),
            new Config("bench-share4-call", "share group, 4 consumers", 4, true, true));

    private final String bootstrap;
    private final String run = "share" + System.currentTimeMillis();
    private final Admin admin;
    private final KafkaProducer<String, String> producer;

    private ShareBenchmark(String bootstrap) {
        this.bootstrap = bootstrap;
        Properties props = new Properties();
        props.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        this.admin = Admin.create(props);
        this.producer = ScaleBenchmark.backlogProducer(bootstrap);
    }

    public static void main(String[] args) throws Exception {
        int events = 2000;
        int callEvents = 1000;
        int rounds = 1;
        boolean doc = true;
        String bootstrap = System.getenv().getOrDefault("KAFKA_BOOTSTRAP_SERVERS", "127.0.0.1:9092");
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--events" -> events = Integer.parseInt(args[++i]);
                case "--call-events" -> callEvents = Integer.parseInt(args[++i]);
                case "--rounds" -> rounds = Integer.parseInt(args[++i]);
                case "--bootstrap" -> bootstrap = args[++i];
                case "--no-doc" -> doc = false;
                default -> throw new IllegalArgumentException("unknown option " + args[i]
                        + "; use --events N --call-events N --rounds N --bootstrap host:port --no-doc");
            }
        }
        ShareBenchmark bench = new ShareBenchmark(bootstrap);
        try {
            String table = bench.run(events, callEvents, rounds);
            System.out.println();
            System.out.println(table);
            if (doc) {
                DocSection.write(Path.of("docs/benchmarks.md"), "share-benchmark", table);
                System.out.println("written to docs/benchmarks.md");
            }
        } finally {
            SERVER.run("stop");
            bench.producer.close();
            bench.admin.close();
        }
    }

    private String run(int events, int callEvents, int rounds) throws Exception {
        String loadBefore = Load.averages();
        BenchServer.recreateDatabase(DB);
        List<NewTopic> topics = new ArrayList<>();
        for (Config c : CONFIGS) {
            topics.add(new NewTopic(topic(c), 1, (short) 1));
        }
        topics.add(new NewTopic(run + ".idle", 1, (short) 1));
        admin.createTopics(topics).all().get();
        SERVER.write("written by ShareBenchmark for one run: the billing server plus the share benchmark's channels",
                variables(), BenchServer.billingWar().addClass(ShareBillingConsumers.class));
        SERVER.run("start");
        List<Result> results = new ArrayList<>();
        try {
            SERVER.awaitReady();
            for (Config c : CONFIGS) {
                results.add(measure(c, c.call() ? callEvents : events, rounds));
                Result r = results.get(results.size() - 1);
                System.out.printf("%s%s: %s events/s%n", c.label(), c.call() ? " (5 ms call)" : "", r.rate().rate());
            }
        } finally {
            SERVER.run("stop");
        }
        String loadAfter = Load.averages();
        long invoices = BenchServer.count(DB, "SELECT count(*) FROM invoice");
        long expected = 0;
        for (Config c : CONFIGS) {
            expected += (long) (c.call() ? callEvents : events) * (rounds + 1);
        }
        return table(events, callEvents, rounds, results, invoices, expected, loadBefore, loadAfter);
    }

    private String topic(Config c) {
        return run + "." + c.channel();
    }

    /** Sends a warm-up backlog, then {@code rounds} measured ones, each waited for in the database. */
    private Result measure(Config c, int events, int rounds) throws Exception {
        String prefix = run + "-" + c.channel();
        drain(c, SampleEvents.events(prefix + "-warm", events), prefix + "-warm-%");
        List<Double> rates = new ArrayList<>();
        Cpu cpu = Cpu.start();
        Instant from = Instant.now();
        for (int r = 1; r <= rounds; r++) {
            rates.add(drain(c, SampleEvents.events(prefix + "-r" + r, events), prefix + "-r" + r + "-%"));
        }
        Instant to = Instant.now();
        Cpu.Use use = cpu.stop(from, to);
        double seconds = Duration.between(from, to).toNanos() / 1e9;
        double ours = use.parts().getOrDefault("Liberty", 0.0) + use.parts().getOrDefault("PostgreSQL", 0.0)
                + use.parts().getOrDefault("Kafka broker", 0.0);
        return new Result(c, Spread.of(rates), use, ours * seconds * 1000 / ((double) events * rounds));
    }

    /** @return events per second from the first send until every event's invoice is in the database */
    private double drain(Config c, List<SampleEvents.Event> events, String orderIds) throws Exception {
        long start = System.nanoTime();
        SampleEvents.send(producer, topic(c), events);
        long deadline = System.nanoTime() + Duration.ofMinutes(5).toNanos();
        String sql = "SELECT count(*) FROM invoice WHERE order_id LIKE '" + orderIds + "'";
        while (BenchServer.count(DB, sql) < events.size()) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException(c.channel() + ": not all of " + events.size()
                        + " invoices within 5 minutes");
            }
            Thread.sleep(20);
        }
        return events.size() / ((System.nanoTime() - start) / 1e9);
    }

    /** The server's variables: every benchmark channel on its topic, the example's consumers idle. */
    private Map<String, String> variables() {
        String idle = run + ".idle";
        Map<String, String> v = new LinkedHashMap<>();
        v.put("http.port", Integer.toString(HTTP_PORT));
        v.put("db.name", DB);
        v.put("kafka.bootstrap.servers", bootstrap);
        v.put("inbox.purge.schedule", "off");
        v.put("mp.messaging.incoming.orders-billing.topic", idle);
        v.put("mp.messaging.incoming.orders-billing.group.id", idle + "-billing");
        v.put("mp.messaging.incoming.orders-analytics.topic", idle);
        v.put("mp.messaging.incoming.orders-analytics.group.id", idle);
        v.put("mp.messaging.incoming.invoices-mailer.topic", idle + ".issued");
        v.put("mp.messaging.incoming.invoices-mailer.group.id", idle + "-mailer");
        v.put("mp.messaging.incoming.orders-status.topic", idle);
        v.put("mp.messaging.incoming.orders-status.group.id", idle + "-status");
        for (Config c : CONFIGS) {
            String p = "mp.messaging.incoming." + c.channel() + ".";
            v.put(p + "connector", "inbox-kafka");
            v.put(p + "topic", topic(c));
            v.put(p + "group.id", run + "-" + c.channel());
            v.put(p + "key.deserializer", "org.apache.kafka.common.serialization.StringDeserializer");
            v.put(p + "value.deserializer", "org.apache.kafka.common.serialization.StringDeserializer");
            v.put(p + "group.max-size", "100");
            if (c.share()) {
                v.put(p + "group.type", "share");
                v.put(p + "share.auto.offset.reset", "earliest");
                v.put(p + "concurrency", Integer.toString(c.consumers()));
                // each poll acquires at most a group's records: by default (batch_optimized) the first consumer
                // acquires whole broker batches, up to the backlog, and the others find nothing to take
                v.put(p + "share.acquire.mode", "record_limit");
                v.put(p + "max.poll.records", Integer.toString(SHARE_POLL_RECORDS));
            } else {
                v.put(p + "auto.offset.reset", "earliest");
            }
        }
        return v;
    }

    private String table(int events, int callEvents, int rounds, List<Result> results, long invoices,
                         long expected, String loadBefore, String loadAfter) throws Exception {
        StringBuilder out = new StringBuilder();
        out.append(String.format("Run %s on %s, PostgreSQL %s, Open Liberty %s, Kafka broker at %s, a topic of 1 "
                        + "partition per configuration, groups of up to 100 in every channel, share consumers with "
                        + "share.acquire.mode=record_limit and max.poll.records=" + SHARE_POLL_RECORDS + ". Load "
                        + "averages (1, 5, 15 min) before: %s; after: %s. Command: `bin/benchmark share --events %d --call-events %d "
                        + "--rounds %d`. Per configuration a warm-up backlog, then %d of %,d events (%,d with the "
                        + "%d ms call).%n%n",
                Load.now(), Load.machine(), BenchServer.pgVersion(DB),
                System.getProperty("liberty.runtime.version", "26.0.0.3"), bootstrap, loadBefore, loadAfter,
                events, callEvents, rounds, rounds, events, callEvents, ShareBillingConsumers.CALL_MILLIS));
        out.append("| handler | configuration | events per second, median (min–max) | ÷ classic | CPU ms per event "
                + "(server, database, broker) | CPU during the measured backlogs, cores of 2 |\n");
        out.append("| --- | --- | ---: | ---: | ---: | --- |\n");
        double[] baseline = new double[2];
        for (Result r : results) {
            int h = r.config().call() ? 1 : 0;
            if (!r.config().share()) {
                baseline[h] = r.rate().median();
            }
            out.append(String.format("| %s | %s | %s | %.2f | %.2f | %s |%n",
                    r.config().call() ? "billing + " + ShareBillingConsumers.CALL_MILLIS + " ms call" : "billing",
                    r.config().label(), r.rate().rate(), r.rate().median() / baseline[h], r.cpuMillisPerEvent(),
                    r.cpu().describe()));
        }
        double share1 = results.get(1).rate().median() / baseline[0];
        double share4Call = results.get(7).rate().median() / baseline[1];
        out.append(String.format("%nTargets (medians, same run): with the %d ms call, 4 share consumers ÷ classic "
                        + "**%.2f** (target ≥ 3: %s); with the billing handler, 1 share consumer ÷ classic **%.2f** "
                        + "(target ≥ 0.8: %s).%n", ShareBillingConsumers.CALL_MILLIS, share4Call,
                share4Call >= 3 ? "met" : "not met", share1, share1 >= 0.8 ? "met" : "not met"));
        out.append(String.format("%nCheck: %,d invoices in the database for %,d events sent (%s).%n", invoices,
                expected, invoices == expected ? "one each" : "NOT one each"));
        return out.toString();
    }
}
