package io.github.jakartainbox.bench;

import io.github.jakartainbox.xa.XaPostgres;
import io.github.jakartainbox.xa.XaServer;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;

/**
 * What two-phase commit costs (issue 13): the same {@code @Idempotent} consumer on the same Liberty, the same
 * PostgreSQL cluster and the same load, in three configurations, in one run:
 * <ul>
 *   <li>{@code single}: the inbox and the ledger table in one database, one non-XA datasource
 *       ({@code ConnectionPoolDataSource}): one-phase commit, the default design (the baseline);</li>
 *   <li>{@code xa}: the inbox and the ledger in two databases, two XA datasources: two-phase commit by Liberty's
 *       transaction manager, with its log;</li>
 *   <li>{@code xa-jms}: the inbox claim and a row in one database (XA) plus a JMS send to Liberty's embedded
 *       messaging engine, in-process: two-phase commit over a database and the messaging engine.</li>
 * </ul>
 * Each event is one call of the consumer in its own transaction (claim, one INSERT, for xa-jms one send),
 * made by a loop inside the server ({@code XaServlet}'s {@code /bench}), so that neither HTTP nor a broker is
 * measured; with 4 threads, 4 such loops run at once. The configurations take turns in a rotating order in each
 * round, so that the machine's other load falls on all of them alike. Prints events per second per round, the
 * medians and each configuration's ratio to {@code single}, and writes them into docs/benchmarks.md
 * ({@code --no-doc} does not). Nothing is asserted.
 *
 * <p>Options: {@code --events 1000} per round and configuration, {@code --rounds 3}, {@code --no-doc}. Uses its own
 * PostgreSQL cluster ({@code XA_PG_PORT}, default 25433, under {@code target/}) and Liberty server
 * {@code inbox-xa-bench} on {@code HTTP_PORT + 1} (default 9382).
 */
public final class XaBenchmark {

    private static final List<String> MODES = List.of("single", "xa", "xa-jms");

