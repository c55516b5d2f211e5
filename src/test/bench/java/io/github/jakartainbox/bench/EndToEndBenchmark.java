package io.github.jakartainbox.bench;

import io.github.jakartainbox.billing.SampleEvents;
import io.github.jakartainbox.billing.SampleEvents.Event;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.common.TopicPartition;
import org.jboss.shrinkwrap.api.spec.WebArchive;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * End to end, Kafka -> Liberty -> PostgreSQL: the billing handler with {@code @Idempotent} delivered per message
 * (liberty-kafka: the example's {@code BillingConsumer} with its channel switched back) and grouped (the
 * {@code inbox-kafka} connector, groups of up to 10 and up to 100: {@link GroupedBillingConsumers}), against the same
 * handler without the inbox, per message ({@link PlainBillingConsumer}) and grouped; a replay of already-processed
 * events (all duplicates); and PostgreSQL's own ceiling for the grouped work (pgbench), in one run on one server.
 *
 * <p>Server "bench" under target/liberty/wlp (the packaged billing WAR plus the benchmark's consumers), HTTP
 * port 9481, database inbox_bench_e2e (dropped and made afresh), the broker at 127.0.0.1:9092 with topics and
 * consumer groups named after the run, one topic of one partition per variant.
 *
 * <p>Throughput: a backlog of events is sent (in well under a second) and the time until the consumer group's
 * committed offset reaches its end is taken, from the first send. Latency: events sent at a fixed rate, a low one
 * and a high one; latency is the invoice's {@code created_at} (set in the handler, inside the transaction, before
 * the commit) minus the send time.
 *
 * <pre>
 * bin/benchmark e2e [--events 10000] [--rounds 3] [--latency-events 500] [--rate 50] [--high-rate 400] [--no-doc]
 * bin/benchmark e2e --grouped-only [--events 20000] [--rounds 12]
 * bin/benchmark e2e --key-order [--events 20000] [--rounds 6]    # dead-letter.order=key ÷ none, no key parked
 * bin/benchmark e2e --memory [--events 10000] [--rounds 10]      # live heap after each backlog, GC share of CPU
 * </pre>
 */
public final class EndToEndBenchmark {

    static final String DB = "inbox_bench_e2e";
    static final String SERVER = "bench";
    static final int HTTP_PORT = 9481;
    static final Path WLP = BenchServer.WLP;
    private static final BenchServer LIBERTY = new BenchServer(SERVER, HTTP_PORT);

    private final String bootstrap;
    private final String run = "e2e" + System.currentTimeMillis();
    private final Map<String, Long> produced = new HashMap<>();
    private final Admin admin;
    private final KafkaProducer<String, String> producer;

    private EndToEndBenchmark(String bootstrap) {
        this.bootstrap = bootstrap;
        Properties props = new Properties();
        props.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        this.admin = Admin.create(props);
        this.producer = SampleEvents.producer(bootstrap);
    }

    /** One way of consuming, on its own topic and consumer group. */
    record Variant(String label, String topic, String group, int partitions) {
        Variant(String label, String topic, String group) {
            this(label, topic, group, 1);
        }
    }

