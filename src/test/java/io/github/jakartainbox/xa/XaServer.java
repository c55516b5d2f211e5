package io.github.jakartainbox.xa;

import io.github.jakartainbox.testing.LibertyServer;
import io.github.jakartainbox.testing.TestFiles;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.stream.Stream;
import org.jboss.shrinkwrap.api.ShrinkWrap;
import org.jboss.shrinkwrap.api.asset.StringAsset;
import org.jboss.shrinkwrap.api.exporter.ZipExporter;
import org.jboss.shrinkwrap.api.spec.WebArchive;

/**
 * The XA tests' Liberty server: {@code src/test/xa/server.xml} in a server directory of its own under the build's
 * Liberty ({@code wlp.dir}), WARs made of the library jar and {@link XaLedger}/{@link XaServlet}, each naming its
 * inbox datasource, dropped into {@code dropins}; started with {@code bin/server start}, stopped, or killed with
 * SIGKILL (nothing of the server's shutdown runs, the transaction log stays as the kill left it).
 */
public final class XaServer {

    private static final Duration READY = Duration.ofMinutes(3);

    private final Path war;
    private final int httpPort;
    private final LibertyServer server;
    private final Path dir;
    /**
     * HTTP/1.1 only: by default the JDK client asks a plain-HTTP server to upgrade to HTTP/2 (h2c), which Liberty's
     * servlet-6.0 accepts; with many requests at once, some then went unanswered for minutes until another request
     * came (seen once in XaIT's racing duplicates on a loaded machine: no claim ran for them in that time).
     */
    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5)).build();

    /**
     * Creates the server directory afresh (no transaction log, no messaging store), killing a server of that name an
     * earlier crashed run left.
     *
     * @param wlp         the Liberty installation ({@code target/liberty/wlp})
     * @param war         the built example WAR ({@code target/billing.war}): the library jar and its third-party
     *                    jars are taken from beside it
     * @param name        the server name
     * @param httpPort    its HTTP port
     * @param environment its environment besides {@code HTTP_PORT} (Liberty variables such as {@code XA_PG_PORT})
     */
    public XaServer(Path wlp, Path war, String name, int httpPort, Map<String, String> environment)
            throws IOException {
        this.war = war;
        this.httpPort = httpPort;
        // the billing tests' channel settings (Failsafe's environment) are no channels of these applications
        this.server = new LibertyServer(wlp, name, LibertyServer.messagingSettings());
        Map<String, String> variables = new HashMap<>(environment);
        variables.put("HTTP_PORT", String.valueOf(httpPort));
        server.environment(variables);
        this.dir = server.dir();
        kill();
        TestFiles.deleteTree(dir);
        Files.createDirectories(dir.resolve("dropins"));
        Files.copy(Path.of("src/test/xa/server.xml"), dir.resolve("server.xml"), StandardCopyOption.REPLACE_EXISTING);
        Files.writeString(dir.resolve("jvm.options"), "-Xms128m\n-Xmx512m\n");
    }

    /**
     * Puts a WAR into {@code dropins}: the library jar, the third-party jars the example's {@code WEB-INF/lib}
     * holds, the XA test classes, and a {@code microprofile-config.properties} with {@code properties}.
     *
     * @param application the WAR's name, also its context root
     * @param properties  its MicroProfile Config properties ({@code inbox.datasource}, ...)
     */
    public void deploy(String application, Map<String, String> properties) throws IOException {
        Path libraryJar = Path.of(System.getProperty("inbox.jar", "modules/inbox/target/inbox.jar"));
        if (!Files.isRegularFile(libraryJar)) {
            throw new IllegalStateException(libraryJar + " is built by the library's build (pom.xml, execution "
                    + "library, before the integration tests)");
        }
        StringBuilder config = new StringBuilder();
        properties.forEach((k, v) -> config.append(k).append('=').append(v).append('\n'));
        WebArchive archive = ShrinkWrap.create(WebArchive.class, application + ".war")
                .addAsLibrary(libraryJar.toFile())
                .addClasses(XaLedger.class, XaLedger.Fault.class, XaServlet.class)
                .addAsResource(new StringAsset(config.toString()), "META-INF/microprofile-config.properties");
        try (Stream<Path> jars = Files.list(war.resolveSibling("billing").resolve("WEB-INF/lib"))) {
            jars.forEach(p -> archive.addAsLibrary(p.toFile()));
        }
        archive.as(ZipExporter.class).exportTo(dir.resolve("dropins/" + application + ".war").toFile(), true);
    }

    /** Removes a WAR from {@code dropins} (Liberty stops the application). */
    public void undeploy(String application) throws IOException {
        Files.deleteIfExists(dir.resolve("dropins/" + application + ".war"));
    }

    /** Starts the server and waits until {@code application} has started. */
    public void start(String application) throws IOException, InterruptedException {
        int rc = server.run("start");
        if (rc != 0) {
            throw new IllegalStateException("server start " + server.name() + " exited " + rc + "; see " + log());
        }
        awaitStarted(application);
    }

    /** Stops the server gracefully (kills it when that fails). */
    public void stop() throws IOException, InterruptedException {
        server.stopOrKill();
    }

    /** Sends SIGKILL to the server's JVM, when one runs. */
    public void kill() throws IOException {
        server.kill();
    }

    /** @return the server's messages.log, all of it ("" before the first start) */
    public String log() throws IOException {
        return server.log();
    }

    /** @return the lines of messages.log holding {@code text} */
    public List<String> logLines(String text) throws IOException {
        return server.logLines(text);
    }

    /** Waits for Liberty's CWWKZ0001I for the application; fails with the log's errors when it did not start. */
    public void awaitStarted(String application) throws IOException, InterruptedException {
        // a new messages.log at each start: Liberty renames the last one
        if (!server.awaitLog("CWWKZ0001I: Application " + application + " started",
                List.of("CWWKZ0002E: An exception occurred while starting the application " + application), READY)) {
            throw new AssertionError("application " + application + " did not start: " + String.join("\n",
                    server.logLines(l -> l.contains(" E ") || l.contains("INBOX"))));
        }
    }

    /**
     * @return the response to a POST of {@code body} to {@code path} (status and text), or a status of -1 and the
     *         exception's text when no response came
     */
    public Response post(String path, String body) throws InterruptedException {
        return send(HttpRequest.newBuilder(uri(path)).timeout(Duration.ofMinutes(2))
                .POST(HttpRequest.BodyPublishers.ofString(body)).build());
    }

    /** @return the response to a GET of {@code path} */
    public Response get(String path) throws InterruptedException {
        return send(HttpRequest.newBuilder(uri(path)).timeout(Duration.ofMinutes(1)).GET().build());
    }

    /** @return a POST that is answered, or fails, later (the server may be killed meanwhile) */
    public CompletableFuture<HttpResponse<String>> postAsync(String path, String body) {
        return http.sendAsync(HttpRequest.newBuilder(uri(path)).timeout(Duration.ofMinutes(5))
                .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
    }

    /** One HTTP answer. */
    public record Response(int status, String body) {
    }

    private Response send(HttpRequest request) throws InterruptedException {
        try {
            HttpResponse<String> response = http.send(request, HttpResponse.BodyHandlers.ofString());
            return new Response(response.statusCode(), response.body());
        } catch (IOException e) {
            return new Response(-1, e.toString());
        }
    }

    private URI uri(String path) {
        return URI.create("http://127.0.0.1:" + httpPort + path);
    }
}
