package io.github.jakartainbox.outbox;

import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.Optional;
import java.util.Properties;
import org.eclipse.microprofile.config.Config;

/**
 * Every MicroProfile Config key of the outbox and its relay, with its default. Durations are ISO-8601.
 */
public final class OutboxConfig {

    /** ISO-8601 duration a delivered outbox row is kept before the inbox purge deletes it. */
    public static final String RETENTION = "inbox.outbox.retention";
    public static final Duration RETENTION_DEFAULT = Duration.ofDays(7);

    /** Whether this server runs the relay ({@code false}: rows are recorded, another server delivers them). */
    public static final String RELAY_ENABLED = "outbox.relay.enabled";

    /** ISO-8601 duration between the relay's fallback polls (rows left by a crash, rows due after a backoff, rows
     *  committed on a server whose relay did not hold the lease). A commit wakes the relay at once. */
    public static final String POLL_INTERVAL = "outbox.relay.poll-interval";
    public static final Duration POLL_INTERVAL_DEFAULT = Duration.ofSeconds(1);

    /** Rows read per relay round. */
    public static final String BATCH_SIZE = "outbox.relay.batch-size";
    public static final int BATCH_SIZE_DEFAULT = 500;

    /** ISO-8601 duration of the relay lease, renewed every round; another server takes over a lease that expired
     *  (its owner died). */
    public static final String LEASE = "outbox.relay.lease";
    public static final Duration LEASE_DEFAULT = Duration.ofSeconds(30);

    /** ISO-8601 duration waited before a failed row is sent again; doubled for each further failure. */
    public static final String RETRY_DELAY = "outbox.relay.retry.delay";
    public static final Duration RETRY_DELAY_DEFAULT = Duration.ofMillis(500);

    /** ISO-8601 duration, the longest wait between two sends of a failing row. */
    public static final String RETRY_MAX_DELAY = "outbox.relay.retry.max-delay";
    public static final Duration RETRY_MAX_DELAY_DEFAULT = Duration.ofMinutes(1);

    /** Failed sends after which a row is listed as failing and logged (OUTBOX0202E). */
    public static final String FAILING_AFTER = "outbox.relay.failing-after";
    public static final int FAILING_AFTER_DEFAULT = 5;

    /** Prefix of the Kafka producer properties: {@code outbox.kafka.bootstrap.servers} (required) and any other
     *  producer setting, e.g. {@code outbox.kafka.delivery.timeout.ms}. */
    public static final String KAFKA_PREFIX = "outbox.kafka.";

    private OutboxConfig() {
    }

    static Duration duration(Config config, String key, Duration defaultValue) {
        String text = text(config, key).orElse(defaultValue.toString());
        try {
            Duration value = Duration.parse(text);
            if (!value.isNegative() && !value.isZero()) {
                return value;
            }
        } catch (DateTimeParseException e) {
            // reported below
        }
        throw new IllegalStateException(OutboxMessage.OUTBOX0003E.format(key, text,
                "a positive ISO-8601 duration such as PT1S or P7D"));
    }

    static int integer(Config config, String key, int defaultValue, int min, int max) {
        String text = text(config, key).orElse(Integer.toString(defaultValue));
        try {
            int value = Integer.parseInt(text);
            if (value >= min && value <= max) {
                return value;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw new IllegalStateException(OutboxMessage.OUTBOX0003E.format(key, text,
                "an integer from " + min + " to " + max));
    }

    static boolean bool(Config config, String key, boolean defaultValue) {
        String text = text(config, key).orElse(Boolean.toString(defaultValue));
        if (text.equalsIgnoreCase("true") || text.equalsIgnoreCase("false")) {
            return Boolean.parseBoolean(text);
        }
        throw new IllegalStateException(OutboxMessage.OUTBOX0003E.format(key, text, "true or false"));
    }

    /** @return every {@code outbox.kafka.*} property, without the prefix */
    static Properties kafka(Config config) {
        Properties properties = new Properties();
        for (String name : config.getPropertyNames()) {
            if (name.startsWith(KAFKA_PREFIX)) {
                text(config, name).ifPresent(v -> properties.put(name.substring(KAFKA_PREFIX.length()), v));
            }
        }
        return properties;
    }

    static Optional<String> text(Config config, String key) {
        return config.getOptionalValue(key, String.class).map(String::trim).filter(v -> !v.isEmpty());
    }
}
