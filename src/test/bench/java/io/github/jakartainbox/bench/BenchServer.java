package io.github.jakartainbox.bench;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.Map;
import org.jboss.shrinkwrap.api.ShrinkWrap;
import org.jboss.shrinkwrap.api.exporter.ZipExporter;
import org.jboss.shrinkwrap.api.importer.ZipImporter;
import org.jboss.shrinkwrap.api.spec.WebArchive;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * A benchmark's own Liberty server under target/liberty/wlp running the packaged billing WAR (its server.xml includes
 * the billing server's), and its own PostgreSQL database: what {@link EndToEndBenchmark} and {@link MailBenchmark}
 * share.
 */
final class BenchServer {

    static final Path WLP = Path.of(System.getProperty("wlp.dir", "target/liberty/wlp"));

    private final String name;
    private final int httpPort;

    BenchServer(String name, int httpPort) {
        this.name = name;
        this.httpPort = httpPort;
    }

    String name() {
        return name;
    }

    Path dir() {
        return WLP.resolve("usr/servers/" + name);
    }

    /** @return the packaged billing WAR, to add the benchmark's classes to before {@link #write} */
    static WebArchive billingWar() {
        return ShrinkWrap.create(ZipImporter.class, "billing.war")
                .importFrom(Path.of(System.getProperty("war.file", "target/billing.war")).toFile())
                .as(WebArchive.class);
    }

    /**
     * Writes server.xml (the billing server's plus the given variables), jvm.options and the WAR in dropins.
     *
     * @param comment   what wrote it, for the file's comment
     * @param variables Liberty variables, also MicroProfile Config properties
     * @param war       the application
     */
    void write(String comment, Map<String, String> variables, WebArchive war) throws IOException {
        Files.createDirectories(dir().resolve("dropins"));
        StringBuilder vars = new StringBuilder();
        variables.forEach((n, value) -> vars.append("  <variable name=\"").append(n).append("\" value=\"")
                .append(value).append("\"/>\n"));
        Files.writeString(dir().resolve("server.xml"), "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
                + "<!-- " + comment + " -->\n"
                + "<server description=\"jakarta-inbox benchmark server\">\n"
                + "  <include location=\"${wlp.user.dir}/servers/billing/server.xml\"/>\n"
                + vars + "</server>\n");
        // BENCH_JVM_OPTIONS: more lines for the server's jvm.options, e.g. a JFR recording to profile it
        // ("-XX:StartFlightRecording=filename=/tmp/bench.jfr,dumponexit=true,settings=profile")
        String extra = System.getenv().getOrDefault("BENCH_JVM_OPTIONS", "").trim().replace(' ', '\n');
        Files.writeString(dir().resolve("jvm.options"), "-Xmx512m\n" + (extra.isEmpty() ? "" : extra + "\n"));
        war.as(ZipExporter.class).exportTo(dir().resolve("dropins/billing.war").toFile(), true);
    }

    /** Runs bin/server ACTION NAME with this JVM's environment. */
    void run(String action) throws Exception {
        run(action, Map.of());
    }

    /**
     * Runs bin/server ACTION NAME; the server started inherits the environment, plus {@code env} (Liberty variables
     * and MicroProfile Config read it).
     */
    void run(String action, Map<String, String> env) throws Exception {
        ProcessBuilder pb = new ProcessBuilder(WLP.resolve("bin/server").toString(), action, name).inheritIO();
        pb.environment().putAll(env);
        int rc = pb.start().waitFor();
        if (rc != 0 && !(action.equals("stop") && rc == 1)) {
            throw new IllegalStateException("server " + action + " " + name + " exited " + rc);
        }
    }

    void awaitReady() throws Exception {
        HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
        // the application is up once its (open) metrics show the inbox gauges; the REST API needs a login
        HttpRequest ready = HttpRequest.newBuilder(URI.create("http://localhost:" + httpPort
                + "/metrics?scope=application")).timeout(Duration.ofSeconds(5)).build();
        long deadline = System.nanoTime() + Duration.ofMinutes(3).toNanos();
        while (System.nanoTime() < deadline) {
            try {
                HttpResponse<String> metrics = http.send(ready, HttpResponse.BodyHandlers.ofString());
                if (metrics.statusCode() == 200 && metrics.body().contains("inbox_processed")) {
                    return;
                }
            } catch (IOException e) {
                // not up yet
            }
            Thread.sleep(500);
        }
        throw new IllegalStateException("server " + name + " not ready on port " + httpPort);
    }

    static PGSimpleDataSource source(String database) {
        PGSimpleDataSource ds = new PGSimpleDataSource();
        ds.setServerNames(new String[] {"127.0.0.1"});
        ds.setDatabaseName(database);
        ds.setUser("postgres");
        return ds;
    }

    static void recreateDatabase(String database) throws Exception {
        try (Connection c = source("postgres").getConnection(); Statement s = c.createStatement()) {
            s.execute("DROP DATABASE IF EXISTS " + database + " WITH (FORCE)");
            s.execute("CREATE DATABASE " + database);
        }
    }

    static long count(String database, String sql) throws Exception {
        try (Connection c = source(database).getConnection(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery(sql)) {
            rs.next();
            return rs.getLong(1);
        }
    }

    static String pgVersion(String database) throws Exception {
        try (Connection c = source(database).getConnection(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SHOW server_version")) {
            rs.next();
            return rs.getString(1);
        }
    }
}
