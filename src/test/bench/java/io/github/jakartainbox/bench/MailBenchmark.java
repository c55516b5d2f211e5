package io.github.jakartainbox.bench;

import io.github.jakartainbox.billing.SampleEvents.Event;
import io.github.jakartainbox.billing.SampleEvents;
import io.github.jakartainbox.billing.invoice.Invoice;
import io.github.jakartainbox.billing.mail.BenchMail;
import jakarta.mail.Session;
import jakarta.mail.Transport;
import jakarta.mail.internet.MimeMessage;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.net.Socket;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;

/**
 * Orders in, mailed invoices out: the mail stage of the billing example through Kafka, Liberty, PostgreSQL and
 * GreenMail, against a bare loop in this JVM (the ceiling: the same PDF and MIME message, sent by as many threads as
 * the mailer has, over kept SMTP connections, no Kafka, inbox or database) and against today's mailer (liberty-kafka, one thread, a connection
 * per mail, a topic of one partition), in one run.
 *
 * <p>Server "mailbench" on HTTP port 9581, database inbox_bench_mail (made afresh for each service variant), GreenMail
 * at 127.0.0.1:$SMTP_PORT (default 3626, its API at $SMTP_API_PORT, default 8626), topics and consumer groups named
 * after the run. The service's settings are given as environment variables of the server.
 *
 * <p>Throughput, twice per variant: a backlog of orders is sent and the mailer works beside the billing consumer; then
 * another backlog is billed and relayed while {@link HeldTopic} holds its {@code invoices.issued} records, and the
 * mailer gets them all at once and works alone, as the bare loop does (the targets' figure). The mail stage runs from
 * the first invoice's {@code mailed_at} until all have one (the database polled every 50 ms). Latency: orders sent at
 * a fixed rate through the open gate (one more hop in this JVM); order-to-mail latency is
 * {@code mailed_at} (the mailer transaction's {@code now()}, its start: the render and send come after it) minus the
 * send time.
 *
 * <pre>
 * bin/benchmark mail [--events 2000] [--latency-events 500] [--rate 50] [--high-rate 200] [--warmup 200] [--no-doc]
 * </pre>
 */
public final class MailBenchmark {

    static final String DB = "inbox_bench_mail";
    static final int HTTP_PORT = 9581;
    /** The bare loop's threads: the mailer channel's {@code concurrency} in the service's configuration. */
    static final int MAILER_THREADS = mailerConcurrency();
    /** Rounds of the bare loop per run, after a warm-up; its figure is their median. */
    static final int BARE_ROUNDS = 3;
    private static final BenchServer LIBERTY = new BenchServer("mailbench", HTTP_PORT);
    private static final int SMTP_PORT = Integer.parseInt(System.getenv().getOrDefault("SMTP_PORT", "3626"));
    private static final int SMTP_API_PORT = Integer.parseInt(System.getenv().getOrDefault("SMTP_API_PORT", "8626"));
    private static final Pattern MESSAGE_ID = Pattern.compile("\"Message-ID\":\"([^\"]*)\"");

    private final String bootstrap;
    private final String run = "mail" + System.currentTimeMillis();
    private final Admin admin;
    private final KafkaProducer<String, String> producer;
    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    /** {@code --profile}: record the held backlog's mail stage with JFR; its tables once recorded. */
    private boolean profile;
    private String profiled = "";

    private MailBenchmark(String bootstrap) {
        this.bootstrap = bootstrap;
        Properties props = new Properties();
        props.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        this.admin = Admin.create(props);
        this.producer = SampleEvents.producer(bootstrap);
    }

    /** One backlog's figures: mails/s of the mail stage, invoices/s of the billing stage, CPU during the mail stage. */
    record Throughput(double mailsPerSecond, double invoicesPerSecond, double relaySeconds, double mailSeconds,
                      Cpu.Use cpu) {
    }

    /** p50 and p99 in ms, and whether the mailer kept up with the rate offered. */
    record Latency(double p50, double p99, double achieved, boolean sustained) {
        String cell() {
            return String.format("%.0f / %.0f%s", p50, p99, sustained ? "" : String.format(
                    " (not sustained: %.0f/s)", achieved));
        }
    }

    /** A service variant's figures and its mail check. */
    record ServiceResult(String label, Throughput throughput, Throughput chain, Latency low, Latency high,
                         int partitions, String check) {
    }

