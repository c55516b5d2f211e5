package io.github.jakartainbox.inbox;

import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.Optional;
import java.util.regex.Pattern;
import org.eclipse.microprofile.config.Config;
import org.eclipse.microprofile.config.ConfigProvider;

/**
 * Every MicroProfile Config key of the inbox, with its default, in one place. Liberty {@code <variable>}s in
 * {@code server.xml} are MicroProfile Config properties, so each key can be set there.
 *
 * <p>Keys marked "per consumer" are looked up first as {@code inbox.consumer.<consumer>.<key>}, then as
 * {@code inbox.<key>}, then take the default. {@code <consumer>} is the name given in
 * {@link Idempotent#consumer()}. Values are read once, when a consumer first receives a message.
 */
public final class InboxConfig {

    /** JNDI name of the JTA datasource that holds the inbox; the business data must use the same one. */
    public static final String DATASOURCE = "inbox.datasource";
    public static final String DATASOURCE_DEFAULT = "jdbc/inbox";

    /** Whether the inbox creates and upgrades its own tables with Flyway at startup ({@code db/inbox/*.sql}). */
    public static final String SCHEMA_MIGRATE = "inbox.schema.migrate";
    public static final boolean SCHEMA_MIGRATE_DEFAULT = true;

    /** Per consumer: overrides the consumer name of {@link Idempotent#consumer()}. */
    public static final String NAME = "name";

    /** Per consumer: where the event id is found: {@code payload} (a JSON field), {@code header} (a Kafka
     *  record header) or {@code bean} (an {@link io.github.jakartainbox.inbox.spi.EventIdExtractor}). */
    public static final String EVENT_ID_SOURCE = "event-id.source";
    public static final String EVENT_ID_SOURCE_DEFAULT = "payload";

    /** Per consumer: the top-level JSON field holding the event id, for source {@code payload}. */
    public static final String EVENT_ID_FIELD = "event-id.field";
    public static final String EVENT_ID_FIELD_DEFAULT = "event_id";

    /** Per consumer: the Kafka header holding the event id (UTF-8), for source {@code header}; use
     *  {@code ce_id} for CloudEvents in Kafka binary mode. */
    public static final String EVENT_ID_HEADER = "event-id.header";
    public static final String EVENT_ID_HEADER_DEFAULT = "event_id";

    /** Per consumer: the {@code @Named} name of the {@code EventIdExtractor} bean, for source {@code bean}. */
    public static final String EVENT_ID_BEAN = "event-id.bean";

    /** Per consumer: the longest event id accepted, in characters, 1 to 255. */
    public static final String EVENT_ID_MAX_LENGTH = "event-id.max-length";
    public static final int EVENT_ID_MAX_LENGTH_DEFAULT = 128;

    /** Per consumer: {@code payload} stores the SHA-256 of each processed payload with its inbox row, so that the
     *  same event id arriving again with a different payload is dead-lettered and logged (INBOX0102E) rather
     *  than skipped in silence; {@code none} stores nothing (for producers that re-serialize a retried event,
     *  changing its bytes). */
    public static final String FINGERPRINT = "fingerprint";
    public static final String FINGERPRINT_DEFAULT = "payload";

    /** Per consumer: attempts in all (the first one included) before an event is dead-lettered; at least 1. */
    public static final String RETRY_MAX_ATTEMPTS = "retry.max-attempts";
    public static final int RETRY_MAX_ATTEMPTS_DEFAULT = 3;

    /** Per consumer: ISO-8601 duration waited before the second attempt; doubled for each further one. */
    public static final String RETRY_DELAY = "retry.delay";
    public static final Duration RETRY_DELAY_DEFAULT = Duration.ofMillis(200);

    /** Per consumer: ISO-8601 duration, the longest wait between two attempts. */
    public static final String RETRY_MAX_DELAY = "retry.max-delay";
    public static final Duration RETRY_MAX_DELAY_DEFAULT = Duration.ofSeconds(5);

    /** Per consumer: ISO-8601 duration an inbox row is kept after processing; must exceed the longest possible
     *  replay (the topic's retention and the consumer group's offset retention). */
    public static final String RETENTION = "retention";
    public static final Duration RETENTION_DEFAULT = Duration.ofDays(14);

    /** Per consumer: ISO-8601 duration, the retention of the topic the consumer reads; when set, a shorter or
     *  equal inbox retention is logged as a warning at start (INBOX0301W). */
    public static final String TOPIC_RETENTION = "topic-retention";

    /** Per consumer: top-level JSON field with the event's own time (ISO-8601 with offset), used in
     *  partitioned mode; without it the event id must be a UUIDv7. */
    public static final String EVENT_TIME_FIELD = "event-time.field";

    /** {@code none} (one table, purged by batched DELETE) or {@code monthly} (partitioned by the event's month,
     *  expired months dropped whole); {@code monthly} applies migration db/inbox-monthly, which is one-way. */
    public static final String PARTITIONING = "inbox.partitioning";
    public static final String PARTITIONING_DEFAULT = "none";