    public static void main(String[] args) throws Exception {
        int events = 10000;
        int rounds = 3;
        int latencyEvents = 500;
        int rate = 50;
        int highRate = 400;
        boolean doc = true;
        boolean batchProbe = false;
        boolean groupedOnly = false;
        boolean offsetStores = false;
        boolean keyOrder = false;
        boolean memory = false;
        boolean profile = false;
        String bootstrap = System.getenv().getOrDefault("KAFKA_BOOTSTRAP_SERVERS", "127.0.0.1:9092");
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--events" -> events = Integer.parseInt(args[++i]);
                case "--rounds" -> rounds = Integer.parseInt(args[++i]);
                case "--latency-events" -> latencyEvents = Integer.parseInt(args[++i]);
                case "--rate" -> rate = Integer.parseInt(args[++i]);
                case "--high-rate" -> highRate = Integer.parseInt(args[++i]);
                case "--bootstrap" -> bootstrap = args[++i];
                case "--no-doc" -> doc = false;
                case "--batch-probe" -> batchProbe = true;
                case "--grouped-only" -> groupedOnly = true;
                case "--profile" -> profile = true;
                case "--offset-store" -> {
                    groupedOnly = true;
                    offsetStores = true;
                }
                case "--memory" -> memory = true;
                case "--key-order" -> {
                    groupedOnly = true;
                    keyOrder = true;
                }
                default -> throw new IllegalArgumentException("unknown option " + args[i] + "; use --events N "
                        + "--rounds N --latency-events N --rate N --high-rate N --bootstrap host:port --no-doc "
                        + "--grouped-only --offset-store --key-order --memory --profile");
            }
        }
        EndToEndBenchmark bench = new EndToEndBenchmark(bootstrap);
        bench.offsetStores = offsetStores;
        bench.keyOrder = keyOrder;
        try {
            if (batchProbe) {
                bench.batchProbe();
            } else if (memory) {
                System.out.println(bench.memory(events, rounds));
            } else if (groupedOnly && !profile) {
                System.out.println(bench.groupedOnly(events, rounds));
            } else {
                String tables = profile ? bench.profile(events, rounds)
                        : bench.run(events, rounds, latencyEvents, rate, highRate);
                System.out.println();
                System.out.println(tables);
                if (doc) {
                    DocSection.write(Path.of("docs/benchmarks.md"), profile ? "e2e-profile" : "e2e-benchmark", tables);
                    System.out.println("written to docs/benchmarks.md");
                }
            }
        } finally {
            LIBERTY.run("stop");
            bench.producer.close();
            bench.admin.close();
        }
    }

    /**
     * Deploys {@link BatchProbeConsumer} on a channel with {@code batch=true}, sends 5 events, and prints what the
     * server logged about that channel: whether liberty-kafka delivers batches at all.
     */
    private void batchProbe() throws Exception {
        Variant inbox = new Variant("unused", run + ".inbox", run + "-inbox");
        Variant plain = new Variant("unused", run + ".plain", run + "-plain");
        Variant batch = new Variant("batch probe", run + ".batch", run + "-batch");
        String idle = run + ".idle";
        admin.createTopics(List.of(new NewTopic(inbox.topic(), 1, (short) 1), new NewTopic(plain.topic(), 1, (short) 1),
                new NewTopic(batch.topic(), 1, (short) 1), new NewTopic(idle, 1, (short) 1))).all().get();
        recreateDatabase();
        writeServer(inbox, plain, idle, batch, null);
        LIBERTY.run("start");
        LIBERTY.awaitReady();
        SampleEvents.send(producer, batch.topic(), SampleEvents.events(run + "-batch", 5));
        Thread.sleep(15_000);
        Path log = WLP.resolve("usr/servers/" + SERVER + "/logs/messages.log");
        System.out.println("messages.log lines about the batch channel or the probe:");
        for (String line : Files.readAllLines(log)) {
            if (line.contains("bench-batch") || line.contains("BENCHBATCH") || line.contains("BatchProbeConsumer")
                    || line.contains("CWMRX")) {
                System.out.println("  " + line);
            }
        }
        System.out.println("committed offset of the batch channel's group: " + admin.listConsumerGroupOffsets(batch.group())
                .partitionsToOffsetAndMetadata().get());
    }

    /**
     * The inbox's own cost in steady state (printed, not written to the docs): grouped ≤ 100 with and without the
     * inbox only, alternating for many rounds (the server's rates still rise for a few minutes after its start, for
     * both variants, so the full run's three rounds catch part of that rise), no latency runs, then the two pgbench
     * lines of a group as the service sends it. Also the run to profile with {@code BENCH_JVM_OPTIONS}.
     *
     * @return the rates of each round, their medians and the two ratios
     */
    /** {@code --offset-store}: {@link #groupedOnly} compares the two offset stores instead of the inbox on and off. */
    private boolean offsetStores;

    /** {@code --key-order}: {@link #groupedOnly} compares {@code dead-letter.order=key} (no key parked, so only the
     *  delivery path's check) with {@code none}, on the same grouped claim. */
    private boolean keyOrder;

    /** @return whether the second grouped channel is the first's twin with one setting changed */
    private boolean twin() {
        return offsetStores || keyOrder;
    }

    private String groupedOnly(int events, int rounds) throws Exception {
        Variant g100 = new Variant(offsetStores ? "grouped ≤ 100, offsets in the database (offset-store=database)"
                : keyOrder ? "grouped ≤ 100, dead-letter.order=none" : "grouped ≤ 100, @Idempotent", run + ".g100",
                run + "-g100");
        Variant g10 = new Variant("unused", run + ".g10", run + "-g10");
        // with --offset-store, the channel otherwise used for one claim per event: the same grouped claim, Kafka's
        // offsets only
        Variant g100pm = new Variant(offsetStores ? "grouped ≤ 100, offsets in Kafka only (offset-store=kafka)"
                : keyOrder ? "grouped ≤ 100, dead-letter.order=key" : "unused", run + ".g100pm", run + "-g100pm");
        Variant g100plain = twin() ? g100pm
                : new Variant("grouped ≤ 100, inbox off", run + ".g100p", run + "-g100p");
        Variant perMessage = new Variant("unused", run + ".inbox", run + "-inbox");
        Variant plain = new Variant("unused", run + ".plain", run + "-plain");
        Variant unusedPlain = twin() ? new Variant("unused", run + ".g100p", run + "-g100p") : g100plain;
        start(List.of(g100, unusedPlain, g10, g100pm, perMessage, plain), perMessage, plain, g10, g100, unusedPlain,
                g100pm);
        List<Variant> variants = List.of(g100, g100plain);
        for (Variant v : variants) {
            drain(v, SampleEvents.events(run + "-warm-" + v.group(), events));
        }
        Map<String, List<Double>> rates = new LinkedHashMap<>();
        for (int r = 1; r <= rounds; r++) {
            List<Variant> order = r % 2 == 0 ? List.of(g100plain, g100) : variants;
            for (Variant v : order) {
                rates.computeIfAbsent(v.label(), k -> new ArrayList<>())
                        .add(drain(v, SampleEvents.events(run + "-r" + r + "-" + v.group(), events)));
            }
            System.out.printf("round %d of %d: %s%n", r, rounds, rates);
        }
        double with = Spread.of(rates.get(g100.label())).median();
        double without = Spread.of(rates.get(g100plain.label())).median();
        if (keyOrder) {
            return String.format("%s%ngrouped ≤ 100, dead-letter.order=key ÷ none: %.2f (%,.0f ÷ %,.0f a second; "
                    + "target ≥ 0.95)", rates, without / with, without, with);
        }
        if (offsetStores) {
            return String.format("%s%ngrouped ≤ 100, offsets in the database ÷ in Kafka only: %.2f (%,.0f ÷ %,.0f a "
                    + "second; target ≥ 0.95)", rates, with / without, with, without);
        }
        double[] ceiling = pgbenchCeiling(3);
        return String.format("%s%ngrouped ≤ 100 with ÷ without the inbox: %.2f (%,.0f ÷ %,.0f a second); "
                        + "PostgreSQL's own, a group as the service sends it: %.2f (1 client), %.2f (4 clients)",
                rates, with / without, with, without, ceiling[6] / ceiling[8], ceiling[7] / ceiling[9]);
    }

    /**
     * Starts the server with its channels, of which only grouped ≤ 100 with {@code @Idempotent} is sent to.
     *
     * @return that variant
     */
    private Variant startGroupedOnly() throws Exception {
        Variant g100 = new Variant("grouped ≤ 100 (inbox-kafka), @Idempotent", run + ".g100", run + "-g100");
        Variant g10 = new Variant("unused", run + ".g10", run + "-g10");
        Variant g100plain = new Variant("unused", run + ".g100p", run + "-g100p");
        Variant g100pm = new Variant("unused", run + ".g100pm", run + "-g100pm");
        Variant perMessage = new Variant("unused", run + ".inbox", run + "-inbox");
        Variant plain = new Variant("unused", run + ".plain", run + "-plain");
        start(List.of(g100, g100plain, g10, g100pm, perMessage, plain), perMessage, plain, g10, g100, g100plain,
                g100pm);
        return g100;
    }

    /**
     * {@code --memory}: whether the server's heap grows with the events it has seen. Grouped ≤ 100 with
     * {@code @Idempotent}, warmed up with one backlog, then {@code rounds} backlogs of {@code events}; after each, a
     * full collection of the server's heap and its live size. GC's share of the server's CPU is taken over the
     * backlogs only, without the forced collections.
     *
     * @return the live heap after each backlog and the GC share
     */
    private String memory(int events, int rounds) throws Exception {
        Variant g100 = startGroupedOnly();
        drain(g100, SampleEvents.events(run + "-warm", events));
        List<String> live = new ArrayList<>();
        List<Double> rates = new ArrayList<>();
        Cost.Window sum = null;
        try (Cost cost = new Cost(SERVER, DB)) {
            live.add(String.format("%.1f", cost.liveHeapAfterFullGc() / 1048576.0));
            for (int r = 1; r <= rounds; r++) {
                Cost.Reading before = cost.read();
                rates.add(drain(g100, SampleEvents.events(run + "-m" + r, events)));
                Cost.Window w = cost.between(before, cost.read());
                sum = sum == null ? w : sum.plus(w);
                live.add(String.format("%.1f", cost.liveHeapAfterFullGc() / 1048576.0));
                System.out.printf("backlog %d of %d: live heap %s MB%n", r, rounds, live.get(live.size() - 1));
            }
        }
        double gcShare = sum.gcMillis() / 10.0 / sum.cpuSeconds().getOrDefault(Cost.LIBERTY, 0.0);
        return String.format("Run %s on %s: `bin/benchmark e2e --memory --events %d --rounds %d`, %s, %,d events "
                        + "after a warm-up of %,d; %s events a second.%nLive heap after a full collection, MB: after "
                        + "the warm-up, then after each backlog: %s.%nGC pauses %.2f%% of the server's CPU over the "
                        + "backlogs (%,d ms of %.1f CPU s). Load averages (1, 5, 15 min) at the end: %s.", Load.now(),
                Load.machine(), events, rounds, g100.label(), (long) events * rounds, events,
                Spread.of(rates).rate(), String.join(", ", live), gcShare, sum.gcMillis(),
                sum.cpuSeconds().getOrDefault(Cost.LIBERTY, 0.0), Load.averages());
    }

    /**
     * {@code --profile}: where the server's CPU goes on the grouped path. The grouped ≤ 100 variant with
     * {@code @Idempotent} only, warmed up with two backlogs, then {@code rounds} backlogs under a JDK Flight Recorder
     * recording (target/e2e-profile.jfr, kept for {@code jfr print} or JDK Mission Control): CPU per event of each
     * process, the server's allocation and GC, the samples grouped by component ({@link Profile}), and PostgreSQL's
     * own CPU per event for a group sent as the service sends it (pgbench, 1 client).
     *
     * @return the tables
     */
    private String profile(int events, int rounds) throws Exception {
        Variant g100 = startGroupedOnly();
        for (int w = 1; w <= 2; w++) {
            drain(g100, SampleEvents.events(run + "-warm" + w, events));
        }
        Cost.Window window;
        List<Double> rates = new ArrayList<>();
        Path recording = Path.of("target/e2e-profile.jfr");
        try (Cost cost = new Cost(SERVER, DB)) {
            Profile.start(cost);
            Cost.Reading before = cost.read();
            for (int r = 1; r <= rounds; r++) {
                rates.add(drain(g100, SampleEvents.events(run + "-p" + r, events)));
            }
            window = cost.between(before, cost.read());
            Profile.stop(cost, recording);
        }
        pgbenchCeiling(3);
        long measured = (long) events * rounds;
        double libertyMicros = window.micros(Cost.LIBERTY, measured);
        return String.format("Run %s on %s: `bin/benchmark e2e --profile --events %d --rounds %d`, %s; %s events a "
                        + "second (recording on). Load averages (1, 5, 15 min) at the end: %s. Recording: %s.%n", Load.now(),
                Load.machine(), events, rounds, g100.label(), Spread.of(rates).rate(), Load.averages(), recording)
                + costTable(Map.of(g100.label(), window), measured)
                + String.format("%nThe server's CPU per event by component (JFR execution samples, %s):%n%n",
                g100.label())
                + Profile.read(recording).markdown(libertyMicros);
    }

    /**
     * Makes a topic of one partition per variant and the idle one, the database afresh, and the server with the
     * per-message and grouped channels, and starts it.
     */
    private void start(List<Variant> variants, Variant perMessage, Variant plain, Variant g10, Variant g100,
                       Variant g100plain, Variant g100pm) throws Exception {
        String idle = run + ".idle";
        List<NewTopic> topics = new ArrayList<>();
        variants.forEach(v -> topics.add(new NewTopic(v.topic(), 1, (short) 1)));
        topics.add(new NewTopic(idle, 1, (short) 1));
        admin.createTopics(topics).all().get();
        recreateDatabase();
        writeServer(perMessage, plain, idle, null, null, g10, g100, g100plain, g100pm);
        LIBERTY.run("start");
        LIBERTY.awaitReady();
    }

    private String run(int events, int rounds, int latencyEvents, int rate, int highRate) throws Exception {
        String loadBefore = Load.averages();
        Variant perMessage = new Variant("per-message (liberty-kafka), @Idempotent", run + ".inbox", run + "-inbox");
        Variant plain = new Variant("per-message (liberty-kafka), inbox off (@Transactional)", run + ".plain",
                run + "-plain");
        Variant g10 = new Variant("grouped ≤ 10 (inbox-kafka), @Idempotent", run + ".g10", run + "-g10");
        Variant g100 = new Variant("grouped ≤ 100 (inbox-kafka), @Idempotent", run + ".g100", run + "-g100");
        Variant g100plain = new Variant("grouped ≤ 100 (inbox-kafka), inbox off (@Transactional)", run + ".g100p",
                run + "-g100p");
        Variant g100pm = new Variant("grouped ≤ 100 (inbox-kafka), @Idempotent, one claim INSERT per event "
                + "(group.claim=per-message)", run + ".g100pm", run + "-g100pm");
        List<Variant> variants = List.of(perMessage, plain, g10, g100, g100pm, g100plain);
        start(variants, perMessage, plain, g10, g100, g100plain, g100pm);

        System.out.printf("warm-up: %d events to each variant, and a replay%n", events);
        List<Event> warm = SampleEvents.events(run + "-warm-g100", events);
        for (Variant v : variants) {
            drain(v, v == g100 ? warm : SampleEvents.events(run + "-warm-" + v.group(), events));
        }
        drain(g100, warm);

        Map<String, List<Double>> rates = new LinkedHashMap<>();
        Map<String, Cost.Window> costs = new LinkedHashMap<>();
        String replayLabel = "grouped ≤ 100, @Idempotent, replay (all duplicates)";
        try (Cost cost = new Cost(SERVER, DB)) {
            for (int r = 1; r <= rounds; r++) {
                List<Variant> order = new ArrayList<>(variants);
                if (r % 2 == 0) {
                    java.util.Collections.reverse(order);
                }
                List<Event> g100events = null;
                for (Variant v : order) {
                    List<Event> list = SampleEvents.events(run + "-r" + r + "-" + v.group(), events);
                    if (v == g100) {
                        g100events = list;
                    }
                    rates.computeIfAbsent(v.label(), k -> new ArrayList<>()).add(measured(cost, costs, v.label(), v,
                            list));
                }
                rates.computeIfAbsent(replayLabel, k -> new ArrayList<>()).add(measured(cost, costs, replayLabel,
                        g100, g100events));
                System.out.printf("round %d of %d: %s%n", r, rounds, rates);
            }
        }

        Map<String, double[]> low = new LinkedHashMap<>();
        Map<String, double[]> high = new LinkedHashMap<>();
        for (Variant v : variants) {
            low.put(v.label(), latency(v, latencyEvents, rate, "low"));
            high.put(v.label(), latency(v, latencyEvents, highRate, "high"));
        }
        double[] ceiling = pgbenchCeiling(0);
        String loadAfter = Load.averages();
        long invoices = count("SELECT count(*) FROM invoice");
        long expected = (long) events * (rounds * variants.size() + variants.size()) + latencyEvents * 2L * variants.size();
        return table(events, rounds, latencyEvents, rate, highRate, rates, low, high, replayLabel, perMessage, g100,
                g100plain, g100pm, ceiling, invoices, expected, loadBefore, loadAfter)
                + costTable(costs, (long) events * rounds);
    }

    /** Drains a backlog as {@link #drain} does and adds what the window cost to {@code costs} under {@code label}. */
    private double measured(Cost cost, Map<String, Cost.Window> costs, String label, Variant variant,
                            List<Event> events) throws Exception {
        Cost.Reading before = cost.read();
        double rate = drain(variant, events);
        costs.merge(label, cost.between(before, cost.read()), Cost.Window::plus);
        return rate;
    }

    /** PostgreSQL's CPU per event when pgbench sends a group as the service does (1 client), with and without the
     *  claim: microseconds, its database's backends and its shared processes together; NaN before a run. */
    private final double[] pgbenchCpuMicros = {Double.NaN, Double.NaN};

    /**
     * CPU per event of each process and the server's allocation, per variant: the windows of the measured rounds
     * (warm-up excluded), beside PostgreSQL's own CPU per event for the same statements sent by pgbench.
     */
    private String costTable(Map<String, Cost.Window> costs, long eventsPerVariant) {
        StringBuilder out = new StringBuilder(String.format("%nCPU and memory per event over the measured rounds "
                + "(%,d events per variant; CPU from /proc, allocation from the server's thread counters, GC from its "
                + "collectors' pause time):%n%n", eventsPerVariant));
        out.append("| variant | Liberty µs CPU | PostgreSQL backends µs | PostgreSQL shared µs | broker µs "
                + "| Liberty ÷ PostgreSQL | Liberty KB allocated | GC pauses, % of Liberty CPU |\n");
        out.append("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n");
        costs.forEach((label, w) -> {
            double liberty = w.micros(Cost.LIBERTY, eventsPerVariant);
            double pg = w.micros(Cost.PG_BACKENDS, eventsPerVariant) + w.micros(Cost.PG_SHARED, eventsPerVariant);
            out.append(String.format("| %s | %.0f | %.0f | %.0f | %.0f | %.2f | %.1f | %.1f |%n", label, liberty,
                    w.micros(Cost.PG_BACKENDS, eventsPerVariant), w.micros(Cost.PG_SHARED, eventsPerVariant),
                    w.micros(Cost.BROKER, eventsPerVariant), liberty / pg,
                    w.allocatedBytes() / 1024.0 / eventsPerVariant,
                    100.0 * w.gcMillis() / 1000 / Math.max(1e-9, w.cpuSeconds().get(Cost.LIBERTY))));
        });
        out.append(String.format("| pgbench, a group of 100 as the service sends it (claim, invoices, outbox rows), "
                + "1 client | – | %.0f (backends and shared) | | – | – | – | – |%n", pgbenchCpuMicros[0]));
        out.append(String.format("| pgbench, the same without the claim, 1 client | – | %.0f (backends and shared) | "
                + "| – | – | – | – |%n", pgbenchCpuMicros[1]));
        return out.toString();
    }

    /**
     * PostgreSQL's ceiling for the grouped work: pgbench running, per transaction, 100 times the claim's INSERT and
     * an invoice INSERT (what a group of 100 does, without Java, Liberty or Kafka), with 1 client and with 4; then
     * the same with the handler's third statement, its outbox row ({@code invoices.issued}), per event too. The
     * outbox rows are written pending, as the handler's are, under the relay's lease held by pgbench so that the
     * server's relay does not send them; they are deleted and the lease released afterwards. Then the handler's SQL
     * without the claim (invoice + outbox row). Each of these sends every statement on its own, a round trip each.
     *
     * <p>Last, the same rows as the service sends them ({@link #groupScript}): the group's claim as one multi-row
     * INSERT, its invoices and its outbox rows each as one INSERT of 100 rows (the driver's rewrite of a JDBC batch),
     * with and without the claim: PostgreSQL's own "with ÷ without the inbox" for this handler, the bound of the Kafka
     * variants' ratio. The per-statement pair above overstates the claim's share: one statement in three there, one
     * in 201 here.
     *
     * @param fromStep the first pair to run (0: all; 3: the two of a group as the service sends it)
     * @return events per second, each pair with 1 client and with 4: claim + invoice; claim + invoice + outbox row;
     *         invoice + outbox row; then as sent by the service: claim + invoices + outbox rows; invoices + outbox
     *         rows. NaN when pgbench is missing, or for the pairs before {@code fromStep}
     */
    private double[] pgbenchCeiling(int fromStep) throws Exception {
        double[] ceiling = new double[10];
        java.util.Arrays.fill(ceiling, Double.NaN);
        if (!Pgbench.available()) {
            return ceiling;
        }
        for (int step = fromStep; step < 5; step++) {
            String script;
            if (step < 3) {
                boolean withClaim = step < 2;
                boolean withOutbox = step > 0;
                StringBuilder b = new StringBuilder("\\set base random(1, 2000000000)\nBEGIN;\n");
                for (int i = 0; i < 100; i++) {
                    if (withClaim) {
                        b.append("INSERT INTO inbox (consumer, event_id, payload_sha256, processed_at) VALUES ")
                                .append("('pgbench', (:base)::text || '-").append(i)
                                .append("', NULL, now()) ON CONFLICT DO NOTHING;\n");
                    }
                    b.append(INVOICE_SQL.replace("{i}", Integer.toString(i)));
                    if (withOutbox) {
                        b.append(OUTBOX_SQL);
                    }
                }
                script = b.append("COMMIT;\n").toString();
            } else {
                script = groupScript(step == 3);
            }
            try (Connection c = source(DB).getConnection(); Statement st = c.createStatement()) {
                st.execute("UPDATE outbox_relay_state SET owner = 'pgbench', leased_until = now() + interval '1 hour' "
                        + "WHERE id = 'outbox'");
            }
            try {
                Pgbench pgbench = new Pgbench(DB, "e2e-group-" + step, script);
                if (step >= 3) {
                    double[] tps = new double[1];
                    Map<String, Double> cpu = Cost.cpuDuring(SERVER, DB, () -> tps[0] = pgbench.run(1, 10));
                    ceiling[step * 2] = tps[0] * 100;
                    pgbenchCpuMicros[step - 3] = (cpu.get(Cost.PG_BACKENDS) + cpu.get(Cost.PG_SHARED)) * 1e6
                            / (tps[0] * 100 * 10);
                } else {
                    ceiling[step * 2] = pgbench.run(1, 10) * 100;
                }
                ceiling[step * 2 + 1] = pgbench.run(4, 10) * 100;
            } finally {
                try (Connection c = source(DB).getConnection(); Statement st = c.createStatement()) {
                    st.execute("DELETE FROM invoice WHERE order_id = 'pgbench'");
                    st.execute("DELETE FROM inbox WHERE consumer = 'pgbench'");
                    st.execute("DELETE FROM outbox WHERE topic = 'pgbench.ceiling'");
                    st.execute("UPDATE outbox_relay_state SET owner = NULL, leased_until = NULL WHERE id = 'outbox' "
                            + "AND owner = 'pgbench'");
                }
            }
        }
        return ceiling;
    }

    /** One invoice INSERT of the pgbench scripts; {@code {i}} is the event's index in the transaction. */
    private static final String INVOICE_SQL = "INSERT INTO invoice (order_id, event_id, customer_email, amount, "
            + "currency, created_at, issued_event_id) VALUES ('pgbench', (:base)::text || '-{i}', "
            + "'pgbench@example.com', 1.00, 'EUR', now(), '0190a0b1-7c2d-7e3f-8a4b-5c6d7e8f9a0b');\n";
    /** One outbox row INSERT of the pgbench scripts, the size of the handler's {@code invoices.issued} row. */
    private static final String OUTBOX_SQL = "INSERT INTO outbox (event_id, topic, record_key, payload, headers) "
            + "VALUES (gen_random_uuid(), 'pgbench.ceiling', 'pgbench', '{\"event_id\":\""
            + "0190a0b1-7c2d-7e3f-8a4b-5c6d7e8f9a0b\",\"invoice_id\":123456,\"order_id\":\"pgbench\","
            + "\"customer_email\":\"pgbench@example.com\",\"amount\":\"1.00\",\"currency\":\"EUR\"}', "
            + "'{}'::jsonb);\n";

    /**
     * A group of 100 events as the service sends it to PostgreSQL: the claim as one multi-row INSERT in event-id
     * order with a 32-byte fingerprint per row (the form of {@code InboxClaim.claimAll}; the ids are made by the
     * statement itself, where the library binds them as an array), then the invoices as one multi-row INSERT
     * (EclipseLink's JDBC batch, rewritten by the driver: {@code reWriteBatchedInserts}), then the outbox rows likewise
     * (the outbox's batch before the commit), then the commit.
     *
     * @param withClaim whether the transaction claims its events in the inbox
     * @return the pgbench script
     */
    static String groupScript(boolean withClaim) {
        StringBuilder b = new StringBuilder("\\set base random(1, 2000000000)\nBEGIN;\n");
        if (withClaim) {
            b.append("INSERT INTO inbox (consumer, event_id, payload_sha256, processed_at) SELECT 'pgbench', e, ")
                    .append("sha256(e::bytea), now() FROM (SELECT (:base)::text || '-' || g AS e ")
                    .append("FROM generate_series(0, 99) AS g) AS t ORDER BY e ")
                    .append("ON CONFLICT (consumer, event_id) DO NOTHING RETURNING event_id;\n");
        }
        b.append(multiRow(INVOICE_SQL, 100)).append(multiRow(OUTBOX_SQL, 100));
        return b.append("COMMIT;\n").toString();
    }

    /**
     * @param single one of the scripts' single-row INSERTs ({@code {i}} standing for the row's number)
     * @return the same rows as one multi-row INSERT, as pgjdbc rewrites a batch with {@code reWriteBatchedInserts}
     */
    static String multiRow(String single, int rows) {
        int values = single.indexOf(" VALUES ") + " VALUES ".length();
        String row = single.substring(values, single.lastIndexOf(';'));
        StringBuilder b = new StringBuilder(single.substring(0, values));
        for (int i = 0; i < rows; i++) {
            b.append(i == 0 ? "" : ", ").append(row.replace("{i}", Integer.toString(i)));
        }
        return b.append(";\n").toString();
    }

    private String table(int events, int rounds, int latencyEvents, int rate, int highRate,
                         Map<String, List<Double>> rates, Map<String, double[]> low, Map<String, double[]> high,
                         String replayLabel, Variant perMessage, Variant g100, Variant g100plain, Variant g100pm,
                         double[] ceiling,
                         long invoices, long expected, String loadBefore, String loadAfter) throws Exception {
        StringBuilder out = new StringBuilder();
        out.append(String.format("Run %s on %s, PostgreSQL %s, Open Liberty %s (one server, datasource pool %s), "
                        + "Kafka broker at %s (topic of 1 partition per variant). Load averages (1, 5, 15 min) before: %s; "
                        + "after: %s. Throughput: %d rounds of %,d events per variant after a warm-up round, variants "
                        + "alternating. Latency: %,d events per variant at %d a second (low) and at %d a second (high).%n%n",
                Load.now(), Load.machine(), pgVersion(), System.getProperty("liberty.runtime.version", "26.0.0.3"),
                "20", bootstrap, loadBefore, loadAfter, rounds, events, latencyEvents, rate, highRate));
        out.append(String.format("| variant | messages per second, median (min–max) | p50 / p99 ms at %d/s "
                + "| p50 / p99 ms at %d/s |%n", rate, highRate));
        out.append("| --- | ---: | ---: | ---: |\n");
        rates.forEach((label, values) -> {
            double[] l = low.get(label);
            double[] h = high.get(label);
            out.append(String.format("| %s | %s | %s | %s |%n", label, Spread.of(values).rate(),
                    l == null ? "–" : String.format("%.1f / %.1f", l[0], l[1]),
                    h == null ? "–" : String.format("%.1f / %.1f", h[0], h[1])));
        });
        out.append(String.format("| pgbench, 100 × (claim + invoice INSERT) per transaction, 1 client / 4 clients "
                + "| %,.0f / %,.0f events/s | – | – |%n", ceiling[0], ceiling[1]));
        out.append(String.format("| pgbench, 100 × (claim + invoice + outbox row INSERT) per transaction, the "
                + "handler's SQL, 1 client / 4 clients | %,.0f / %,.0f events/s | – | – |%n", ceiling[2], ceiling[3]));
        out.append(String.format("| pgbench, 100 × (invoice + outbox row INSERT) per transaction, the handler's SQL "
                + "without the claim, 1 client / 4 clients | %,.0f / %,.0f events/s | – | – |%n", ceiling[4], ceiling[5]));
        out.append(String.format("| pgbench, a group of 100 as the service sends it: the claim as one multi-row INSERT, "
                + "the 100 invoices and the 100 outbox rows as one INSERT each, 1 client / 4 clients | %,.0f / %,.0f "
                + "events/s | – | – |%n", ceiling[6], ceiling[7]));
        out.append(String.format("| pgbench, the same without the claim, 1 client / 4 clients | %,.0f / %,.0f "
                + "events/s | – | – |%n", ceiling[8], ceiling[9]));
        double perMsg = Spread.of(rates.get(perMessage.label())).median();
        double grouped = Spread.of(rates.get(g100.label())).median();
        double groupedOff = Spread.of(rates.get(g100plain.label())).median();
        double groupedPerEventClaim = Spread.of(rates.get(g100pm.label())).median();
        double replay = Spread.of(rates.get(replayLabel)).median();
        out.append(String.format("%nRatios of medians against the issue's targets: grouped ≤ 100 ÷ per-message "
                        + "**%.2f** (target ≥ 5); grouped with ÷ without the inbox **%.2f** (target ≥ 0.95); grouped ÷ "
                        + "pgbench ceiling (4 clients) **%.2f** (target ≥ 0.35; ÷ 1 client %.2f), ÷ the ceiling of the "
                        + "handler's SQL with its outbox row (4 clients) **%.2f** (÷ 1 client %.2f); pgbench's own with ÷ "
                        + "without the claim, the handler's SQL one statement at a time: %.2f (1 client), %.2f (4 "
                        + "clients), as the service sends it: **%.2f** (1 client), **%.2f** (4 clients); grouped ÷ the "
                        + "ceiling of the service's own SQL (a group as it sends it, 4 clients) **%.2f** (÷ 1 client "
                        + "%.2f); replay ÷ first "
                        + "delivery, grouped **%.2f**; p50 latency at %d/s grouped ≤ 100 ÷ per-message %.2f; grouped ≤ 100 with "
                        + "the multi-row claim ÷ with one claim INSERT per event **%.2f**.%n",
                grouped / perMsg, grouped / groupedOff, grouped / ceiling[1], grouped / ceiling[0],
                grouped / ceiling[3], grouped / ceiling[2], ceiling[2] / ceiling[4], ceiling[3] / ceiling[5],
                ceiling[6] / ceiling[8], ceiling[7] / ceiling[9], grouped / ceiling[7], grouped / ceiling[6],
                replay / grouped,
                rate, low.get(g100.label())[0] / low.get(perMessage.label())[0], grouped / groupedPerEventClaim));
        out.append(String.format("%nCheck: %,d invoices in the database for %,d first deliveries (replays made none: %s).%n",
                invoices, expected, invoices == expected ? "yes" : "NO"));
        return out.toString();
    }

    /**
     * Sends the events as a backlog; returns messages per second from the first send until the consumer group's
     * committed offset covers them all (polled every 20 ms). The connector commits every 500 records or 500 ms, so
     * the end can be seen up to about 0.5 s late: a bias against the faster figure, the same method for all.
     * (The time of the last INBOX0101I log line was tried for replays: the server's log did not keep every line.)
     */
    private double drain(Variant variant, List<Event> events) throws Exception {
        long target = produced.getOrDefault(variant.topic(), 0L) + events.size();
        long start = System.nanoTime();
        SampleEvents.send(producer, variant.topic(), events);
        produced.put(variant.topic(), target);
        awaitCommitted(variant, target, Duration.ofMinutes(5));
        return events.size() / ((System.nanoTime() - start) / 1e9);
    }

    /** Sends events at a fixed rate; returns p50 and p99 of invoice created_at minus send time, in ms. */
    private double[] latency(Variant variant, int count, int rate, String tag) throws Exception {
        List<Event> events = SampleEvents.events(run + "-lat" + tag + "-" + variant.group(), count);
        Map<String, Instant> sentAt = Paced.send(producer, variant.topic(), events, rate);
        long target = produced.getOrDefault(variant.topic(), 0L) + count;
        produced.put(variant.topic(), target);
        awaitCommitted(variant, target, Duration.ofMinutes(5));
        long[] micros = new long[count];
        int n = 0;
        try (Connection c = source(DB).getConnection();
             PreparedStatement q = c.prepareStatement("SELECT event_id, created_at FROM invoice WHERE order_id LIKE ?")) {
            q.setString(1, run + "-lat" + tag + "-" + variant.group() + "-%");
            try (ResultSet rs = q.executeQuery()) {
                while (rs.next()) {
                    Instant created = rs.getObject(2, OffsetDateTime.class).toInstant();
                    Duration d = Duration.between(sentAt.get(rs.getString(1)), created);
                    micros[n++] = d.toNanos() / 1000;
                }
            }
        }
        if (n != count) {
            throw new IllegalStateException(variant.label() + ": " + n + " invoices for " + count + " events");
        }
        return new double[] {Spread.percentile(micros, 50) / 1000.0, Spread.percentile(micros, 99) / 1000.0};
    }

    private void awaitCommitted(Variant variant, long target, Duration timeout) throws Exception {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline) {
            Map<TopicPartition, OffsetAndMetadata> offsets = admin.listConsumerGroupOffsets(variant.group())
                    .partitionsToOffsetAndMetadata().get();
            long committed = 0;
            for (int p = 0; p < variant.partitions(); p++) {
                OffsetAndMetadata o = offsets.get(new TopicPartition(variant.topic(), p));
                committed += o == null ? 0 : o.offset();
            }
            if (committed >= target) {
                return;
            }
            Thread.sleep(20);
        }
        throw new IllegalStateException(variant.label() + ": offset " + target + " not committed within " + timeout);
    }

    /** A liberty-kafka channel of the benchmark's test consumers, reading the variant's topic in its group. */
    private static void channel(Map<String, String> v, String channel, Variant variant) {
        String prefix = "mp.messaging.incoming." + channel + ".";
        v.put(prefix + "connector", "liberty-kafka");
        v.put(prefix + "topic", variant.topic());
        v.put(prefix + "group.id", variant.group());
        v.put(prefix + "key.deserializer", "org.apache.kafka.common.serialization.StringDeserializer");
        v.put(prefix + "value.deserializer", "org.apache.kafka.common.serialization.StringDeserializer");
        v.put(prefix + "auto.offset.reset", "earliest");
        v.put(prefix + "enable.auto.commit", "false");
    }

    private void writeServer(Variant inbox, Variant plain, String idle, Variant batch, Variant two,
                             Variant... grouped) throws Exception {
        Map<String, String> v = new LinkedHashMap<>();
        v.put("http.port", Integer.toString(HTTP_PORT));
        v.put("db.name", DB);
        v.put("kafka.bootstrap.servers", bootstrap);
        v.put("inbox.purge.schedule", "off");
        v.put("mp.messaging.incoming.orders-billing.topic", inbox.topic());
        v.put("mp.messaging.incoming.orders-billing.group.id", inbox.group());
        v.put("mp.messaging.incoming.orders-analytics.topic", idle);
        v.put("mp.messaging.incoming.orders-analytics.group.id", idle);
        // the outbox's invoices.issued and the mailer's group of this run only: on a broker shared with a running
        // service, the service's topic and group would mix the two databases' invoices (BILLING0128E)
        v.put("mp.messaging.incoming.invoices-mailer.topic", idle + ".issued");
        v.put("mp.messaging.incoming.invoices-mailer.group.id", idle + "-mailer");
        // and order-status's, which would otherwise join the service's group on the service's orders.confirmed
        v.put("mp.messaging.incoming.orders-status.topic", idle);
        v.put("mp.messaging.incoming.orders-status.group.id", idle + "-status");
        channel(v, "bench-plain", plain);
        if (grouped.length == 4) {
            // the per-message variant: the example's channel back on liberty-kafka
            v.put("mp.messaging.incoming.orders-billing.connector", "liberty-kafka");
            String[] names = {"bench-g10", "bench-g100", "bench-g100-plain", "bench-g100-pm"};
            int[] sizes = {10, 100, 100, 100};
            v.put("mp.messaging.incoming.bench-g100-pm.group.claim", twin() ? "multi-row" : "per-message");
            if (offsetStores) {
                v.put("mp.messaging.incoming.bench-g100-pm.offset-store", "kafka");
            }
            if (keyOrder) {
                v.put("inbox.consumer.billing-g100pm.dead-letter.order", "key");
            }
            for (int i = 0; i < names.length; i++) {
                channel(v, names[i], grouped[i]);
                v.put("mp.messaging.incoming." + names[i] + ".connector", "inbox-kafka");
                v.put("mp.messaging.incoming." + names[i] + ".group.max-size", Integer.toString(sizes[i]));
            }
        }
        for (String channel : two == null ? List.<String>of() : List.of("bench-two-a", "bench-two-b")) {
            channel(v, channel, two);
        }
        if (batch != null) {
            channel(v, "bench-batch", batch);
            v.put("mp.messaging.incoming.bench-batch.batch", "true");
        }
        WebArchive war = BenchServer.billingWar().addClass(PlainBillingConsumer.class);
        if (batch != null) {
            war.addClass(BatchProbeConsumer.class);
        }
        if (two != null) {
            war.addClass(TwoChannelBillingConsumer.class);
        }
        if (grouped.length > 0) {
            war.addClass(GroupedBillingConsumers.class);
        }
        LIBERTY.write("written by EndToEndBenchmark for one run: the billing server plus a channel without the inbox",
                v, war);
    }

    static PGSimpleDataSource source(String database) {
        return BenchServer.source(database);
    }

    private static void recreateDatabase() throws Exception {
        BenchServer.recreateDatabase(DB);
    }

    private static long count(String sql) throws Exception {
        return BenchServer.count(DB, sql);
    }

    private static String pgVersion() throws Exception {
        return BenchServer.pgVersion(DB);
    }
}