    /** The bare loop's figures: mails/s and CPU per mail in this JVM (composing, PDF included, and sending). */
    record Bare(double mailsPerSecond, double composeCpuMs, double sendCpuMs, Cpu.Use cpu, String check,
                double[] rounds) {
        /** One round's figures. */
        record Round(double mailsPerSecond, double composeCpuMs, double sendCpuMs, Cpu.Use cpu, String check) {
        }

        String roundsText() {
            return java.util.Arrays.stream(rounds).mapToObj(r -> String.format("%,.0f", r))
                    .collect(java.util.stream.Collectors.joining(", "));
        }
    }

    public static void main(String[] args) throws Exception {
        int events = 2000;
        int latencyEvents = 500;
        int rate = 50;
        int highRate = 200;
        int warmup = 200;
        boolean doc = true;
        boolean newOnly = false;
        boolean profile = false;
        String bootstrap = System.getenv().getOrDefault("KAFKA_BOOTSTRAP_SERVERS", "127.0.0.1:9092");
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--events" -> events = Integer.parseInt(args[++i]);
                case "--latency-events" -> latencyEvents = Integer.parseInt(args[++i]);
                case "--rate" -> rate = Integer.parseInt(args[++i]);
                case "--high-rate" -> highRate = Integer.parseInt(args[++i]);
                case "--warmup" -> warmup = Integer.parseInt(args[++i]);
                case "--bootstrap" -> bootstrap = args[++i];
                case "--no-doc" -> doc = false;
                case "--new-only" -> newOnly = true;
                case "--profile" -> {
                    newOnly = true;
                    profile = true;
                }
                default -> throw new IllegalArgumentException("unknown option " + args[i] + "; use --events N "
                        + "--latency-events N --rate N --high-rate N --warmup N --bootstrap host:port --no-doc --new-only --profile");
            }
        }
        refuseOthers();
        MailBenchmark bench = new MailBenchmark(bootstrap);
        bench.profile = profile;
        try {
            String command = ("bin/benchmark mail " + String.join(" ", args)).strip();
            if (newOnly) {
                // the new mailer alone, for profiling it: prints its figures, writes no docs
                bench.service("new", "new mailer", Map.of(), 0, events, latencyEvents, rate, highRate, warmup);
                if (profile) {
                    String tables = String.format("Run %s on %s: `%s`, the new mailer on a held backlog of %,d "
                            + "invoices (the mail stage alone). Load averages (1, 5, 15 min) at the end: %s.%n",
                            Load.now(), Load.machine(), command, events, Load.averages()) + bench.profiled;
                    System.out.println();
                    System.out.println(tables);
                    if (doc) {
                        DocSection.write(Path.of("docs/benchmarks.md"), "mail-profile", tables);
                        System.out.println("written to docs/benchmarks.md");
                    }
                }
                return;
            }
            String tables = bench.run(command, events, latencyEvents, rate, highRate, warmup);
            System.out.println();
            System.out.println(tables);
            if (doc) {
                DocSection.write(Path.of("docs/benchmarks.md"), "mail-benchmark", tables);
                System.out.println("written to docs/benchmarks.md");
            }
        } finally {
            LIBERTY.run("stop");
            bench.producer.close();
            bench.admin.close();
        }
    }

    /** Stops before anything is touched when a server of this name (any Liberty install) or the HTTP port is in use. */
    private static void refuseOthers() throws Exception {
        for (Path p : Files.newDirectoryStream(Path.of("/proc"), "[0-9]*")) {
            try {
                String[] argv = Files.readString(p.resolve("cmdline")).split("\0");
                if (argv.length > 1 && argv[argv.length - 2].endsWith("ws-server.jar")
                        && argv[argv.length - 1].equals(LIBERTY.name())) {
                    throw new IllegalStateException("a Liberty server named " + LIBERTY.name() + " runs already (pid "
                            + p.getFileName() + "): stop it, or wait for its benchmark to end");
                }
            } catch (java.io.IOException e) {
                // gone, or not ours to read
            }
        }
        try (Socket s = new Socket("127.0.0.1", HTTP_PORT)) {
            throw new IllegalStateException("port " + HTTP_PORT + " is in use: the benchmark's server needs it");
        } catch (java.net.ConnectException e) {
            // free
        }
    }

    private String run(String command, int events, int latencyEvents, int rate, int highRate, int warmup)
            throws Exception {
        String loadBefore = Load.averages();
        System.out.printf("bare loop: %d mails, %d threads%n", events, MAILER_THREADS);
        Bare bareBefore = bareLoop(events, warmup, "bare1");
        System.out.printf("bare loop: %,.0f mails/s%n", bareBefore.mailsPerSecond());

        Map<String, String> today = new LinkedHashMap<>();
        today.put("MP_MESSAGING_INCOMING_INVOICES_MAILER_CONNECTOR", "liberty-kafka");
        today.put("MP_MESSAGING_INCOMING_INVOICES_MAILER_CONCURRENCY", "1");
        today.put("BILLING_MAIL_KEEP_CONNECTIONS", "false");
        ServiceResult old = service("today", "today's mailer: liberty-kafka, 1 thread, a connection per mail", today, 1, events, latencyEvents, rate, highRate, warmup);
        ServiceResult fresh = service("new", "new mailer: inbox-kafka (group.max-size="
                + mailerSetting("group.max-size", "100") + "), " + MAILER_THREADS + " threads, kept "
                + "connections, the service's partitions", Map.of(), 0, events, latencyEvents, rate, highRate, warmup);

        System.out.printf("bare loop again: %d mails%n", events);
        Bare bareAfter = bareLoop(events, warmup, "bare2");
        String loadAfter = Load.averages();
        return table(command, events, latencyEvents, rate, highRate, warmup, bareBefore, bareAfter, old, fresh,
                loadBefore, loadAfter);
    }

    // ---- the bare loop ----

    /** @return the mailer channel's threads as the service is configured (its microprofile-config.properties) */
    private static int mailerConcurrency() {
        return Integer.parseInt(mailerSetting("concurrency", "1"));
    }

    /** @return a key of the mailer channel as the service is configured (its microprofile-config.properties) */
    private static String mailerSetting(String key, String otherwise) {
        return billingSetting("mp.messaging.incoming.invoices-mailer." + key, otherwise);
    }

    /** @return a key as the service is configured (its microprofile-config.properties) */
    private static String billingSetting(String key, String otherwise) {
        try (java.io.InputStream in = Files.newInputStream(
                Path.of("src/main/resources/META-INF/microprofile-config.properties"))) {
            Properties p = new Properties();
            p.load(in);
            return p.getProperty(key, otherwise).trim();
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    /**
     * The ceiling: {@link #BARE_ROUNDS} rounds of {@code events} mails after a warm-up of as many (this JVM's JIT and
     * GreenMail's warm up over the first thousands of mails: a single round right after GreenMail started measured
     * 297 mails/s where the same loop later made 507); the round of median throughput is the run's figure.
     */
    private Bare bareLoop(int events, int warmup, String tag) throws Exception {
        Bare.Round[] rounds = new Bare.Round[BARE_ROUNDS];
        for (int r = 0; r < BARE_ROUNDS; r++) {
            rounds[r] = bareRound(events, r == 0 ? Math.max(warmup, events) : 0, tag + "r" + r);
            System.out.printf("bare loop %s round %d: %,.0f mails/s%n", tag, r + 1, rounds[r].mailsPerSecond());
        }
        Bare.Round[] sorted = rounds.clone();
        java.util.Arrays.sort(sorted, java.util.Comparator.comparingDouble(Bare.Round::mailsPerSecond));
        Bare.Round median = sorted[BARE_ROUNDS / 2];
        return new Bare(median.mailsPerSecond(), median.composeCpuMs(), median.sendCpuMs(), median.cpu(),
                median.check(), java.util.Arrays.stream(rounds).mapToDouble(Bare.Round::mailsPerSecond).toArray());
    }

    /** One round of the bare loop. */
    private Bare.Round bareRound(int events, int warmup, String tag) throws Exception {
        Properties props = new Properties();
        props.setProperty("mail.transport.protocol", "smtp");
        props.setProperty("mail.smtp.host", "127.0.0.1");
        props.setProperty("mail.smtp.port", Integer.toString(SMTP_PORT));
        props.setProperty("mail.from", "billing@example.com");
        props.put("mail.smtp.socketFactory", io.github.jakartainbox.billing.mail.BenchMail.socketFactory());
        Session session = Session.getInstance(props);
        String prefix = run + "-" + tag;
        if (warmup > 0) {
            sendBare(session, prefix + "-warm", warmup, null);
            purge();
        }
        AtomicLong cpu = new AtomicLong();
        Cpu sampler = Cpu.start();
        Instant start = Instant.now();
        long composeNanos = sendBare(session, prefix, events, cpu);
        Instant end = Instant.now();
        Cpu.Use use = sampler.stop(start, end);
        double seconds = Duration.between(start, end).toNanos() / 1e9;
        List<String[]> sent = new ArrayList<>();
        for (int i = 0; i < events; i++) {
            sent.add(new String[] {email(prefix + "-" + i), messageId(prefix, i)});
        }
        String check = mailCheck(sent);
        purge();
        return new Bare.Round(events / seconds, composeNanos / 1e6 / events,
                (cpu.get() - composeNanos) / 1e6 / events, use, check);
    }

    /**
     * Sends {@code count} invoice mails on {@link #MAILER_THREADS} threads, each over one connection opened before
     * the start and kept; returns the CPU nanoseconds spent composing (PDF included), adding all CPU to {@code cpu}.
     */
    private long sendBare(Session session, String prefix, int count, AtomicLong cpu) throws Exception {
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        AtomicInteger next = new AtomicInteger();
        AtomicLong compose = new AtomicLong();
        CountDownLatch connected = new CountDownLatch(MAILER_THREADS);
        CountDownLatch go = new CountDownLatch(1);
        List<Throwable> failures = java.util.Collections.synchronizedList(new ArrayList<>());
        List<Thread> workers = new ArrayList<>();
        for (int t = 0; t < MAILER_THREADS; t++) {
            Thread worker = new Thread(() -> {
                try (Transport transport = session.getTransport()) {
                    transport.connect();
                    connected.countDown();
                    go.await();
                    long cpu0 = threads.getCurrentThreadCpuTime();
                    for (int i = next.getAndIncrement(); i < count; i = next.getAndIncrement()) {
                        long c0 = threads.getCurrentThreadCpuTime();
                        String orderId = prefix + "-" + i;
                        Invoice invoice = BenchMail.invoice(i + 1, UUID.randomUUID().toString(), orderId,
                                email(orderId), OffsetDateTime.now());
                        MimeMessage message = BenchMail.message(session, invoice, messageId(prefix, i));
                        compose.addAndGet(threads.getCurrentThreadCpuTime() - c0);
                        transport.sendMessage(message, message.getAllRecipients());
                    }
                    if (cpu != null) {
                        cpu.addAndGet(threads.getCurrentThreadCpuTime() - cpu0);
                    }
                } catch (Throwable e) {
                    failures.add(e);
                    connected.countDown();
                }
            }, "bare-mailer-" + t);
            worker.start();
            workers.add(worker);
        }
        connected.await();
        go.countDown();
        for (Thread w : workers) {
            w.join();
        }
        if (!failures.isEmpty()) {
            throw new IllegalStateException("bare loop failed", failures.get(0));
        }
        return compose.get();
    }

    private static String email(String orderId) {
        return orderId + "@example.com";
    }

    private static String messageId(String prefix, int i) {
        return "<" + prefix + "-" + i + "@bench.billing.jakarta-inbox>";
    }

    // ---- the service ----

    /**
     * Makes the database afresh, starts the server with the variant's environment, warms it up, then a backlog and
     * the two latency runs; checks every invoice's mail and stops the server.
     *
     * @param partitions partitions of the invoices topic made here, 0 to leave it to the service
     */
    private ServiceResult service(String key, String label, Map<String, String> variant, int partitions, int events,
                                  int latencyEvents, int rate, int highRate, int warmup) throws Exception {
        String orders = run + "." + key + ".orders";
        String issued = run + "." + key + ".issued";
        String idle = run + "." + key + ".idle";
        // the relay publishes to "issued"; the mailer reads "mailed", fed through a gate that can hold the records
        String mailed = run + "." + key + ".mailer";
        int issuedPartitions = partitions > 0 ? partitions
                : Integer.parseInt(billingSetting("billing.invoices-issued.partitions", "6"));
        admin.createTopics(List.of(new NewTopic(orders, 1, (short) 1), new NewTopic(idle, 1, (short) 1),
                new NewTopic(issued, issuedPartitions, (short) 1), new NewTopic(mailed, issuedPartitions,
                        (short) 1))).all().get();
        BenchServer.recreateDatabase(DB);
        Map<String, String> env = new LinkedHashMap<>();
        env.put("HTTP_PORT", Integer.toString(HTTP_PORT));
        env.put("DB_NAME", DB);
        env.put("SMTP_PORT", Integer.toString(SMTP_PORT));
        env.put("KAFKA_BOOTSTRAP_SERVERS", bootstrap);
        env.put("INBOX_PURGE_SCHEDULE", "off");
        env.put("MP_MESSAGING_INCOMING_ORDERS_BILLING_TOPIC", orders);
        env.put("MP_MESSAGING_INCOMING_ORDERS_BILLING_GROUP_ID", run + "-" + key + "-billing");
        // the other consumers of orders.confirmed read an idle topic in groups of the run: never the service's
        env.put("MP_MESSAGING_INCOMING_ORDERS_ANALYTICS_TOPIC", idle);
        env.put("MP_MESSAGING_INCOMING_ORDERS_ANALYTICS_GROUP_ID", run + "-" + key + "-analytics");
        env.put("MP_MESSAGING_INCOMING_ORDERS_STATUS_TOPIC", idle);
        env.put("MP_MESSAGING_INCOMING_ORDERS_STATUS_GROUP_ID", run + "-" + key + "-status");
        env.put("BILLING_INVOICES_ISSUED_TOPIC", issued);
        env.put("MP_MESSAGING_INCOMING_INVOICES_MAILER_TOPIC", mailed);
        env.put("MP_MESSAGING_INCOMING_INVOICES_MAILER_GROUP_ID", run + "-" + key + "-mailer");
        env.putAll(variant);
        LIBERTY.write("written by MailBenchmark for one run: the billing server, configured by environment",
                Map.of(), BenchServer.billingWar());
        System.out.printf("%s: starting server %s with %s%n", label, LIBERTY.name(), variant);
        LIBERTY.run("start", env);
        try (HeldTopic gate = new HeldTopic(bootstrap, issued, mailed, issuedPartitions)) {
            LIBERTY.awaitReady();
            String warm = run + "-" + key + "-warm";
            SampleEvents.send(producer, orders, SampleEvents.events(warm, warmup));
            awaitMailed(warm, warmup);
            Throughput chain = backlog(key + "-tp", orders, events, null);
            Throughput t = backlog(key + "-held", orders, events, gate);
            System.out.printf("%s: %,.0f mails/s on a backlog (%,.0f with billing at once), billing %,.0f "
                    + "invoices/s%n", label, t.mailsPerSecond(), chain.mailsPerSecond(), chain.invoicesPerSecond());
            Latency low = latency(key, orders, latencyEvents, rate, "low");
            Latency high = latency(key, orders, latencyEvents, highRate, "high");
            System.out.printf("%s: latency %s at %d/s, %s at %d/s%n", label, low.cell(), rate, high.cell(), highRate);
            String check = serviceCheck(run + "-" + key + "-");
            return new ServiceResult(label, t, chain, low, high, issuedPartitions, check);
        } finally {
            LIBERTY.run("stop");
        }
    }

    /** CPU per mail of each process and the server's allocation over a profiled window. */
    private static String perMail(Cost.Window w, int mails) {
        return String.format("%n| per mail | Liberty µs CPU | GreenMail µs | PostgreSQL backends µs | PostgreSQL shared "
                        + "µs | broker µs | Liberty KB allocated | GC pauses, %% of Liberty CPU |%n"
                        + "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |%n"
                        + "| the new mailer, held backlog | %.0f | %.0f | %.0f | %.0f | %.0f | %.1f | %.1f |%n",
                w.micros(Cost.LIBERTY, mails), w.micros(Cost.GREENMAIL, mails), w.micros(Cost.PG_BACKENDS, mails),
                w.micros(Cost.PG_SHARED, mails), w.micros(Cost.BROKER, mails), w.allocatedBytes() / 1024.0 / mails,
                100.0 * w.gcMillis() / 1000 / Math.max(1e-9, w.cpuSeconds().get(Cost.LIBERTY)));
    }

    /**
     * A backlog of orders; the mail stage runs from the first mail's {@code mailed_at} until all are mailed.
     *
     * @param gate null to let the mailer work beside the billing consumer; else held until every invoice of the
     *             backlog is billed and relayed, then opened, so that the mailer works alone
     */
    private Throughput backlog(String tag, String orders, int events, HeldTopic gate) throws Exception {
        String prefix = run + "-" + tag;
        List<Event> list = SampleEvents.events(prefix, events);
        if (gate != null) {
            gate.hold();
        }
        Instant sent = Instant.now();
        SampleEvents.send(producer, orders, list);
        Cpu sampler;
        Cost cost = null;
        Cost.Reading before = null;
        if (gate != null) {
            awaitRelayed(prefix, events);
            if (profile) {
                cost = new Cost(LIBERTY.name(), DB);
                Profile.start(cost);
                before = cost.read();
            }
            sampler = Cpu.start();
            gate.open();
        } else {
            sampler = Cpu.start();
        }
        Instant end = awaitMailed(prefix, events);
        if (cost != null) {
            try (Cost c = cost) {
                Cost.Window window = c.between(before, c.read());
                java.nio.file.Path recording = Profile.stop(c, Path.of("target/mail-profile.jfr"));
                profiled = perMail(window, events) + String.format("%nThe server's CPU per mail by component (JFR "
                        + "execution samples; recording %s):%n%n", recording)
                        + Profile.read(recording).markdown(window.micros(Cost.LIBERTY, events));
            }
        }
        try (Connection c = BenchServer.source(DB).getConnection();
             PreparedStatement q = c.prepareStatement("SELECT min(mailed_at), max(created_at), "
                     + "(SELECT max(delivered_at) FROM outbox WHERE record_key LIKE ?) FROM invoice "
                     + "WHERE order_id LIKE ?")) {
            q.setString(1, prefix + "-%");
            q.setString(2, prefix + "-%");
            try (ResultSet rs = q.executeQuery()) {
                rs.next();
                Instant firstMail = rs.getObject(1, OffsetDateTime.class).toInstant();
                Instant lastInvoice = rs.getObject(2, OffsetDateTime.class).toInstant();
                Instant relayed = rs.getObject(3, OffsetDateTime.class).toInstant();
                Cpu.Use use = sampler.stop(firstMail, end);
                double mailSeconds = Duration.between(firstMail, end).toNanos() / 1e9;
                return new Throughput(events / mailSeconds,
                        events / (Duration.between(sent, lastInvoice).toNanos() / 1e9),
                        Duration.between(sent, relayed).toNanos() / 1e9, mailSeconds, use);
            }
        }
    }

    /** Sends orders at a fixed rate; order-to-mail latency is mailed_at minus the send time. */
    private Latency latency(String key, String orders, int count, int rate, String tag) throws Exception {
        String prefix = run + "-" + key + "-lat" + tag;
        List<Event> list = SampleEvents.events(prefix, count);
        Map<String, Instant> sentAt = Paced.send(producer, orders, list, rate);
        awaitMailed(prefix, count);
        long[] micros = new long[count];
        int n = 0;
        Instant first = sentAt.values().stream().min(Instant::compareTo).orElseThrow();
        Instant last = first;
        try (Connection c = BenchServer.source(DB).getConnection();
             PreparedStatement q = c.prepareStatement("SELECT event_id, mailed_at FROM invoice WHERE order_id LIKE ?")) {
            q.setString(1, prefix + "-%");
            try (ResultSet rs = q.executeQuery()) {
                while (rs.next()) {
                    Instant mailed = rs.getObject(2, OffsetDateTime.class).toInstant();
                    last = mailed.isAfter(last) ? mailed : last;
                    micros[n++] = Duration.between(sentAt.get(rs.getString(1)), mailed).toNanos() / 1000;
                }
            }
        }
        if (n != count) {
            throw new IllegalStateException(prefix + ": " + n + " invoices for " + count + " orders");
        }
        double achieved = count / (Duration.between(first, last).toNanos() / 1e9);
        // kept up: the last mail came within a second of the last order's slot
        boolean sustained = Duration.between(first, last).toMillis() <= (long) count * 1000 / rate + 1000;
        return new Latency(Spread.percentile(micros, 50) / 1000.0, Spread.percentile(micros, 99) / 1000.0,
                achieved, sustained);
    }

    /** Waits until the outbox relay has published the invoices of all {@code count} orders of the prefix. */
    private static void awaitRelayed(String prefix, int count) throws Exception {
        long deadline = System.nanoTime() + Duration.ofMinutes(5).toNanos();
        while (BenchServer.count(DB, "SELECT count(*) FROM outbox WHERE delivered_at IS NOT NULL AND record_key LIKE '"
                + prefix + "-%'") < count) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException(prefix + ": " + count + " invoices not all relayed in time");
            }
            Thread.sleep(50);
        }
    }

    /** Waits until all invoices of the prefix have mailed_at (polled every 50 ms); returns when that was seen. */
    private static Instant awaitMailed(String prefix, int count) throws Exception {
        long deadline = System.nanoTime() + Duration.ofMinutes(5).plusSeconds(count / 5).toNanos();
        try (Connection c = BenchServer.source(DB).getConnection();
             PreparedStatement q = c.prepareStatement("SELECT count(*) FROM invoice WHERE order_id LIKE ? "
                     + "AND mailed_at IS NOT NULL")) {
            q.setString(1, prefix + "-%");
            while (System.nanoTime() < deadline) {
                try (ResultSet rs = q.executeQuery()) {
                    rs.next();
                    if (rs.getLong(1) >= count) {
                        return Instant.now();
                    }
                }
                Thread.sleep(50);
            }
        }
        throw new IllegalStateException(prefix + ": " + count + " invoices not all mailed in time");
    }

    // ---- checks ----

    /** Each invoice of the run's variant: its mails in GreenMail (by recipient), their Message-IDs, dead letters. */
    private String serviceCheck(String prefix) throws Exception {
        List<String[]> expected = new ArrayList<>();
        long unmailed;
        long deadLetters;
        try (Connection c = BenchServer.source(DB).getConnection();
             PreparedStatement q = c.prepareStatement("SELECT customer_email, mail_message_id FROM invoice "
                     + "WHERE order_id LIKE ?")) {
            q.setString(1, prefix + "%");
            try (ResultSet rs = q.executeQuery()) {
                while (rs.next()) {
                    expected.add(new String[] {rs.getString(1), rs.getString(2)});
                }
            }
        }
        unmailed = BenchServer.count(DB, "SELECT count(*) FROM invoice WHERE mailed_at IS NULL");
        deadLetters = BenchServer.count(DB, "SELECT count(*) FROM inbox_dead_letter");
        String check = mailCheck(expected) + String.format("; unmailed invoices %d, dead letters %d", unmailed,
                deadLetters);
        purge();
        return check;
    }

    /**
     * @param expected recipient and Message-ID of each mail that should have arrived once
     * @return how many arrived once, not at all, more than once, or with another Message-ID
     */
    private String mailCheck(List<String[]> expected) throws Exception {
        int once = 0;
        int missing = 0;
        int duplicated = 0;
        int otherId = 0;
        for (String[] e : expected) {
            HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + SMTP_API_PORT
                    + "/api/user/" + URLEncoder.encode(e[0], StandardCharsets.UTF_8) + "/messages/"))
                    .timeout(Duration.ofSeconds(30)).build(),
                    HttpResponse.BodyHandlers.ofString());
            List<String> ids = new ArrayList<>();
            if (r.statusCode() == 200) {
                Matcher m = MESSAGE_ID.matcher(r.body());
                while (m.find()) {
                    ids.add(m.group(1));
                }
            }
            Set<String> distinct = new HashSet<>(ids);
            if (ids.isEmpty()) {
                missing++;
            } else if (ids.size() > 1) {
                duplicated++;
            } else {
                once++;
            }
            if (!distinct.isEmpty() && !distinct.equals(Set.of(String.valueOf(e[1])))) {
                otherId++;
            }
        }
        return String.format("%,d invoices: %,d mailed once, %d never, %d more than once, %d with another Message-ID",
                expected.size(), once, missing, duplicated, otherId);
    }

    /** Empties GreenMail's mailboxes between variants. */
    private void purge() throws Exception {
        http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + SMTP_API_PORT + "/api/mail/purge"))
                .POST(HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.ofString());
    }

    // ---- the table ----

    private String table(String command, int events, int latencyEvents, int rate, int highRate, int warmup, Bare b1,
                         Bare b2, ServiceResult old, ServiceResult fresh, String loadBefore, String loadAfter)
            throws Exception {
        StringBuilder out = new StringBuilder();
        out.append(String.format("Run %s on %s, PostgreSQL %s, Open Liberty %s, Kafka broker at %s, GreenMail at "
                        + "127.0.0.1:%d. Load averages (1, 5, 15 min) before: %s; after: %s. Command: `%s`. Backlog "
                        + "of %,d orders per variant after %,d to warm up; latency: %,d orders at %d/s and at %d/s.%n%n",
                Load.now(), Load.machine(), BenchServer.pgVersion(DB),
                System.getProperty("liberty.runtime.version", "26.0.0.3"), bootstrap, SMTP_PORT, loadBefore,
                loadAfter, command, events, warmup, latencyEvents, rate, highRate));
        out.append(String.format("| variant | mails per second, the mailer on a backlog | mails per second, billing "
                + "at once | billing stage, invoices/s | order-to-mail p50 / p99 ms at %d/s | at %d/s | CPU during the "
                + "backlog's mail stage, cores of %d |%n", rate, highRate, Runtime.getRuntime().availableProcessors()));
        out.append("| --- | ---: | ---: | ---: | ---: | ---: | --- |\n");
        out.append(String.format("| bare loop (ceiling), first: %d threads (the mailer's concurrency), kept "
                + "connections, this JVM; median of %d rounds (%s) | %,.0f | – | – | – | – | %s |%n", MAILER_THREADS,
                BARE_ROUNDS, b1.roundsText(), b1.mailsPerSecond(), b1.cpu().describe()));
        for (ServiceResult s : List.of(old, fresh)) {
            out.append(String.format("| %s (%d partition%s) | %,.0f | %,.0f | %,.0f | %s | %s | %s |%n", s.label(),
                    s.partitions(), s.partitions() == 1 ? "" : "s", s.throughput().mailsPerSecond(),
                    s.chain().mailsPerSecond(), s.chain().invoicesPerSecond(), s.low().cell(), s.high().cell(),
                    s.throughput().cpu().describe()));
        }
        out.append(String.format("| bare loop (ceiling), again after the service; median of %d rounds (%s) | %,.0f "
                + "| – | – | – | – | %s |%n", BARE_ROUNDS, b2.roundsText(), b2.mailsPerSecond(), b2.cpu().describe()));
        double bare = Math.max(b1.mailsPerSecond(), b2.mailsPerSecond());
        double now = fresh.throughput().mailsPerSecond();
        out.append(String.format("%nRatios (same run, the mailers on a backlog, as the bare loop): new ÷ bare loop "
                        + "**%.2f** (target ≥ 0.7; against the higher of the two bare-loop runs' medians, %.2f against "
                        + "the lower); new ÷ today's **%.1f** (target ≥ 10). With billing at once on the same cores: "
                        + "new ÷ bare loop %.2f, new ÷ today's %.1f.%n",
                now / bare, now / Math.min(b1.mailsPerSecond(), b2.mailsPerSecond()),
                now / old.throughput().mailsPerSecond(), fresh.chain().mailsPerSecond() / bare,
                fresh.chain().mailsPerSecond() / old.chain().mailsPerSecond()));
        double cores = Runtime.getRuntime().availableProcessors();
        double composeCeiling = 1000 * cores / b1.composeCpuMs();
        out.append(String.format("%nWhat bounds the rest: in the bare loop one mail costs this JVM %.2f ms CPU to "
                        + "compose (the PDF rendered, %.0f%% of its CPU) and %.2f ms to send; composing alone would "
                        + "cap %d cores at about %,.0f mails/s. During the new mailer's stage the machine was %s busy; "
                        + "%s. Mail stage of the new mailer %.1f s; its invoices were all relayed to Kafka %.1f s "
                        + "after the first order was sent (today's: %.1f s).%n",
                b1.composeCpuMs(), 100 * b1.composeCpuMs() / (b1.composeCpuMs() + b1.sendCpuMs()), b1.sendCpuMs(),
                (int) cores, composeCeiling, fresh.throughput().cpu().busyText(), fresh.throughput().cpu().bound(),
                fresh.throughput().mailSeconds(), fresh.throughput().relaySeconds(),
                old.throughput().relaySeconds()));
        // CPU per mail: each process's cores during the backlog's mail stage over the mails a second
        StringBuilder perMail = new StringBuilder();
        fresh.throughput().cpu().parts().forEach((name, coresUsed) -> {
            if (coresUsed >= 0.01 && !name.startsWith("other")) {
                perMail.append(perMail.length() == 0 ? "" : ", ").append(String.format("%s %.2f", name,
                        1000 * coresUsed / fresh.throughput().mailsPerSecond()));
            }
        });
        Bare ceiling = b1.mailsPerSecond() >= b2.mailsPerSecond() ? b1 : b2;
        double bareMs = 1000 * ceiling.cpu().busy() / ceiling.mailsPerSecond();
        out.append(String.format("%nCPU per mail, ms (the process's cores during the stage ÷ mails/s): new mailer: %s; "
                        + "the whole machine %.2f. Bare loop (the higher run): the whole machine %.2f, of which %s.%n",
                perMail, 1000 * fresh.throughput().cpu().busy() / fresh.throughput().mailsPerSecond(), bareMs,
                String.join(", ", ceiling.cpu().parts().entrySet().stream()
                        .filter(e -> e.getValue() >= 0.01 && !e.getKey().startsWith("other"))
                        .map(e -> String.format("%s %.2f", e.getKey(), 1000 * e.getValue()
                                / ceiling.mailsPerSecond())).toList())));
        out.append(String.format("%nCheck (GreenMail's API, one request per recipient; the database): bare loop "
                        + "first: %s; again: %s; today's mailer: %s; new mailer: %s.%n", b1.check(), b2.check(),
                old.check(), fresh.check()));
        return out.toString();
    }
}
