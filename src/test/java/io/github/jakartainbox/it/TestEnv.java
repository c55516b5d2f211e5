package io.github.jakartainbox.it;

/**
 * Where the tests find the services they talk to, from the same environment variables the Liberty servers read
 * (bin/test sets them): {@code KAFKA_BOOTSTRAP_SERVERS} (default {@code 127.0.0.1:9092}) and {@code HTTP_PORT}
 * (default {@code 9080}). Running the tests with other values keeps them apart from a service already running.
 */
public final class TestEnv {

    /** The Kafka broker list the tests produce to and the servers consume from. */
    public static final String BOOTSTRAP = env("KAFKA_BOOTSTRAP_SERVERS", "127.0.0.1:9092");

    /** The HTTP port of the Liberty server under test. */
    public static final int HTTP_PORT = Integer.parseInt(env("HTTP_PORT", "9080"));

    private TestEnv() {
    }

    /** @return {@code http://localhost:<HTTP_PORT>} followed by {@code path} */
    public static String url(String path) {
        return "http://localhost:" + HTTP_PORT + path;
    }

    private static String env(String name, String defaultValue) {
        String value = System.getenv(name);
        return value == null || value.isBlank() ? defaultValue : value.trim();
    }
}