    public static void main(String[] args) throws Exception {
        Map<String, String> options = options(args);
        int events = Integer.parseInt(options.getOrDefault("events", "1000"));
        int rounds = Integer.parseInt(options.getOrDefault("rounds", "3"));
        int pgPort = Integer.parseInt(System.getenv().getOrDefault("XA_PG_PORT", "25433"));
        int httpPort = Integer.parseInt(System.getenv().getOrDefault("HTTP_PORT", "9381")) + 1;
        Path wlp = Path.of("target/liberty/wlp");

        XaPostgres postgres = new XaPostgres(pgPort, Path.of("target/xa-bench-postgres"));
        postgres.start(20);
        XaServer server = null;
        try {
            for (String db : List.of("billing_it_xa_inbox", "billing_it_xa_ledger", "billing_it_xa_single")) {
                postgres.recreate(db);
            }
            String ledger = "CREATE TABLE ledger (event_id text NOT NULL, order_id text NOT NULL, "
                    + "CONSTRAINT ledger_order_uq UNIQUE (order_id) DEFERRABLE INITIALLY DEFERRED)";
            postgres.execute("billing_it_xa_ledger", ledger);
            postgres.execute("billing_it_xa_single", ledger);
            postgres.execute("billing_it_xa_inbox", "CREATE TABLE notice (event_id text NOT NULL, order_id text NOT NULL)");
            String version = postgres.texts("postgres", "SELECT version()").get(0);

            server = new XaServer(wlp, Path.of("target/billing.war"), "inbox-xa-bench", httpPort,
                    Map.of("XA_PG_PORT", String.valueOf(pgPort)));
            server.deploy("xa", Map.of("inbox.datasource", "jdbc/inbox"));
            server.deploy("single", Map.of("inbox.datasource", "jdbc/single", "xa.ledger.datasource", "jdbc/single"));
            server.start("xa");
            server.awaitStarted("single");

            // warm-up: JIT, pools, the messaging engine
            for (String mode : MODES) {
                run(server, mode, 300, 1);
                run(server, mode, 300, 4);
            }
            Map<String, double[]> rates = new LinkedHashMap<>();
            StringBuilder log = new StringBuilder();
            for (int threads : new int[] {1, 4}) {
                for (String mode : MODES) {
                    rates.put(mode + "/" + threads, new double[rounds]);
                }
                for (int round = 0; round < rounds; round++) {
                    for (int k = 0; k < MODES.size(); k++) {
                        String mode = MODES.get((k + round) % MODES.size());
                        double rate = run(server, mode, events, threads);
                        rates.get(mode + "/" + threads)[round] = rate;
                        String line = String.format(Locale.ROOT, "threads %d round %d %-7s %8.1f events/s", threads,
                                round + 1, mode, rate);
                        System.out.println(line);
                        log.append(line).append('\n');
                    }
                }
            }
            String load = String.join(" ", Arrays.copyOf(
                    new String(java.nio.file.Files.readAllBytes(Path.of("/proc/loadavg"))).split(" "), 3));
            StringBuilder table = new StringBuilder();
            table.append(String.format(Locale.ROOT, "Run of %s: %d events per round and configuration, %d rounds "
                    + "(median shown, every round in brackets), %s, Liberty 26.0.0.3, load average at the end %s.%n%n",
                    LocalDate.now(), events, rounds, version.replaceAll(" on .*", ""), load));
            table.append("| configuration | threads | events/s (median) | rounds | ratio to single |\n");
            table.append("| --- | --- | --- | --- | --- |\n");
            for (int threads : new int[] {1, 4}) {
                double baseline = median(rates.get("single/" + threads));
                for (String mode : MODES) {
                    double[] r = rates.get(mode + "/" + threads);
                    table.append(String.format(Locale.ROOT, "| %s | %d | %.0f | %s | %.2f |%n", mode, threads,
                            median(r), Arrays.stream(r).mapToObj(v -> String.format(Locale.ROOT, "%.0f", v)).toList(),
                            median(r) / baseline));
                }
            }
            System.out.println();
            System.out.println(table);
            if (!options.containsKey("no-doc")) {
                DocSection.write(Path.of("docs/benchmarks.md"), "xa-benchmark", table.toString());
            }
        } finally {
            if (server != null) {
                server.stop();
            }
            postgres.stop();
        }
    }

    /** @return events per second of {@code events} calls of the mode's consumer, split over {@code threads} loops */
    private static double run(XaServer server, String mode, int events, int threads) throws Exception {
        String app = mode.equals("single") ? "single" : "xa";
        String consumer = mode.equals("xa-jms") ? "xa-jms" : "xa-ledger";
        String run = UUID.randomUUID().toString();
        List<CompletableFuture<HttpResponse<String>>> loops = new ArrayList<>();
        long start = System.nanoTime();
        for (int t = 0; t < threads; t++) {
            loops.add(server.postAsync("/" + app + "/xa/bench?consumer=" + consumer + "&n=" + (events / threads)
                    + "&run=" + run + "-" + t, ""));
        }
        for (CompletableFuture<HttpResponse<String>> loop : loops) {
            HttpResponse<String> response = loop.get();
            if (response.statusCode() != 200) {
                throw new IllegalStateException(mode + ": " + response.body());
            }
        }
        long elapsed = System.nanoTime() - start;
        return (events / threads) * threads / (elapsed / 1e9);
    }

    private static double median(double[] values) {
        double[] sorted = values.clone();
        Arrays.sort(sorted);
        int n = sorted.length;
        return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
    }

    private static Map<String, String> options(String[] args) {
        Map<String, String> options = new LinkedHashMap<>();
        for (int i = 0; i < args.length; i++) {
            if (args[i].startsWith("--")) {
                String key = args[i].substring(2);
                boolean flag = i + 1 >= args.length || args[i + 1].startsWith("--");
                options.put(key, flag ? "" : args[++i]);
            }
        }
        return options;
    }
}
