package io.github.jakartainbox.bench;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.github.jakartainbox.bench.ClaimContenders.Contender;
import io.github.jakartainbox.inbox.claim.InboxClaimForBenchmarks;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * The claim primitive alone, one claim per transaction, against the peers' equivalents and the bare statement, in
 * one JVM on one connection pool and one database, and PostgreSQL's own rate for the same inserts (pgbench), in
 * the same run. New ids (every claim a first claim) and duplicates (every claim a repeat), 1 and 4 threads.
 * Contenders take turns within each iteration, in a rotating order, so that the machine's other load falls on all
 * of them alike. Prints the tables and writes them into docs/benchmarks.md.
 *
 * <pre>
 * bin/benchmark claims [--seconds 2] [--iterations 5] [--warmup 1] [--no-doc]
 * </pre>
 */
public final class ClaimBenchmark {

    static final String DB = "inbox_bench_claim";
    static final int SEEDED = 20_000;
    static final int POOL = 4;
    static final int ROUND_TRIP_SAMPLE = 500;

    enum Mode {
        NEW("new ids"), DUPLICATE("duplicates");

        final String label;

        Mode(String label) {
            this.label = label;
        }
    }

    record Config(Mode mode, int threads) {
        String label() {
            return mode.label + ", " + threads + (threads == 1 ? " thread" : " threads");
        }
    }

    /** Something measured in claims (or transactions) per second. */
    interface Measured {
        String name();

        double measure(Config config, int seconds) throws Exception;
    }

    private ClaimBenchmark() {
    }

