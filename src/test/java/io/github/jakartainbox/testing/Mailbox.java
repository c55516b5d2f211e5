package io.github.jakartainbox.testing;

import jakarta.json.Json;
import jakarta.json.JsonArray;
import jakarta.json.JsonObject;
import jakarta.json.JsonReader;
import java.io.StringReader;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The mails the local SMTP server (GreenMail, bin/smtp-server) received for one recipient, through its REST API on
 * 127.0.0.1:$SMTP_API_PORT (default 8025).
 */
public final class Mailbox {

    /** A received mail. */
    public record Mail(String messageId, String subject, String mime) {
    }

    private static final int API_PORT = Integer.parseInt(System.getenv().getOrDefault("SMTP_API_PORT", "8025"));
    private static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    private Mailbox() {
    }

    /**
     * @param address the recipient
     * @return the mails received for it, oldest first; none when the server knows no such recipient
     */
    public static List<Mail> of(String address) throws Exception {
        HttpResponse<String> response = HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + API_PORT
                        + "/api/user/" + URLEncoder.encode(address, StandardCharsets.UTF_8) + "/messages/"))
                .timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString());
        List<Mail> mails = new ArrayList<>();
        if (response.statusCode() != 200) {
            return mails; // GreenMail answers 400 for a recipient it never saw
        }
        try (JsonReader reader = Json.createReader(new StringReader(response.body()))) {
            JsonArray array = reader.readArray();
            for (JsonObject m : array.getValuesAs(JsonObject.class)) {
                mails.add(new Mail(m.getString("Message-ID", null), m.getString("subject", null),
                        m.getString("mimeMessage", "")));
            }
        }
        return mails;
    }

    /**
     * @return every recipient the server has received a mail for since it started, as it recorded them (it makes a
     *         user for each {@code RCPT TO}): what no single-address query can miss, such as a garbled address
     */
    public static List<String> recipients() throws Exception {
        HttpResponse<String> response = HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + API_PORT
                + "/api/user")).timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString());
        if (response.statusCode() != 200) {
            throw new IllegalStateException("GreenMail's /api/user answered " + response.statusCode());
        }
        List<String> recipients = new ArrayList<>();
        try (JsonReader reader = Json.createReader(new StringReader(response.body()))) {
            for (JsonObject user : reader.readArray().getValuesAs(JsonObject.class)) {
                recipients.add(user.getString("email", user.getString("login", "")));
            }
        }
        return recipients;
    }

    /** Polls until {@code address} has at least {@code count} mails or the timeout passes; the caller asserts. */
    public static List<Mail> await(String address, int count, Duration timeout) throws Exception {
        return Waiting.lastValue(Waiting.await().atMost(timeout).pollInterval(Duration.ofMillis(200)),
                () -> of(address), mails -> mails.size() >= count);
    }
}
