package io.github.jakartainbox.faults;

import io.github.jakartainbox.testing.Commands;
import jakarta.json.Json;
import jakarta.json.JsonObject;
import jakarta.json.JsonReader;
import java.io.IOException;
import java.io.StringReader;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;

/**
 * The fault suite's own SMTP server, GreenMail started and stopped with {@code bin/smtp-server} on
 * 127.0.0.1:{@value #PORT} (IMAP {@value #IMAP_PORT}, REST API {@value #API_PORT}), home
 * {@code ~/.cache/jakarta-inbox/smtp-faults}, so that the suite's invoice mails never reach the shared one on 3025.
 * Also what the suite asks it: the Message-IDs a recipient received, and a purge of all mails between scenarios
 * (GreenMail keeps them in memory).
 */
final class PrivateSmtp {

    static final int PORT = 19025;
    static final int IMAP_PORT = 19143;
    static final int API_PORT = 19825;
    private static final Duration TIMEOUT = Duration.ofMinutes(3);

    private final Path project = Path.of("").toAbsolutePath();
    private final Path home = Path.of(System.getProperty("user.home"), ".cache/jakarta-inbox/smtp-faults");
    private final Map<String, String> environment = Map.of("SMTP_HOME_DIR", home.toString(),
            "SMTP_PORT", String.valueOf(PORT), "SMTP_IMAP_PORT", String.valueOf(IMAP_PORT),
            "SMTP_API_PORT", String.valueOf(API_PORT));
    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(Duration.ofSeconds(5)).build();

    /** Stops a server a crashed earlier run left and starts a fresh one (no mails). */
    void start() throws IOException, InterruptedException {
        script("stop");
        String output = script("start");
        if (!output.contains("started on")) {
            throw new IllegalStateException("bin/smtp-server did not start a GreenMail of its own on port " + PORT
                    + " (another process listens there? stop it, the fault suite needs the port): " + output);
        }
    }

    /** Stops the server. */
    void stop() throws IOException, InterruptedException {
        script("stop");
    }

    /**
     * Asks for the mails of many recipients, 32 requests at a time (one after the other, each waits about 40 ms
     * here: 5,000 recipients took minutes).
     *
     * @param addresses recipients
     * @return per recipient, the Message-ID of each mail it received (one entry per mail, so a duplicate appears
     *         twice); an empty list when it received none
     */
    Map<String, List<String>> messageIds(Collection<String> addresses) throws InterruptedException {
        Map<String, List<String>> result = new ConcurrentHashMap<>();
        Semaphore inFlight = new Semaphore(32);
        List<CompletableFuture<?>> requests = new ArrayList<>();
        for (String address : addresses) {
            inFlight.acquire();
            requests.add(http.sendAsync(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + API_PORT
                            + "/api/user/" + URLEncoder.encode(address, StandardCharsets.UTF_8) + "/messages/"))
                            .timeout(Duration.ofSeconds(60)).build(), HttpResponse.BodyHandlers.ofString())
                    .whenComplete((response, error) -> inFlight.release())
                    .thenAccept(response -> result.put(address, messageIds(response))));
        }
        CompletableFuture.allOf(requests.toArray(CompletableFuture[]::new)).join();
        return result;
    }

    private static List<String> messageIds(HttpResponse<String> response) {
        List<String> ids = new ArrayList<>();
        if (response.statusCode() != 200) {
            return ids; // GreenMail answers 400 for a recipient it never saw
        }
        try (JsonReader reader = Json.createReader(new StringReader(response.body()))) {
            for (JsonObject m : reader.readArray().getValuesAs(JsonObject.class)) {
                ids.add(m.getString("Message-ID", m.getString("messageId", "")));
            }
        }
        return ids;
    }

    /** Deletes every mail of every mailbox: a scenario's mails are counted, and GreenMail holds them in memory. */
    void purge() throws IOException, InterruptedException {
        HttpResponse<String> response = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + API_PORT
                        + "/api/mail/purge")).POST(HttpRequest.BodyPublishers.noBody())
                .timeout(Duration.ofSeconds(60)).build(), HttpResponse.BodyHandlers.ofString());
        if (response.statusCode() != 200) {
            System.out.println("  GreenMail purge answered HTTP " + response.statusCode() + ": " + response.body());
        }
    }

    private String script(String action) throws IOException, InterruptedException {
        Path log = Files.createTempFile("smtp-server", ".log");
        try {
            Files.createDirectories(home);
            Commands.check(List.of(project.resolve("bin/smtp-server").toString(), action), project, environment,
                    log, TIMEOUT);
            return Files.readString(log);
        } finally {
            Files.delete(log);
        }
    }
}
