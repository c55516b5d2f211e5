package io.github.jakartainbox.outbox;

import io.github.jakartainbox.inbox.ConfigKey;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Properties;
import org.eclipse.microprofile.config.Config;

/**
 * Every MicroProfile Config key of the outbox and its relay, with its default: a catalogue of {@link ConfigKey}s, read
 * by the inbox keys' rules, all checked when the relay starts ({@link #problems}). Durations are ISO-8601.
 */
public final class OutboxConfig {

    private static final String POSITIVE_DURATION = "a positive ISO-8601 duration such as PT1S or P7D";

    /** ISO-8601 duration a delivered outbox row is kept before the inbox purge deletes it. */
    public static final ConfigKey<Duration> RETENTION = ConfigKey.duration("inbox.outbox.retention", "P7D",
            POSITIVE_DURATION, false, null, OutboxMessage.OUTBOX0003E);

    /** Whether this server runs the relay ({@code false}: rows are recorded, another server delivers them). */
    public static final ConfigKey<Boolean> RELAY_ENABLED = ConfigKey.bool("outbox.relay.enabled", "true",
            OutboxMessage.OUTBOX0003E);

    /** ISO-8601 duration between the relay's fallback polls (rows left by a crash, rows due after a backoff, rows
     *  committed on a server whose relay did not hold the lease). A commit wakes the relay at once. */
    public static final ConfigKey<Duration> POLL_INTERVAL = ConfigKey.duration("outbox.relay.poll-interval", "PT1S",
            POSITIVE_DURATION, false, null, OutboxMessage.OUTBOX0003E);

    /** Rows read per relay round. */
    public static final ConfigKey<Integer> BATCH_SIZE = ConfigKey.integer("outbox.relay.batch-size", "500", 1, 10_000,
            OutboxMessage.OUTBOX0003E);

    /** ISO-8601 duration of the relay lease, renewed every round; another server takes over a lease that expired
     *  (its owner died). */
    public static final ConfigKey<Duration> LEASE = ConfigKey.duration("outbox.relay.lease", "PT30S",
            POSITIVE_DURATION, false, null, OutboxMessage.OUTBOX0003E);

    /** ISO-8601 duration waited before a failed row is sent again; doubled for each further failure. */
    public static final ConfigKey<Duration> RETRY_DELAY = ConfigKey.duration("outbox.relay.retry.delay", "PT0.5S",
            POSITIVE_DURATION, false, null, OutboxMessage.OUTBOX0003E);

    /** ISO-8601 duration, the longest wait between two sends of a failing row. */
    public static final ConfigKey<Duration> RETRY_MAX_DELAY = ConfigKey.duration("outbox.relay.retry.max-delay",
            "PT1M", POSITIVE_DURATION, false, null, OutboxMessage.OUTBOX0003E);

    /** Failed sends after which a row is listed as failing and logged (OUTBOX0202E). */
    public static final ConfigKey<Integer> FAILING_AFTER = ConfigKey.integer("outbox.relay.failing-after", "5", 1,
            1000, OutboxMessage.OUTBOX0003E);

    /** Prefix of the Kafka producer properties: {@code outbox.kafka.bootstrap.servers} (required) and any other
     *  producer setting, e.g. {@code outbox.kafka.delivery.timeout.ms}. */
    public static final String KAFKA_PREFIX = "outbox.kafka.";

    private static final List<ConfigKey<?>> KEYS = List.of(RETENTION, RELAY_ENABLED, POLL_INTERVAL, BATCH_SIZE, LEASE,
            RETRY_DELAY, RETRY_MAX_DELAY, FAILING_AFTER);

    private OutboxConfig() {
    }

    /** @return every key but the {@value #KAFKA_PREFIX} producer properties */
    public static List<ConfigKey<?>> keys() {
        return KEYS;
    }

    /**
     * @param config the configuration
     * @return one {@code OUTBOX0003E} text for each key whose value does not parse; empty when all do
     */
    public static List<String> problems(Config config) {
        return ConfigKey.problems(config, KEYS);
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