    /** Monthly mode: how many months after the current one have their partition created ahead of time. */
    public static final String PARTITION_MONTHS_AHEAD = "inbox.partition.months-ahead";
    public static final int PARTITION_MONTHS_AHEAD_DEFAULT = 3;

    /** Monthly mode: ISO-8601 duration a partition DDL statement waits for its lock before giving up until the
     *  next purge run, so that it never queues behind readers and writers. */
    public static final String PARTITION_LOCK_TIMEOUT = "inbox.partition.lock-timeout";
    public static final Duration PARTITION_LOCK_TIMEOUT_DEFAULT = Duration.ofSeconds(2);

    /** When the purge runs: an EJB calendar expression of six fields, {@code second minute hour dayOfMonth
     *  month dayOfWeek} (Jakarta Enterprise Beans 4.0, section 13.3.1), or {@code off}. */
    public static final String PURGE_SCHEDULE = "inbox.purge.schedule";
    public static final String PURGE_SCHEDULE_DEFAULT = "0 */5 * * * *";

    /** Rows deleted per transaction by the purge. */
    public static final String PURGE_BATCH_SIZE = "inbox.purge.batch-size";
    public static final int PURGE_BATCH_SIZE_DEFAULT = 5000;

    /** ISO-8601 duration of a purge run's lease, renewed after every batch; another server takes over a lease
     *  that its owner let expire (it crashed). */
    public static final String PURGE_LEASE = "inbox.purge.lease";
    public static final Duration PURGE_LEASE_DEFAULT = Duration.ofMinutes(10);

    /** ISO-8601 duration after which a purge that has not succeeded is reported overdue. */
    public static final String PURGE_OVERDUE_AFTER = "inbox.purge.overdue-after";
    public static final Duration PURGE_OVERDUE_AFTER_DEFAULT = Duration.ofHours(1);

    private static final Pattern CONSUMER_NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]{0,99}");

    private InboxConfig() {
    }

    /**
     * @param name a consumer name
     * @return {@code true} when it is 1 to 100 characters of {@code [A-Za-z0-9._-]} starting with a letter or digit
     */
    public static boolean isValidConsumerName(String name) {
        return name != null && CONSUMER_NAME.matcher(name).matches();
    }

    /**
     * @param annotated a consumer name as written in {@link Idempotent#consumer()}
     * @return the name the inbox stores for it, looked up as {@link InboxConsumers} does ({@code
     *         inbox.consumer.<annotated>.name}), else {@code annotated}
     */
    public static String consumerName(String annotated) {
        return perConsumer(ConfigProvider.getConfig(), annotated, NAME, annotated);
    }

    static String perConsumer(Config config, String consumer, String key, String defaultValue) {
        return config.getOptionalValue("inbox.consumer." + consumer + "." + key, String.class)
                .or(() -> config.getOptionalValue("inbox." + key, String.class))
                .map(String::trim)
                .filter(v -> !v.isEmpty())
                .orElse(defaultValue);
    }

    static int perConsumerInt(Config config, String consumer, String key, int defaultValue, int min, int max) {
        return parseInt(keyFor(consumer, key), perConsumer(config, consumer, key, Integer.toString(defaultValue)),
                min, max);
    }

    /** Per-consumer durations may be zero (a retry delay); a zero retention is refused where it is used. */
    static Duration perConsumerDuration(Config config, String consumer, String key, Duration defaultValue) {
        return parseDuration(keyFor(consumer, key), perConsumer(config, consumer, key, defaultValue.toString()), true);
    }

    static int globalInt(Config config, String key, int defaultValue, int min, int max) {
        return parseInt(key, global(config, key).orElse(Integer.toString(defaultValue)), min, max);
    }

    static Duration globalDuration(Config config, String key, Duration defaultValue) {
        return parseDuration(key, global(config, key).orElse(defaultValue.toString()), false);
    }

    private static int parseInt(String key, String text, int min, int max) {
        try {
            int value = Integer.parseInt(text);
            if (value >= min && value <= max) {
                return value;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw new IllegalStateException(InboxLog.format("INBOX0004E", key, text, "an integer from " + min + " to " + max));
    }

    private static Duration parseDuration(String key, String text, boolean allowZero) {
        try {
            Duration value = Duration.parse(text);
            if (!value.isNegative() && (allowZero || !value.isZero())) {
                return value;
            }
        } catch (DateTimeParseException e) {
            // reported below
        }
        throw new IllegalStateException(InboxLog.format("INBOX0004E", key, text, allowZero
                ? "a non-negative ISO-8601 duration such as PT0.2S or P14D"
                : "a positive ISO-8601 duration such as PT10M"));
    }

    static Optional<String> global(Config config, String key) {
        return config.getOptionalValue(key, String.class).map(String::trim).filter(v -> !v.isEmpty());
    }

    private static String keyFor(String consumer, String key) {
        return "inbox.consumer." + consumer + "." + key + " (or inbox." + key + ")";
    }
}