    public static void main(String[] args) throws Exception {
        int seconds = 2;
        int iterations = 5;
        int warmup = 1;
        boolean doc = true;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--seconds" -> seconds = Integer.parseInt(args[++i]);
                case "--iterations" -> iterations = Integer.parseInt(args[++i]);
                case "--warmup" -> warmup = Integer.parseInt(args[++i]);
                case "--no-doc" -> doc = false;
                default -> throw new IllegalArgumentException("unknown option " + args[i]
                        + "; use --seconds N --iterations N --warmup N --no-doc");
            }
        }
        String loadBefore = Load.averages();
        recreateDatabase();
        PGSimpleDataSource pg = new PGSimpleDataSource();
        pg.setServerNames(new String[] {"127.0.0.1"});
        pg.setPortNumbers(new int[] {5432});
        pg.setDatabaseName(DB);
        pg.setUser("postgres");
        pg.setSslMode("disable");
        pg.setGssEncMode("disable");
        pg.setSocketFactory(RoundTrips.class.getName());
        HikariConfig hikari = new HikariConfig();
        hikari.setDataSource(pg);
        hikari.setMaximumPoolSize(POOL);
        hikari.setMinimumIdle(POOL);
        hikari.setPoolName("bench");
        String pgVersion;
        try (HikariDataSource pool = new HikariDataSource(hikari)) {
            byte[] fingerprint = MessageDigest.getInstance("SHA-256")
                    .digest("{\"event_id\":\"...\",\"order\":42}".getBytes(StandardCharsets.UTF_8));
            List<Contender> contenders = ClaimContenders.create(pool, fingerprint);
            String[] duplicates = duplicateIds();
            try (Connection c = pool.getConnection(); Statement s = c.createStatement()) {
                for (String sql : contenders.stream().map(Contender::seedSql).distinct().toList()) {
                    try (PreparedStatement seed = c.prepareStatement(sql)) {
                        seed.setArray(1, c.createArrayOf("text", duplicates));
                        seed.executeUpdate();
                    }
                }
                s.execute("VACUUM ANALYZE");
                try (ResultSet r = s.executeQuery("SHOW server_version")) {
                    r.next();
                    pgVersion = r.getString(1);
                }
            }

            List<Measured> measured = new ArrayList<>();
            for (Contender contender : contenders) {
                measured.add(jdbc(contender, duplicates));
            }
            boolean pgbench = Pgbench.available();
            if (pgbench) {
                String hex = HexFormat.of().formatHex(fingerprint);
                measured.add(ceiling("pgbench: jakarta-inbox claim INSERT", "inbox",
                        InboxClaimForBenchmarks.claimSql().replace("VALUES (?, ?, ?, now())",
                                "VALUES ('billing', %s, '\\x" + hex + "'::bytea, now())")));
                measured.add(ceiling("pgbench: floor INSERT", "floor",
                        "INSERT INTO floor_claim (consumer, event_id) VALUES ('billing', %s) ON CONFLICT DO NOTHING"));
            } else {
                System.out.println("pgbench not found: no ceiling rows (apt-get install postgresql-client)");
            }

            Map<String, long[]> roundTrips = new LinkedHashMap<>();
            for (Contender contender : contenders) {
                roundTrips.put(contender.name(), new long[] {
                        roundTrips(contender, Mode.NEW, duplicates), roundTrips(contender, Mode.DUPLICATE, duplicates)});
            }

            List<Config> configs = List.of(new Config(Mode.NEW, 1), new Config(Mode.NEW, 4),
                    new Config(Mode.DUPLICATE, 1), new Config(Mode.DUPLICATE, 4));
            System.out.printf("Claim benchmark: %d contenders, %d configurations, %d warm-up + %d measured iterations of"
                    + " %d s each: about %d s%n", measured.size(), configs.size(), warmup, iterations, seconds,
                    (long) measured.size() * configs.size() * (warmup + iterations) * seconds);
            Map<String, Map<Config, Spread>> results = new LinkedHashMap<>();
            for (Measured m : measured) {
                results.put(m.name(), new LinkedHashMap<>());
            }
            for (Config config : configs) {
                Map<String, List<Double>> samples = new LinkedHashMap<>();
                for (int iteration = -warmup; iteration < iterations; iteration++) {
                    for (int k = 0; k < measured.size(); k++) {
                        Measured m = measured.get(Math.floorMod(k + iteration, measured.size()));
                        double rate = m.measure(config, seconds);
                        if (iteration >= 0) {
                            samples.computeIfAbsent(m.name(), n -> new ArrayList<>()).add(rate);
                        }
                    }
                    System.out.printf("  %s: iteration %d of %d done%n", config.label(), iteration + warmup + 1,
                            warmup + iterations);
                }
                samples.forEach((name, values) -> results.get(name).put(config, Spread.of(values)));
            }
            String loadAfter = Load.averages();

            String tables = tables(configs, results, roundTrips, contenders, iterations, seconds, warmup, pgVersion,
                    loadBefore, loadAfter);
            System.out.println();
            System.out.println(tables);
            if (doc) {
                DocSection.write(Path.of("docs/benchmarks.md"), "claim-benchmark", tables);
                System.out.println("written to docs/benchmarks.md");
            }
        }
    }

    private static String tables(List<Config> configs, Map<String, Map<Config, Spread>> results,
                                 Map<String, long[]> roundTrips, List<Contender> contenders, int iterations,
                                 int seconds, int warmup, String pgVersion, String loadBefore, String loadAfter) {
        StringBuilder out = new StringBuilder();
        out.append(String.format("Run %s on %s, PostgreSQL %s (127.0.0.1, default settings), pool of %d connections "
                        + "(HikariCP). Load averages (1, 5, 15 min) before: %s; after: %s. %d measured iterations of %d s "
                        + "per figure after %d warm-up, contenders in rotating order.%n%n", Load.now(), Load.machine(),
                pgVersion, POOL, loadBefore, loadAfter, iterations, seconds, warmup));
        out.append("Claims per second, median (min–max) of the iterations; each claim is one transaction.\n\n");
        header(out, configs, "round trips, new", "round trips, duplicate");
        results.forEach((name, figures) -> {
            out.append("| ").append(name).append(" |");
            configs.forEach(c -> out.append(' ').append(figures.get(c).rate()).append(" |"));
            long[] trips = roundTrips.get(name);
            if (trips != null) {
                out.append(String.format(" %.2f | %.2f |%n", trips[0] / (double) ROUND_TRIP_SAMPLE,
                        trips[1] / (double) ROUND_TRIP_SAMPLE));
            } else {
                out.append(" 1 | 1 |\n");
            }
        });
        String ours = contenders.get(0).name();
        out.append("\nThe jakarta-inbox claim's median ÷ each contender's median (> 1: the jakarta-inbox claim is faster).\n\n");
        ratioTable(out, configs, results, c -> results.get(ours).get(c).median(), false);
        String camel = results.keySet().stream().filter(n -> n.startsWith("Camel")).findFirst().orElse(null);
        if (camel != null) {
            out.append("\nAgainst Camel (issue 11: duplicates no slower than Camel's): each jakarta-inbox contender's "
                    + "median ÷ Camel's (≥ 1: no slower).\n\n");
            header(out, configs);
            results.forEach((name, figures) -> {
                if (name.startsWith("jakarta-inbox")) {
                    out.append("| ").append(name).append(" |");
                    configs.forEach(c -> out.append(String.format(" %.2f |",
                            figures.get(c).median() / results.get(camel).get(c).median())));
                    out.append('\n');
                }
            });
        }
        String ceiling = "pgbench: jakarta-inbox claim INSERT";
        if (results.containsKey(ceiling)) {
            out.append("\nEach contender's median as a share of the ceiling, pgbench running the claim INSERT alone "
                    + "(one statement, one round trip per transaction).\n\n");
            ratioTable(out, configs, results, c -> results.get(ceiling).get(c).median(), true);
        }
        return out.toString();
    }

    /** A table's header: the contender, one column per configuration, then the extra columns. */
    private static void header(StringBuilder out, List<Config> configs, String... extra) {
        out.append("| contender |");
        configs.forEach(c -> out.append(' ').append(c.label()).append(" |"));
        for (String column : extra) {
            out.append(' ').append(column).append(" |");
        }
        out.append("\n| --- |");
        configs.forEach(c -> out.append(" ---: |"));
        out.append(" ---: |".repeat(extra.length)).append('\n');
    }

    private static void ratioTable(StringBuilder out, List<Config> configs, Map<String, Map<Config, Spread>> results,
                                   java.util.function.ToDoubleFunction<Config> reference, boolean share) {
        header(out, configs);
        results.forEach((name, figures) -> {
            out.append("| ").append(name).append(" |");
            configs.forEach(c -> out.append(String.format(" %.2f |", share
                    ? figures.get(c).median() / reference.applyAsDouble(c)
                    : reference.applyAsDouble(c) / figures.get(c).median())));
            out.append('\n');
        });
    }

    /** Round trips for {@value #ROUND_TRIP_SAMPLE} claims on one thread, outside the timed runs. */
    private static long roundTrips(Contender contender, Mode mode, String[] duplicates) throws Exception {
        long before = RoundTrips.count();
        int offset = 0;
        for (int i = 0; i < ROUND_TRIP_SAMPLE; i += contender.batch()) {
            String[] ids = ids(contender.batch(), mode, duplicates, offset);
            offset += ids.length;
            int claimed = contender.claimAll(ids);
            if (claimed != (mode == Mode.NEW ? ids.length : 0)) {
                throw new IllegalStateException(contender.name() + ": " + claimed + " of " + ids.length
                        + " claimed for " + mode);
            }
        }
        return RoundTrips.count() - before;
    }

    private static Measured jdbc(Contender contender, String[] duplicates) {
        return new Measured() {
            public String name() {
                return contender.name();
            }

            public double measure(Config config, int seconds) throws Exception {
                return timed(contender, config, seconds, duplicates);
            }
        };
    }

    private static Measured ceiling(String name, String file, String insertWithIdPlaceholder) {
        return new Measured() {
            private final Map<Mode, Pgbench> scripts = new LinkedHashMap<>();

            public String name() {
                return name;
            }

            public double measure(Config config, int seconds) throws Exception {
                Pgbench pgbench = scripts.get(config.mode());
                if (pgbench == null) {
                    String script = config.mode() == Mode.NEW
                            ? String.format(insertWithIdPlaceholder, "gen_random_uuid()::text") + ";\n"
                            : "\\set k random(1, " + SEEDED + ")\n"
                            + String.format(insertWithIdPlaceholder, "md5(:k::text)::uuid::text") + ";\n";
                    pgbench = new Pgbench(DB, file + "-" + config.mode().name().toLowerCase(), script);
                    scripts.put(config.mode(), pgbench);
                }
                return pgbench.run(config.threads(), seconds);
            }
        };
    }

    /** Runs claims on {@code threads} threads for {@code seconds}; returns claims per second. */
    private static double timed(Contender contender, Config config, int seconds, String[] duplicates)
            throws Exception {
        AtomicLong done = new AtomicLong();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        CountDownLatch ready = new CountDownLatch(config.threads());
        CountDownLatch go = new CountDownLatch(1);
        long[] window = new long[2];
        List<Thread> threads = new ArrayList<>();
        for (int t = 0; t < config.threads(); t++) {
            Thread thread = new Thread(() -> {
                ready.countDown();
                try {
                    go.await();
                    long end = window[1];
                    long n = 0;
                    ThreadLocalRandom random = ThreadLocalRandom.current(); // this thread's
                    boolean fresh = config.mode() == Mode.NEW;
                    while (System.nanoTime() < end) {
                        String[] ids = ids(contender.batch(), config.mode(), duplicates,
                                random.nextInt(duplicates.length));
                        if (contender.claimAll(ids) != (fresh ? ids.length : 0)) {
                            throw new IllegalStateException(contender.name() + ": wrong claim result");
                        }
                        n += ids.length;
                    }
                    done.addAndGet(n);
                } catch (Throwable e) {
                    failure.compareAndSet(null, e);
                }
            });
            threads.add(thread);
            thread.start();
        }
        ready.await();
        window[0] = System.nanoTime();
        window[1] = window[0] + seconds * 1_000_000_000L;
        go.countDown();
        for (Thread thread : threads) {
            thread.join();
        }
        long elapsed = System.nanoTime() - window[0];
        if (failure.get() != null) {
            throw new IllegalStateException(contender.name() + " failed", failure.get());
        }
        return done.get() / (elapsed / 1e9);
    }

    /** {@code count} new ids, or {@code count} distinct seeded ids from {@code offset} on. */
    private static String[] ids(int count, Mode mode, String[] duplicates, int offset) {
        String[] ids = new String[count];
        for (int i = 0; i < count; i++) {
            ids[i] = mode == Mode.NEW ? newId() : duplicates[(offset + i) % duplicates.length];
        }
        return ids;
    }

    /** A random (version 4) UUID, without the shared SecureRandom of UUID.randomUUID(). */
    static String newId() {
        ThreadLocalRandom r = ThreadLocalRandom.current();
        long msb = (r.nextLong() & 0xffffffffffff0fffL) | 0x0000000000004000L;
        long lsb = (r.nextLong() & 0x3fffffffffffffffL) | 0x8000000000000000L;
        return new UUID(msb, lsb).toString();
    }

    /** Ids 1..SEEDED as PostgreSQL's {@code md5(k::text)::uuid::text} spells them, so pgbench can use the same. */
    static String[] duplicateIds() throws Exception {
        String[] ids = new String[SEEDED];
        MessageDigest md5 = MessageDigest.getInstance("MD5");
        for (int k = 1; k <= SEEDED; k++) {
            String hex = HexFormat.of().formatHex(md5.digest(Integer.toString(k).getBytes(StandardCharsets.US_ASCII)));
            ids[k - 1] = hex.substring(0, 8) + "-" + hex.substring(8, 12) + "-" + hex.substring(12, 16) + "-"
                    + hex.substring(16, 20) + "-" + hex.substring(20);
        }
        return ids;
    }

    private static void recreateDatabase() throws Exception {
        PGSimpleDataSource admin = new PGSimpleDataSource();
        admin.setServerNames(new String[] {"127.0.0.1"});
        admin.setDatabaseName("postgres");
        admin.setUser("postgres");
        try (Connection c = admin.getConnection(); Statement s = c.createStatement()) {
            s.execute("DROP DATABASE IF EXISTS " + DB + " WITH (FORCE)");
            s.execute("CREATE DATABASE " + DB);
        }
    }
}
