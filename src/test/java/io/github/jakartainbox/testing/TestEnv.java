package io.github.jakartainbox.testing;

/**
 * Where the tests find the services they talk to, from the same environment variables the Liberty servers read.
 * Failsafe sets them from the pom's {@code it.*} properties (bin/test passes its {@code HTTP_PORT} and
 * {@code DB_NAME}), so that a test run keeps apart from the example service running beside it: its own HTTP port
 * ({@code it.http.port}, 9081), database ({@code it.db.name}, {@code billing_it}), topic ({@code it.orders.topic})
 * and consumer groups (pom properties it.*, new at each build).
 */
public final class TestEnv {

    /** The Kafka broker list the tests produce to and the servers consume from. */
    public static final String BOOTSTRAP = env("KAFKA_BOOTSTRAP_SERVERS", "127.0.0.1:9092");

    /** The HTTP port of the Liberty server under test. */
    public static final int HTTP_PORT = Integer.parseInt(env("HTTP_PORT", "9081"));

    /**
     * The topic the test servers' {@code orders-billing} and {@code orders-analytics} channels consume (and
     * re-drives write to, billing.redrive.topic): the same environment variable that sets it on the servers.
     */
    public static final String ORDERS_TOPIC = env("MP_MESSAGING_INCOMING_ORDERS_BILLING_TOPIC", "it.orders.confirmed");

    /** The consumer group of the test servers' {@code orders-status} channel (consumer order-status, no inbox). */
    public static final String ORDER_STATUS_GROUP = env("MP_MESSAGING_INCOMING_ORDERS_STATUS_GROUP_ID",
            "it-order-status");

    /** The topic the tests' servers publish {@code invoices.issued} to (the mailer's channel reads it). */
    public static final String INVOICES_TOPIC = env("MP_MESSAGING_INCOMING_INVOICES_MAILER_TOPIC", "it.invoices.issued");

    /** The topic of the tests' {@code probe-kafka} channel: one per build (test server.xml, {@code it.run.id}). */
    public static final String PROBE_TOPIC = "it.probe.events." + env("IT_RUN_ID", "local");

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
