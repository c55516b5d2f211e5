package io.github.jakartainbox.outbox;

import io.github.jakartainbox.bench.DocSection;
import io.github.jakartainbox.bench.Spread;
import io.github.jakartainbox.testing.Db;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.Callback;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.StringSerializer;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * The outbox relay's latency from commit to broker acknowledgement (issue 10), at a low and a high commit rate.
 *
 * <p>Writers commit one outbox row per transaction (plain JDBC, the row {@link Outbox#record} inserts) at a fixed
 * rate and, right after each commit, wake the relay as {@link Outbox}'s JTA synchronization does. The relay is the
 * library's {@link RelayWorker} (lease, pending scan, at most one row per key per round, mark delivered) driven by
 * the same coalescing wake loop as {@link OutboxRelay}, with a fallback poll every second. The producer has the
 * relay's settings; a callback notes when the broker acknowledged each record. Latency = acknowledgement − commit.
 *
 * <p>Baseline, in the same run and at the same rate: the same writers send the record straight to the broker
 * (no database, no relay) and measure send → acknowledgement, the floor any relay adds to. Also measured: the
 * relay with the commit wake-up off, only the poll (what a polling relay costs). Not in the figures: Liberty's
 * managed executor and the JTA synchronization (one task submission after the commit).
 *
 * <pre>
 * bin/benchmark outbox [--low 20 --high 500 --seconds 15 --keys 50 --db outbox_bench --bootstrap host:port --no-doc]
 * </pre>
 */
public final class RelayLatencyBenchmark {

    private static final Path DOC = Path.of("docs/benchmarks.md");
    private static final int WRITERS = 4;

    private RelayLatencyBenchmark() {
    }

    /** One measured run. */
    record Result(String what, double rateAsked, double rateDone, int n, double p50, double p99, double max) {
    }

    public static void main(String[] args) throws Exception {
        int low = 20;
        int high = 500;
        int seconds = 15;
        int keys = 50;
        String db = "outbox_bench";
        String bootstrap = System.getenv().getOrDefault("KAFKA_BOOTSTRAP_SERVERS", "127.0.0.1:9092");
        boolean doc = true;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--low" -> low = Integer.parseInt(args[++i]);
                case "--high" -> high = Integer.parseInt(args[++i]);
                case "--seconds" -> seconds = Integer.parseInt(args[++i]);
                case "--keys" -> keys = Integer.parseInt(args[++i]);
                case "--db" -> db = args[++i];
                case "--bootstrap" -> bootstrap = args[++i];
                case "--no-doc" -> doc = false;
                default -> throw new IllegalArgumentException("unknown option " + args[i] + "; use --low N --high N "
                        + "--seconds N --keys N --db NAME --bootstrap host:port --no-doc");
            }
        }
        Db.recreate(db);
        PGSimpleDataSource dataSource = new PGSimpleDataSource();
        dataSource.setURL("jdbc:postgresql://127.0.0.1:5432/" + db);
        dataSource.setUser("postgres");
        try (Connection c = dataSource.getConnection(); Statement s = c.createStatement();
             InputStream ddl = RelayLatencyBenchmark.class.getResourceAsStream(
                     "/io/github/jakartainbox/outbox/db/migration/V1__outbox.sql")) {
            s.execute(new String(ddl.readAllBytes(), StandardCharsets.UTF_8));
        }
        String topic = "outbox-bench-" + UUID.randomUUID().toString().substring(0, 8);
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap))) {
            admin.createTopics(List.of(new NewTopic(topic, 3, (short) 1))).all().get();
        }
        Bench bench = new Bench(dataSource, bootstrap, topic, keys);
        try {
            bench.relay(low, 3, true); // warm-up: JIT, connections, producer metadata
            bench.bare(low, 3);
            List<Result> results = new ArrayList<>();
            for (int rate : new int[] {low, high}) {
                results.add(bench.bare(rate, seconds));
                results.add(bench.relay(rate, seconds, true));
            }
            results.add(bench.relay(low, seconds, false));
            String table = table(results, low, high, seconds, keys);
            System.out.println();
            System.out.println(table);
            if (doc) {
                DocSection.write(DOC, "outbox-relay", table);
                System.out.println("written to " + DOC);
            }
        } finally {
            bench.close();
        }
    }

    private static String table(List<Result> r, int low, int high, int seconds, int keys) {
        StringBuilder t = new StringBuilder(String.format(Locale.ROOT, "Outbox relay, commit → broker acknowledgement "
                + "(ms), %d s per run, %d writers, %d keys, 3 partitions, %d cores; baseline: the same records sent "
                + "straight to the broker at the same rate, same run.%n%n", seconds, WRITERS, keys,
                Runtime.getRuntime().availableProcessors()));
        t.append("| path | rate asked / done (per s) | records | p50 | p99 | max | p50 / baseline p50 | p99 / baseline p99 |\n");
        t.append("| --- | --: | --: | --: | --: | --: | --: | --: |\n");
        Result baseline = null;
        for (Result x : r) {
            if (x.what().startsWith("baseline")) {
                baseline = x;
            }
            Result b = x.what().startsWith("baseline") ? null : baseline;
            if (x.what().contains("poll only")) {
                b = r.get(0); // the low rate's baseline
            }
            t.append(String.format(Locale.ROOT, "| %s | %,.0f / %,.0f | %,d | %.1f | %.1f | %.1f | %s | %s |%n",
                    x.what(), x.rateAsked(), x.rateDone(), x.n(), x.p50(), x.p99(), x.max(),
                    b == null ? "1" : String.format(Locale.ROOT, "%.1f", x.p50() / b.p50()),
                    b == null ? "1" : String.format(Locale.ROOT, "%.1f", x.p99() / b.p99())));
        }
        return t.toString();
    }

    /** The relay, its producer and the writers. */
    private static final class Bench {

        private final PGSimpleDataSource dataSource;
        private final String topic;
        private final int keys;
        private final Map<String, Long> acked = new ConcurrentHashMap<>();
        private final KafkaProducer<String, String> producer;
        private final RelayWorker worker;
        private final ExecutorService relayThread = Executors.newSingleThreadExecutor();
        private final ScheduledExecutorService poller = Executors.newSingleThreadScheduledExecutor();
        private final AtomicBoolean requested = new AtomicBoolean();
        private final AtomicBoolean running = new AtomicBoolean();

        Bench(PGSimpleDataSource dataSource, String bootstrap, String topic, int keys) {
            this.dataSource = dataSource;
            this.topic = topic;
            this.keys = keys;
            Properties p = OutboxRelay.relayDefaults(); // the relay's own producer settings
            p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
            producer = new KafkaProducer<>(p, new StringSerializer(), new StringSerializer()) {
                @Override
                public Future<RecordMetadata> send(ProducerRecord<String, String> record) {
                    Header id = record.headers().lastHeader(OutboxRelay.EVENT_ID_HEADER);
                    Callback noteAck = (metadata, error) -> {
                        if (error == null) {
                            acked.put(new String(id.value(), StandardCharsets.UTF_8), System.nanoTime());
                        }
                    };
                    return super.send(record, noteAck);
                }
            };
            worker = new RelayWorker(dataSource, producer, new RelayWorker.Settings(
                    defaultOf(OutboxConfig.BATCH_SIZE), defaultOf(OutboxConfig.LEASE),
                    defaultOf(OutboxConfig.RETRY_DELAY), defaultOf(OutboxConfig.RETRY_MAX_DELAY),
                    defaultOf(OutboxConfig.FAILING_AFTER)));
            poller.scheduleWithFixedDelay(this::wake, 0, defaultOf(OutboxConfig.POLL_INTERVAL).toMillis(),
                    TimeUnit.MILLISECONDS);
        }

        /** OutboxRelay.wake: at most one drain at a time, a wake during a drain makes it go round again. */
        void wake() {
            requested.set(true);
            if (running.compareAndSet(false, true)) {
                relayThread.execute(() -> {
                    try {
                        while (requested.getAndSet(false)) {
                            worker.drain();
                        }
                    } catch (Exception e) {
                        System.out.println("relay: " + e);
                    } finally {
                        running.set(false);
                        if (requested.get()) {
                            wake();
                        }
                    }
                });
            }
        }

        /** Rows committed at {@code rate} for {@code seconds}, each waking the relay unless {@code wakeAfterCommit} is off. */
        Result relay(int rate, int seconds, boolean wakeAfterCommit) throws Exception {
            Map<String, Long> committed = new ConcurrentHashMap<>();
            double done = paced(rate, seconds, i -> {
                try (Connection c = dataSource.getConnection();
                     PreparedStatement insert = c.prepareStatement("INSERT INTO outbox (event_id, topic, record_key, "
                             + "payload, headers) VALUES (?, ?, ?, ?, '{}'::jsonb)")) {
                    c.setAutoCommit(false);
                    UUID id = EventIdsV7.next();
                    insert.setObject(1, id);
                    insert.setString(2, topic);
                    insert.setString(3, "key-" + (i % keys));
                    insert.setString(4, "{\"event_id\":\"" + id + "\",\"n\":" + i + "}");
                    insert.executeUpdate();
                    c.commit();
                    committed.put(id.toString(), System.nanoTime());
                }
                if (wakeAfterCommit) {
                    wake();
                }
            });
            return result(wakeAfterCommit ? "relay, woken at commit" : "relay, poll only (PT1S), no wake-up", rate,
                    done, committed);
        }

        /** The baseline: the same records sent straight to the broker at {@code rate}. */
        Result bare(int rate, int seconds) throws Exception {
            Map<String, Long> sent = new ConcurrentHashMap<>();
            double done = paced(rate, seconds, i -> {
                String id = EventIdsV7.next().toString();
                ProducerRecord<String, String> record = new ProducerRecord<>(topic, "key-" + (i % keys),
                        "{\"event_id\":\"" + id + "\",\"n\":" + i + "}");
                record.headers().add(OutboxRelay.EVENT_ID_HEADER, id.getBytes(StandardCharsets.UTF_8));
                sent.put(id, System.nanoTime());
                producer.send(record);
            });
            return result("baseline: producer send → ack", rate, done, sent);
        }

        /** Waits for every acknowledgement (up to 60 s) and makes the figures. */
        private Result result(String what, int rate, double done, Map<String, Long> started) throws Exception {
            long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
            while (!acked.keySet().containsAll(started.keySet()) && System.nanoTime() < deadline) {
                wake();
                Thread.sleep(50);
            }
            long[] micros = started.entrySet().stream().filter(e -> acked.containsKey(e.getKey()))
                    .mapToLong(e -> (acked.get(e.getKey()) - e.getValue()) / 1000).toArray();
            if (micros.length < started.size()) {
                System.out.printf("%s: %d of %d records not acknowledged within 60 s (left out)%n", what,
                        started.size() - micros.length, started.size());
            }
            Result r = new Result(what, rate, done, micros.length, Spread.percentile(micros, 50) / 1000,
                    Spread.percentile(micros, 99) / 1000, Spread.percentile(micros, 100) / 1000);
            System.out.printf(Locale.ROOT, "%-40s %5d/s asked, %7.1f/s done, n %6d: p50 %.1f ms, p99 %.1f ms, max %.1f ms%n",
                    what, rate, done, r.n(), r.p50(), r.p99(), r.max());
            return r;
        }

        /** An action taking the record's number. */
        @FunctionalInterface
        interface Step {
            void run(int i) throws Exception;
        }

        /**
         * Runs {@code step} for numbers 0, 1, ... at {@code rate} per second in total for {@code seconds}, spread over
         * {@value #WRITERS} writers, each step started at its planned time (or at once when behind).
         *
         * @return the rate achieved
         */
        private static double paced(int rate, int seconds, Step step) throws Exception {
            int total = rate * seconds;
            AtomicInteger next = new AtomicInteger();
            long start = System.nanoTime() + 50_000_000L;
            ExecutorService writers = Executors.newFixedThreadPool(WRITERS);
            List<Future<?>> futures = new ArrayList<>();
            for (int w = 0; w < WRITERS; w++) {
                futures.add(writers.submit(() -> {
                    for (int i = next.getAndIncrement(); i < total; i = next.getAndIncrement()) {
                        long due = start + (long) (i * 1e9 / rate);
                        long wait = due - System.nanoTime();
                        if (wait > 0) {
                            TimeUnit.NANOSECONDS.sleep(wait);
                        }
                        step.run(i);
                    }
                    return null;
                }));
            }
            for (Future<?> f : futures) {
                f.get();
            }
            writers.shutdown();
            return total / ((System.nanoTime() - start) / 1e9);
        }

        void close() {
            poller.shutdownNow();
            worker.stop();
            relayThread.shutdown();
            producer.close(Duration.ofSeconds(5));
        }
    }

    /** @return the key's default, the relay's setting when nothing is configured */
    private static <T> T defaultOf(io.github.jakartainbox.inbox.ConfigKey<T> key) {
        return key.parse(key.defaultText().orElseThrow());
    }
}
