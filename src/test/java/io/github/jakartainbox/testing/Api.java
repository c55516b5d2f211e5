package io.github.jakartainbox.testing;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;

/**
 * Calls the billing REST API over HTTP as a given user. Passwords come from the environment the tests and the
 * servers they start share (bin/test sets random ones): BILLING_READER_PASSWORD, BILLING_OPERATOR_PASSWORD.
 */
public final class Api {

    /** A user of the example's basic registry. */
    public record User(String name, String password) {
    }

    public static final User READER = new User("reader", password("BILLING_READER_PASSWORD"));
    public static final User OPERATOR = new User("operator", password("BILLING_OPERATOR_PASSWORD"));

    private static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    private Api() {
    }

    private static String password(String variable) {
        String value = System.getenv(variable);
        if (value == null || value.isBlank()) {
            throw new IllegalStateException(variable + " is not set: the tests and the Liberty servers they start need "
                    + "the API passwords in the environment; run the tests with bin/test, which sets random ones");
        }
        return value;
    }

    /**
     * @param method HTTP method
     * @param url    full URL
     * @param user   who calls, {@code null} for no credentials
     * @return the response, body as text
     * @throws Exception when the call fails
     */
    public static HttpResponse<String> call(String method, String url, User user) throws Exception {
        return call(method, url, user, null, null);
    }

    /**
     * @param method      HTTP method
     * @param url         full URL
     * @param user        who calls, {@code null} for no credentials
     * @param contentType the body's media type, {@code null} without a body
     * @param body        the body's bytes, {@code null} for none
     * @return the response, body as text
     * @throws Exception when the call fails
     */
    public static HttpResponse<String> call(String method, String url, User user, String contentType, byte[] body)
            throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(120))
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody()
                        : HttpRequest.BodyPublishers.ofByteArray(body));
        if (contentType != null) {
            request.header("Content-Type", contentType);
        }
        if (user != null) {
            request.header("Authorization", "Basic " + Base64.getEncoder().encodeToString(
                    (user.name() + ":" + user.password()).getBytes(StandardCharsets.UTF_8)));
        }
        return HTTP.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    /**
     * @param consumer a consumer's inbox name
     * @param name     a counter of {@code GET /billing/api/inbox} ({@code duplicatesSkipped}, {@code redriveAimsRejected}...)
     * @return its value for the consumer, 0 when the consumer is not listed (nothing counted yet)
     * @throws Exception when the call fails or does not answer 200
     */
    public static long figure(String consumer, String name) throws Exception {
        HttpResponse<String> answer = call("GET", TestEnv.url("/billing/api/inbox"), READER);
        if (answer.statusCode() != 200) {
            throw new IllegalStateException("GET /billing/api/inbox answered " + answer.statusCode() + ": "
                    + answer.body());
        }
        try (jakarta.json.JsonReader reader = jakarta.json.Json.createReader(new java.io.StringReader(answer.body()))) {
            for (jakarta.json.JsonObject c : reader.readArray().getValuesAs(jakarta.json.JsonObject.class)) {
                if (c.getString("consumer").equals(consumer)) {
                    return c.getJsonNumber(name).longValue();
                }
            }
        }
        return 0;
    }
}
