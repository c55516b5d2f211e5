package io.github.jakartainbox.faults;

import io.github.jakartainbox.testing.LibertyServer;
import io.github.jakartainbox.testing.TestFiles;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * One Liberty server of the fault suite: a copy of the packaged server {@code billing} (as the build deployed it)
 * under its own name and HTTP port, run with a scenario's environment; started, stopped gracefully, or killed
 * with SIGKILL.
 *
 * <p>It also reads the service's {@code inbox_duplicates_skipped{consumer="billing"}} gauge, which counts in
 * memory per server process, and sums the last value of each lifetime. The service caches its gauges for 10
 * seconds, so a value read every second can be 10 seconds old; instead the gauge is read when the server is
 * ready, right before it is stopped or killed, and at the end of a scenario, each read at least 10 seconds after
 * the one before, which makes every read a fresh one. A lifetime ended by a kill or a stop misses only the
 * duplicates skipped between that read and the signal (milliseconds).
 */
final class FaultServer {

    /**
     * What a server writes while it runs, never copied from the template: the messaging engine's file store held a
     * JMS message that JmsRestartIT's killed server left unconsumed, and a fault server's message-driven bean
     * invoiced it into the scenario's database (one "unexpected" invoice in scenarios 1 and 3 of a CI run); a
     * transaction log would make a copy recover the template's transactions.
     */
    private static final java.util.Set<String> RUNTIME_STATE = java.util.Set.of("workarea", "logs", "messaging",
            "tranlog");

    private static final Duration READY = Duration.ofMinutes(3);
    private static final Duration GAUGE_CACHE = Duration.ofMillis(10_300);
    private static final Pattern SKIPPED =
            Pattern.compile("(?m)^inbox_duplicates_skipped\\{[^}]*consumer=\"billing\"[^}]*}\\s+(\\S+)");

    private final LibertyServer server;
    private final int httpPort;
    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(Duration.ofSeconds(2)).build();

    private boolean running;
    private long lastRead;
    /** The operator's password of the current lifetime (random per start). */
    private volatile String operatorPassword;
    private final List<Long> lifetimes = new ArrayList<>();

    /**
     * Creates (or re-creates) the server directory from server {@code billing}: its files but no work area or
     * logs, plus {@code jvm.options} (-Xmx512m) and a config override with a 10 s Kafka session timeout, so that
     * a killed member's partitions move within seconds rather than the default 45.
     */
    FaultServer(Path wlp, String name, int httpPort) throws IOException {
        this.server = new LibertyServer(wlp, name);
        this.httpPort = httpPort;
        Path template = wlp.resolve("usr/servers/billing");
        Path dir = server.dir();
        server.kill(); // one an earlier, crashed run left running
        if (!Files.isRegularFile(template.resolve("server.xml"))) {
            throw new IllegalStateException("No packaged server at " + template + ": run mvn verify (the "
                    + "pre-integration-test phase creates it)");
        }
        TestFiles.deleteTree(dir);
        try (Stream<Path> files = Files.walk(template)) {
            for (Path source : files.toList()) {
                Path relative = template.relativize(source);
                String first = relative.getNameCount() == 0 ? "" : relative.getName(0).toString();
                if (RUNTIME_STATE.contains(first)) {
                    continue;
                }
                Path target = dir.resolve(relative.toString());
                if (Files.isDirectory(source)) {
                    Files.createDirectories(target);
                } else {
                    Files.copy(source, target);
                }
            }
        }
        Files.writeString(dir.resolve("jvm.options"), "-Xms256m\n-Xmx512m\n");
        writeOverrides(false, true);
    }

    /**
     * Writes the config override: the order channels' 10 s Kafka session timeout, except in share mode, whose
     * consumers refuse {@code session.timeout.ms} (a share group's is the broker's; a killed member's records come
     * back when their locks expire); there, {@value #SHARE_POLL_RECORDS} records a poll in {@code record_limit} mode,
     * and billing's lock renewal off when the scenario says so ({@link #BILLING_SHARE_RENEW}).
     */
    private void writeOverrides(boolean share, boolean billingRenews) throws IOException {
        Path overrides = Files.createDirectories(server.dir().resolve("configDropins/overrides"));
        StringBuilder xml = new StringBuilder("<server>\n");
        for (String channel : share ? List.<String>of() : List.of("orders-billing", "orders-analytics")) {
            xml.append("  <variable name=\"mp.messaging.incoming.").append(channel)
                    .append(".session.timeout.ms\" value=\"10000\"/>\n");
        }
        for (String channel : share ? List.of("orders-billing", "orders-analytics") : List.<String>of()) {
            // a poll acquires a few records, not the backlog's whole batches: all three consumers get work
            // (docs/kafka-connector.md, "Spreading the records over the consumers")
            xml.append("  <variable name=\"mp.messaging.incoming.").append(channel)
                    .append(".share.acquire.mode\" value=\"record_limit\"/>\n");
            xml.append("  <variable name=\"mp.messaging.incoming.").append(channel)
                    .append(".max.poll.records\" value=\"").append(SHARE_POLL_RECORDS).append("\"/>\n");
        }
        if (share && !billingRenews) {
            xml.append("  <variable name=\"mp.messaging.incoming.orders-billing.share.renew\" value=\"false\"/>\n");
        }
        Files.writeString(overrides.resolve("fault-suite.xml"), xml.append("</server>\n"));
    }

    /**
     * A scenario setting ({@code false}): the billing channel's lock renewal off in share mode. A server variable,
     * not an environment variable: SmallRye reads {@code MP_MESSAGING_INCOMING_ORDERS_BILLING_SHARE_RENEW}, a key
     * the configuration does not name already, as a channel {@code orders} and refuses the application.
     */
    static final String BILLING_SHARE_RENEW = "FAULTS_BILLING_SHARE_RENEW";

