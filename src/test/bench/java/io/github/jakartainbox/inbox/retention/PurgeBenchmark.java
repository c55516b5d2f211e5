package io.github.jakartainbox.inbox.retention;

import io.github.jakartainbox.testing.TestDatabases;
import io.github.jakartainbox.inbox.InboxConfig;
import io.github.jakartainbox.inbox.claim.InboxClaim;
import io.github.jakartainbox.inbox.database.InboxDatabase;
import io.github.jakartainbox.inbox.eventid.EventMonths;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicBoolean;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * Purge benchmark: seeds a year of inbox rows at 10,000 a day (3.65 M), then purges everything older than 14 days
 * both ways, batched DELETE (plain mode) and partition drop (monthly mode), while a consumer keeps claiming and
 * inserting; prints the purge time and the consumer's latency during the purge against the same consumer idle,
 * measured in the same run. Uses database inbox_bench (dropped and made afresh) on 127.0.0.1:5432.
 *
 * <pre>
 * mvn -q test-compile exec:java -Dexec.classpathScope=test -Dexec.mainClass=io.github.jakartainbox.inbox.retention.PurgeBenchmark \
 *     [-Dexec.args="--per-day 10000 --days 365"]
 * </pre>
 */
public final class PurgeBenchmark {

    private static final String DB = "inbox_bench";
    private static final Duration RETENTION = Duration.ofDays(14);
    private static final int BATCH = Integer.parseInt(InboxConfig.PURGE_BATCH_SIZE.defaultText().orElseThrow());
    private static final int IDLE_OPS = 3000;

    private PurgeBenchmark() {
    }

    /** One mode's figures. */
    record Figures(String mode, long seeded, long purged, Duration seed, Duration purge, double[] idle,
                   double[] during, int opsDuring) {
    }

    public static void main(String[] args) throws Exception {
        int perDay = 10_000;
        int days = 365;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--per-day" -> perDay = Integer.parseInt(args[++i]);
                case "--days" -> days = Integer.parseInt(args[++i]);
                default -> throw new IllegalArgumentException("unknown option " + args[i] + "; use --per-day N --days N");
            }
        }
        List<Figures> figures = List.of(run(false, perDay, days), run(true, perDay, days));
        System.out.printf("%nInbox purge, %,d rows (%,d a day for %d days), retention %d days, batch %d; consumer latency "
                + "in ms (claim + business insert, one transaction)%n%n", (long) perDay * days, perDay, days,
                RETENTION.toDays(), BATCH);
        System.out.println("| mode | rows purged | purge time | p50 idle | p99 idle | p50 during | p99 during | p99 ratio | consumer tx during purge |");
        System.out.println("| --- | --- | --- | --- | --- | --- | --- | --- | --- |");
        for (Figures f : figures) {
            System.out.printf("| %s | %,d | %.1f s | %.2f | %.2f | %.2f | %.2f | %.2f | %,d |%n", f.mode(), f.purged(),
                    f.purge().toMillis() / 1000.0, f.idle()[0], f.idle()[1], f.during()[0], f.during()[1],
                    f.during()[1] / f.idle()[1], f.opsDuring());
        }
    }

    private static Figures run(boolean monthly, int perDay, int days) throws Exception {
        PGSimpleDataSource ds = TestDatabases.fresh(DB);
        InboxDatabase.flyway(ds, false).migrate();
        if (monthly) {
            InboxDatabase.flyway(ds, true).migrate();
        }
        try (Connection c = ds.getConnection(); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE bench_invoice (id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, event_id text, "
                    + "amount numeric(12,2), created_at timestamptz DEFAULT now())");
        }
        Instant now = Instant.now();
        if (monthly) {
            for (int d = days; d >= 0; d -= 28) {
                LocalDate month = EventMonths.monthOf(now.minus(Duration.ofDays(d)));
                inTransaction(ds, c -> {
                    PurgeStatements.createPartition(c, month, Duration.ofSeconds(5));
                    return null;
                });
            }
        }
        long t0 = System.nanoTime();
        long seeded = seed(ds, monthly, perDay, days);
        Duration seedTime = Duration.ofNanos(System.nanoTime() - t0);
        System.out.printf("%s: seeded %,d rows in %.1f s%n", monthly ? "monthly" : "plain", seeded,
                seedTime.toMillis() / 1000.0);

        Consumer idle = new Consumer(ds, monthly);
        idle.runOps(IDLE_OPS);
        Consumer busy = new Consumer(ds, monthly);
        Thread consumerThread = new Thread(busy::runUntilStopped, "bench-consumer");
        consumerThread.start();
        Thread.sleep(500);
        long expired = monthly ? rowsInExpiredMonths(ds, now) : 0; // counted before the clock starts
        long p0 = System.nanoTime();
        long purged = monthly ? dropPartitions(ds, now, expired) : deleteInBatches(ds);
        Duration purgeTime = Duration.ofNanos(System.nanoTime() - p0);
        busy.stop.set(true);
        consumerThread.join();
        System.out.printf("%s: purged %,d rows in %.1f s%n", monthly ? "monthly" : "plain", purged,
                purgeTime.toMillis() / 1000.0);
        return new Figures(monthly ? "monthly partitions, DROP" : "plain, batched DELETE", seeded, purged, seedTime,
                purgeTime, idle.percentiles(), busy.percentiles(), busy.latencies.size());
    }

    private static long seed(PGSimpleDataSource ds, boolean monthly, int perDay, int days) throws SQLException {
        String columns = monthly ? "consumer, event_id, event_month, processed_at" : "consumer, event_id, processed_at";
        String month = monthly ? "date_trunc('month', (now() - t.age) AT TIME ZONE 'UTC')::date, " : "";
        try (Connection c = ds.getConnection(); Statement s = c.createStatement()) {
            long rows = s.executeUpdate("INSERT INTO inbox (" + columns + ") SELECT 'billing', 'seed-' || g, " + month
                    + "now() - t.age FROM generate_series(1, " + ((long) perDay * days) + ") g, "
                    + "LATERAL (SELECT make_interval(secs => (g % " + days + ") * 86400 + (g % 86400) / 100.0) AS age) t");
            s.execute("ANALYZE inbox");
            return rows;
        }
    }

    /** Plain mode: what InboxPurge does, batch by batch, each batch one transaction. */
    private static long deleteInBatches(PGSimpleDataSource ds) throws SQLException {
        long total = 0;
        int batch;
        do {
            batch = inTransaction(ds, c -> {
                PurgeStatements.customPlans(c); // as InboxPurge does before each batch
                return PurgeStatements.deleteBatch(c, "billing", RETENTION, BATCH);
            });
            total += batch;
        } while (batch == BATCH);
        return total;
    }

    private static List<LocalDate> expiredMonths(PGSimpleDataSource ds, Instant now) throws SQLException {
        try (Connection c = ds.getConnection()) {
            return InboxPurge.monthsToDrop(PurgeStatements.partitionMonths(c), now, RETENTION);
        }
    }

    /** The exact number of rows the expired months hold, for the figures. */
    private static long rowsInExpiredMonths(PGSimpleDataSource ds, Instant now) throws SQLException {
        long total = 0;
        for (LocalDate month : expiredMonths(ds, now)) {
            try (Connection c = ds.getConnection(); Statement s = c.createStatement();
                 var rs = s.executeQuery("SELECT count(*) FROM " + EventMonths.partitionName(month))) {
                rs.next();
                total += rs.getLong(1);
            }
        }
        return total;
    }

    /** Monthly mode: what InboxPurge does, one partition per transaction. */
    private static long dropPartitions(PGSimpleDataSource ds, Instant now, long rows) throws SQLException {
        for (LocalDate month : expiredMonths(ds, now)) {
            inTransaction(ds, c -> PurgeStatements.dropPartition(c, month, Duration.ofSeconds(5)));
        }
        return rows;
    }

    @FunctionalInterface
    private interface Work<T> {
        T on(Connection c) throws SQLException;
    }

    private static <T> T inTransaction(PGSimpleDataSource ds, Work<T> work) throws SQLException {
        try (Connection c = ds.getConnection()) {
            c.setAutoCommit(false);
            T result = work.on(c);
            c.commit();
            return result;
        }
    }

    /** A consumer: per event, one transaction with the inbox claim and a business insert. */
    private static final class Consumer {
        final PGSimpleDataSource ds;
        final boolean monthly;
        final AtomicBoolean stop = new AtomicBoolean();
        final List<Long> latencies = new ArrayList<>();

        Consumer(PGSimpleDataSource ds, boolean monthly) {
            this.ds = ds;
            this.monthly = monthly;
        }

        void runOps(int ops) {
            run(() -> latencies.size() >= ops);
        }

        void runUntilStopped() {
            run(stop::get);
        }

        private void run(java.util.function.BooleanSupplier done) {
            LocalDate month = EventMonths.monthOf(Instant.now());
            byte[] fingerprint = new byte[32]; // the payload's SHA-256, as the library stores it
            try (Connection c = ds.getConnection();
                 PreparedStatement insert = c.prepareStatement(
                         "INSERT INTO bench_invoice (event_id, amount) VALUES (?, 129.90)")) {
                c.setAutoCommit(false);
                while (!done.getAsBoolean()) {
                    String id = UUID.randomUUID().toString();
                    long start = System.nanoTime();
                    // the library's own claim (one statement), as @Idempotent runs it
                    if (InboxClaim.claimOn(c, "billing", id, fingerprint, monthly ? month : null)
                            == InboxClaim.Result.NEW) {
                        insert.setString(1, id);
                        insert.executeUpdate();
                    }
                    c.commit();
                    latencies.add(System.nanoTime() - start);
                }
            } catch (SQLException e) {
                throw new IllegalStateException(e);
            }
        }

        /** @return p50 and p99 in milliseconds */
        double[] percentiles() {
            long[] sorted = latencies.stream().mapToLong(Long::longValue).sorted().toArray();
            if (sorted.length == 0) {
                return new double[] {Double.NaN, Double.NaN};
            }
            return new double[] {sorted[(int) (sorted.length * 0.50)] / 1e6,
                    sorted[Math.min(sorted.length - 1, (int) (sorted.length * 0.99))] / 1e6};
        }
    }
}