    /** Records a share consumer's poll acquires in the fault suite. */
    static final int SHARE_POLL_RECORDS = 5;

    @Override
    public String toString() {
        return server.name();
    }

    /**
     * Starts the server with the scenario's environment (plus its ports and random REST passwords) and waits
     * until {@code /metrics} shows the inbox gauges; a new lifetime begins.
     */
    void start(Map<String, String> scenario) throws IOException, InterruptedException {
        Map<String, String> env = new HashMap<>(scenario);
        env.put("HTTP_PORT", String.valueOf(httpPort));
        env.put("HTTPS_PORT", String.valueOf(httpPort + 363));
        env.put("BILLING_READER_PASSWORD", UUID.randomUUID().toString());
        operatorPassword = UUID.randomUUID().toString();
        env.put("BILLING_OPERATOR_PASSWORD", operatorPassword);
        writeOverrides(FaultRun.SHARE.equals(scenario.get("MP_CONFIG_PROFILE")),
                !"false".equals(scenario.get(BILLING_SHARE_RENEW)));
        server.environment(env);
        server.start();
        running = true;
        lifetimes.add(0L);
        // "server start" returns once the server runs, and on a busy machine that can be before the application
        // has started (it waits 30 s for it): ready when /metrics shows the application's gauges
        if (!server.awaitAnswer(() -> read(false).isEmpty(), READY)) {
            throw new IllegalStateException(server.name() + ": /metrics shows no inbox gauges " + READY
                    + " after start");
        }
    }

    /**
     * Sends a POST without a body to the example's REST API as its operator (user {@code operator}).
     *
     * @param path the path and query under {@code /billing/api}
     * @return the answer
     * @throws IOException when the server does not answer (not running, killed meanwhile)
     */
    HttpResponse<String> postAsOperator(String path) throws IOException, InterruptedException {
        String credentials = java.util.Base64.getEncoder().encodeToString(("operator:" + operatorPassword)
                .getBytes(java.nio.charset.StandardCharsets.UTF_8));
        HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + httpPort + "/billing/api" + path))
                .header("Authorization", "Basic " + credentials).timeout(Duration.ofSeconds(60))
                .POST(HttpRequest.BodyPublishers.noBody()).build();
        return http.send(request, HttpResponse.BodyHandlers.ofString());
    }

    /** Reads the gauge (fresh), then stops the server gracefully; kills one left by a failed start. */
    void stop() throws IOException, InterruptedException {
        if (!running) {
            server.kill();
            return;
        }
        readFresh();
        running = false;
        server.stopOrKill(); // one that did not stop is not left behind
    }

    /** Reads the gauge (fresh), then sends SIGKILL: nothing of the server's shutdown runs. */
    void kill() throws IOException, InterruptedException {
        readFresh();
        running = false;
        server.kill();
    }

    /** @return how many lines of the server's logs, so far, carry the message id */
    long logLines(String messageId) throws IOException {
        Path logs = server.dir().resolve("logs");
        if (!Files.isDirectory(logs)) {
            return 0;
        }
        long n = 0;
        try (Stream<Path> files = Files.list(logs)) {
            for (Path file : files.filter(f -> f.getFileName().toString().startsWith("messages")).toList()) {
                try (Stream<String> lines = Files.lines(file, java.nio.charset.StandardCharsets.ISO_8859_1)) {
                    n += lines.filter(line -> line.contains(messageId + ":")).count();
                }
            }
        }
        return n;
    }

    /** Kills the server without reading the gauge: its scenario is over (quicker than a graceful stop). */
    void discard() throws IOException {
        running = false;
        server.kill();
    }

    /**
     * Reads the gauge of a running server, at least 10 s after the read before (waiting if needed): its value is
     * then that of this moment.
     */
    void readFresh() throws InterruptedException {
        if (!running) {
            return;
        }
        long wait = lastRead + GAUGE_CACHE.toNanos() - System.nanoTime();
        if (wait > 0) {
            Thread.sleep(wait / 1_000_000 + 1);
        }
        read(true);
    }

    /** @return duplicates skipped by consumer billing, summed over this server's lifetimes since {@link #resetCounts} */
    long duplicatesSkipped() {
        return lifetimes.stream().mapToLong(Long::longValue).sum();
    }

    /** Forgets the lifetimes counted so far (a new scenario). */
    void resetCounts() {
        lifetimes.clear();
    }

    /**
     * Reads the gauge into the current lifetime.
     *
     * @param report whether to say so when it cannot (the lifetime keeps its earlier value)
     * @return the problem, empty when read
     */
    private Optional<String> read(boolean report) throws InterruptedException {
        String problem;
        try {
            HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + httpPort
                    + "/metrics?scope=application")).timeout(Duration.ofSeconds(15)).build();
            HttpResponse<String> response = http.send(request, HttpResponse.BodyHandlers.ofString());
            Matcher m = SKIPPED.matcher(response.body());
            if (response.statusCode() == 200 && m.find()) {
                lastRead = System.nanoTime();
                lifetimes.set(lifetimes.size() - 1, (long) Double.parseDouble(m.group(1)));
                return Optional.empty();
            }
            problem = "HTTP " + response.statusCode() + ", no inbox_duplicates_skipped{consumer=\"billing\"}";
        } catch (IOException e) {
            problem = e.toString();
        }
        if (report) {
            System.out.printf("  %s: /metrics not read (%s): duplicates skipped of this lifetime undercounted%n",
                    server.name(), problem);
        }
        return Optional.of(problem);
    }
}
