package io.github.jakartainbox.inbox;

import io.github.jakartainbox.inbox.logging.InboxMessage;
import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;
import java.util.regex.Pattern;
import org.eclipse.microprofile.config.Config;
import org.eclipse.microprofile.config.ConfigProvider;

/**
 * The key catalogue: every MicroProfile Config key of the inbox, declared once with its scope, default, bounds and
 * parser. Liberty {@code <variable>}s in {@code server.xml} are MicroProfile Config properties, so each key can be
 * set there, and the environment sets any key too (dots and dashes as underscores, upper case:
 * {@code INBOX_CONSUMER_BILLING_RETENTION}). docs/configuration.md's key table is checked against {@link #keys()} by a
 * unit test.
 *
 * <p>Rules shared by all keys: values are trimmed, and an empty value counts as unset; enumerated values (and
 * booleans, which are {@code true} or {@code false} and nothing else) are matched ignoring case; durations are
 * ISO-8601 ({@code PT0.2S}, {@code P14D}); a value that does not parse fails the deployment with {@code INBOX0004E}
 * naming the key and what it must be.
 */
public final class InboxConfig {

    /** Where a key is looked up. */
    public enum Scope {
        /** {@code inbox.<key>} only. */
        GLOBAL("global"),
        /** {@code inbox.consumer.<consumer>.<key>} only: no global fallback (a consumer's name). */
        PER_CONSUMER("per consumer"),
        /** {@code inbox.consumer.<consumer>.<key>}, else {@code inbox.<key>}, else the default. */
        PER_CONSUMER_OR_GLOBAL("per consumer, else global");

        private final String text;

        Scope(String text) {
            this.text = text;
        }

        /** @return how docs/configuration.md names this scope */
        public String text() {
            return text;
        }
    }

    /**
     * One configuration key.
     *
     * @param <T> the type of its parsed value
     */
    public static final class Key<T> {

        private final String name;
        private final Scope scope;
        private final String defaultText;
        private final String allowed;
        private final Function<String, T> parser;

        private Key(String name, Scope scope, String defaultText, String allowed, Function<String, T> parser) {
            this.name = name;
            this.scope = scope;
            this.defaultText = defaultText;
            this.allowed = allowed;
            this.parser = parser;
            if (defaultText != null && parser.apply(defaultText) == null) {
                throw new IllegalArgumentException(name + ": default " + defaultText + " is not " + allowed);
            }
        }

        /** @return the key as docs/configuration.md writes it: {@code inbox.datasource} for a global key, {@code retry.delay}
         *          for a per-consumer key (read as {@code inbox.consumer.<consumer>.retry.delay}) */
        public String name() {
            return name;
        }

        /** @return where the key is looked up */
        public Scope scope() {
            return scope;
        }

        /** @return the default as text, empty when the key has none */
        public Optional<String> defaultText() {
            return Optional.ofNullable(defaultText);
        }

        /** @return what a value must be, as the error text says it */
        public String allowed() {
            return allowed;
        }

        /** @return the property name of the global form: {@code inbox.<key>} */
        public String globalName() {
            return name.startsWith(PREFIX) ? name : PREFIX + name;
        }

        /** @return the property name for one consumer: {@code inbox.consumer.<consumer>.<key>} */
        public String consumerName(String consumer) {
            return CONSUMER_PREFIX + consumer + "." + name;
        }

        /**
         * @param config the configuration
         * @return the global value, else the default; empty when neither is set
         * @throws IllegalStateException (INBOX0004E) when the value does not parse
         */
        public Optional<T> find(Config config) {
            if (scope == Scope.PER_CONSUMER) {
                throw new IllegalArgumentException(name + " has no global form");
            }
            return read(config, globalName()).or(() -> defaultValue());
        }

        /**
         * @param config   the configuration
         * @param consumer the consumer name of {@link Idempotent#consumer()}
         * @return the consumer's value, else (unless {@link Scope#PER_CONSUMER}) the global one, else the default
         * @throws IllegalStateException (INBOX0004E) when the value does not parse
         */
        public Optional<T> find(Config config, String consumer) {
            if (scope == Scope.GLOBAL) {
                throw new IllegalArgumentException(name + " has no per-consumer form");
            }
            Optional<T> own = read(config, consumerName(consumer));
            if (own.isPresent() || scope == Scope.PER_CONSUMER) {
                return own.or(() -> defaultValue());
            }
            return read(config, globalName()).or(() -> defaultValue());
        }

        /**
         * @param config the configuration
         * @return the global value, else the default
         * @throws IllegalStateException (INBOX0004E) when the value does not parse
         * @throws java.util.NoSuchElementException for a key without a default that is not set: use {@link
         *                                          #find(Config)}
         */
        public T get(Config config) {
            return find(config).orElseThrow();
        }

        /**
         * @param config   the configuration
         * @param consumer the consumer name of {@link Idempotent#consumer()}
         * @return the value as {@link #find(Config, String)} finds it, for a key that has a default
         * @throws IllegalStateException (INBOX0004E) when the value does not parse
         * @throws java.util.NoSuchElementException for a key without a default that is not set
         */
        public T get(Config config, String consumer) {
            return find(config, consumer).orElseThrow();
        }

        private Optional<T> defaultValue() {
            return Optional.ofNullable(defaultText).map(parser);
        }

        private Optional<T> read(Config config, String property) {
            Optional<String> text = config.getOptionalValue(property, String.class).map(String::trim)
                    .filter(v -> !v.isEmpty());
            return text.map(v -> parse(property, v));
        }

        /**
         * @param property the property the text came from, for the error
         * @param text     the trimmed value
         * @return the parsed value
         * @throws IllegalStateException (INBOX0004E) when it does not parse
         */
        public T parse(String property, String text) {
            T value = parser.apply(text);
            if (value == null) {
                throw new IllegalStateException(InboxMessage.INBOX0004E.format(property, text, allowed));
            }
            return value;
        }
    }

    /** The namespace of every inbox key. */
    public static final String PREFIX = "inbox.";
    /** The namespace of per-consumer keys: {@code inbox.consumer.<consumer>.<key>}. */
    public static final String CONSUMER_PREFIX = PREFIX + "consumer.";

    private static final Pattern CONSUMER_NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]{0,99}");
    private static final String POSITIVE_DURATION = "a positive ISO-8601 duration such as PT10M";
    private static final String NON_NEGATIVE_DURATION = "a non-negative ISO-8601 duration such as PT0.2S";

    /** JNDI name of the JTA datasource that holds the inbox; the business data must use the same one. */
    public static final Key<String> DATASOURCE = new Key<>("inbox.datasource", Scope.GLOBAL, "jdbc/inbox",
            "a JNDI name", InboxConfig::text);

    /** Whether the inbox creates and upgrades its own tables with Flyway at start. */
    public static final Key<Boolean> SCHEMA_MIGRATE = new Key<>("inbox.schema.migrate", Scope.GLOBAL, "true",
            "true or false", InboxConfig::bool);

    /** {@code none} (one table, purged by batched DELETE) or {@code monthly} (partitioned by the event's month,
     *  one-way migration). */
    public static final Key<String> PARTITIONING = new Key<>("inbox.partitioning", Scope.GLOBAL, "none",
            "none or monthly", choice("none", "monthly"));

    /** Monthly mode: months after the current one whose partitions are created ahead of time. */
    public static final Key<Integer> PARTITION_MONTHS_AHEAD = new Key<>("inbox.partition.months-ahead",
            Scope.GLOBAL, "3", "an integer from 1 to 120", integer(1, 120));

    /** Monthly mode: how long partition DDL waits for its lock before giving up until the next purge run. */
    public static final Key<Duration> PARTITION_LOCK_TIMEOUT = new Key<>("inbox.partition.lock-timeout",
            Scope.GLOBAL, "PT2S", POSITIVE_DURATION, duration(false));

    /** When the purge runs: an EJB calendar expression of six fields, {@code second minute hour dayOfMonth month
     *  dayOfWeek} (Jakarta Enterprise Beans 4.0, section 13.3.1), or {@code off}. */
    public static final Key<String> PURGE_SCHEDULE = new Key<>("inbox.purge.schedule", Scope.GLOBAL,
            "0 */5 * * * *", "six fields 'second minute hour dayOfMonth month dayOfWeek' such as '0 */5 * * * *', "
            + "or off", InboxConfig::schedule);

    /** Rows deleted per transaction by the purge. */
    public static final Key<Integer> PURGE_BATCH_SIZE = new Key<>("inbox.purge.batch-size", Scope.GLOBAL, "5000",
            "an integer from 1 to 1000000", integer(1, 1_000_000));

    /** A purge run's lease, renewed per batch; another server takes over a lease its owner let expire. */
    public static final Key<Duration> PURGE_LEASE = new Key<>("inbox.purge.lease", Scope.GLOBAL, "PT10M",
            POSITIVE_DURATION, duration(false));

    /** After how long without a successful run the purge is reported overdue. */
    public static final Key<Duration> PURGE_OVERDUE_AFTER = new Key<>("inbox.purge.overdue-after", Scope.GLOBAL,
            "PT1H", POSITIVE_DURATION, duration(false));

    /** How long a dead letter's re-drive claim holds: a claim older than this (its server stopped between the claim
     *  and the mark) no longer keeps another re-drive of the row out. Keep it above the application's send timeout. */
    public static final Key<Duration> DEAD_LETTER_REDRIVE_LEASE = new Key<>("inbox.dead-letter.redrive-lease",
            Scope.GLOBAL, "PT1M", POSITIVE_DURATION, duration(false));

    /** The name of {@link #DEAD_LETTER_RETENTION}, for Javadoc. */
    public static final String DEAD_LETTER_RETENTION_NAME = "inbox.dead-letter.retention";

    /** How long a resolved dead letter (re-driven, processed or discarded) is kept, with its history and payload,
     *  before the purge deletes it; open dead letters are never deleted. */
    public static final Key<Duration> DEAD_LETTER_RETENTION = new Key<>(DEAD_LETTER_RETENTION_NAME, Scope.GLOBAL,
            "P30D", POSITIVE_DURATION, duration(false));

    /** How long after the application's start a Kafka channel that has no consumer yet, or whose consumer has not yet
     *  joined its group, counts as starting (readiness UP) rather than stopped (DOWN). Joining a group waits for the
     *  group's rebalance, up to the session timeout of a member that left without saying so (a killed server). */
    public static final Key<Duration> HEALTH_START_GRACE = new Key<>("inbox.health.start-grace", Scope.GLOBAL,
            "PT2M", NON_NEGATIVE_DURATION, duration(true));

    /** The consumer name stored in the inbox; the default is the {@code @Idempotent(consumer)} value. Never read
     *  from a global key: one global name would make all consumers deduplicate against each other. */
    public static final Key<String> NAME = new Key<>("name", Scope.PER_CONSUMER, null,
            "1 to 100 characters of [A-Za-z0-9._-] starting with a letter or digit",
            v -> CONSUMER_NAME.matcher(v).matches() ? v : null);

    /** Where the event id is found: {@code payload} (a JSON field of the payload, or of a JMS text message's body),
     *  {@code header} (a Kafka record header), {@code bean} (an {@link
     *  io.github.jakartainbox.inbox.spi.EventIdExtractor}), {@code jms-property} (a JMS message property) or
     *  {@code jms-message-id} (the {@code JMSMessageID}: a producer's resend gets a new one). */
    public static final Key<String> EVENT_ID_SOURCE = new Key<>("event-id.source", Scope.PER_CONSUMER_OR_GLOBAL,
            "payload", "one of payload, header, bean, jms-property, jms-message-id",
            choice("payload", "header", "bean", "jms-property", "jms-message-id"));

    /** The top-level JSON field holding the event id, for source {@code payload}. */
    public static final Key<String> EVENT_ID_FIELD = new Key<>("event-id.field", Scope.PER_CONSUMER_OR_GLOBAL,
            "event_id", "a JSON member name", InboxConfig::text);

    /** The Kafka header holding the event id (UTF-8), for source {@code header}; {@code ce_id} for CloudEvents in
     *  Kafka binary mode. */
    public static final Key<String> EVENT_ID_HEADER = new Key<>("event-id.header", Scope.PER_CONSUMER_OR_GLOBAL,
            "event_id", "a header name", InboxConfig::text);

    /** The JMS message property holding the event id (a string property), for source {@code jms-property}. */
    public static final Key<String> EVENT_ID_PROPERTY = new Key<>("event-id.property",
            Scope.PER_CONSUMER_OR_GLOBAL, "event_id", "a JMS property name", InboxConfig::text);

    /** The {@code @Named} name of the {@code EventIdExtractor} bean, for source {@code bean}. */
    public static final Key<String> EVENT_ID_BEAN = new Key<>("event-id.bean", Scope.PER_CONSUMER_OR_GLOBAL, null,
            "the @Named name of exactly one EventIdExtractor bean", InboxConfig::text);

    /** The largest {@link #EVENT_ID_MAX_LENGTH} the table accepts (its {@code event_id} column's length). */
    public static final int EVENT_ID_MAX_LENGTH_LIMIT = 255;

    /** The longest event id accepted, in characters. */
    public static final Key<Integer> EVENT_ID_MAX_LENGTH = new Key<>("event-id.max-length",
            Scope.PER_CONSUMER_OR_GLOBAL, "128", "an integer from 1 to " + EVENT_ID_MAX_LENGTH_LIMIT,
            integer(1, EVENT_ID_MAX_LENGTH_LIMIT));

    /** {@code payload}: the inbox row keeps the payload's SHA-256, and the same event id with other bytes is
     *  dead-lettered (INBOX0102E); {@code none}: not kept. */
    public static final Key<String> FINGERPRINT = new Key<>("fingerprint", Scope.PER_CONSUMER_OR_GLOBAL, "payload",
            "payload or none", choice("payload", "none"));

    /** {@code none}: a dead-lettered event's later events are processed as they come; {@code key}: a dead letter of
     *  a Kafka record with key K (a JMS message: {@link #DEAD_LETTER_ORDER_JMS_PROPERTY}) parks the consumer's later records of K, in order, until its sequence is re-driven
     *  ({@code inbox-kafka} channels in classic consumer groups and message-driven beans; refused at deployment
     *  elsewhere). Off by
     *  default: it withholds events from the method, which an application upgrading must choose. No global form: the
     *  order is a property of each consumer. */
    public static final Key<String> DEAD_LETTER_ORDER = new Key<>("dead-letter.order", Scope.PER_CONSUMER, "none",
            "none or key", choice("none", "key"));

    /** For a message-driven bean with {@code dead-letter.order=key}: the JMS message property (a string property)
     *  holding the message's key; a message without it keeps no order. {@code JMSXGroupID}, the property JMS
     *  defines for a group of messages that belong together, by default. */
    public static final Key<String> DEAD_LETTER_ORDER_JMS_PROPERTY = new Key<>("dead-letter.order.jms-property",
            Scope.PER_CONSUMER, "JMSXGroupID", "a JMS property name", InboxConfig::text);

    /** Attempts in all (the first included) before an event that fails for an unclassified reason is
     *  dead-lettered. */
    public static final Key<Integer> RETRY_MAX_ATTEMPTS = new Key<>("retry.max-attempts",
            Scope.PER_CONSUMER_OR_GLOBAL, "3", "an integer from 1 to 1000", integer(1, 1000));

    /** The wait before the second attempt, doubled for each next one. */
    public static final Key<Duration> RETRY_DELAY = new Key<>("retry.delay", Scope.PER_CONSUMER_OR_GLOBAL,
            "PT0.2S", NON_NEGATIVE_DURATION, duration(true));

    /** The longest wait between two attempts. */
    public static final Key<Duration> RETRY_MAX_DELAY = new Key<>("retry.max-delay", Scope.PER_CONSUMER_OR_GLOBAL,
            "PT5S", NON_NEGATIVE_DURATION, duration(true));

    /** How long one delivery may keep failing with transient database errors (lock or statement timeouts,
     *  deadlocks, serialization failures) before it is dead-lettered; meanwhile the partition waits. */
    public static final Key<Duration> RETRY_TRANSIENT_BUDGET = new Key<>("retry.transient-budget",
            Scope.PER_CONSUMER_OR_GLOBAL, "PT2M", POSITIVE_DURATION, duration(false));

    /** The JTA timeout of each attempt's transaction of the per-message path (Kafka, not a message-driven bean's,
     *  which the container begins): raise it for a consumer whose effect may take long, such as a mail waiting for
     *  the SMTP server's final reply; unset, the server's default (Liberty {@code <transaction
     *  totalTranLifetimeTimeout>}, 120 s unless set). */
    public static final Key<Duration> TRANSACTION_TIMEOUT = new Key<>("transaction-timeout",
            Scope.PER_CONSUMER_OR_GLOBAL, null, POSITIVE_DURATION, duration(false));

    /** A message-driven bean's delivery that finds the database unavailable waits in place this long for it (so
     *  that redeliveries do not spin), then rolls back for a redelivery that uses no attempt; keep it well under the
     *  transaction timeout (Liberty {@code <transaction totalTranLifetimeTimeout>}, 120 s by default). */
    public static final Key<Duration> JMS_OUTAGE_WAIT = new Key<>("jms.outage-wait", Scope.PER_CONSUMER_OR_GLOBAL,
            "PT30S", NON_NEGATIVE_DURATION, duration(true));

    /** How long an inbox row is kept; must exceed the longest possible replay. Read by the name stored in the
     *  inbox, which may be a consumer of another service sharing the table. */
    public static final Key<Duration> RETENTION = new Key<>("retention", Scope.PER_CONSUMER_OR_GLOBAL, "P14D",
            "a positive ISO-8601 duration longer than any replay, such as P14D", duration(false));

    /** The retention of the topic the consumer reads; an inbox retention not longer than it is logged
     *  (INBOX0301W). */
    public static final Key<Duration> TOPIC_RETENTION = new Key<>("topic-retention", Scope.PER_CONSUMER_OR_GLOBAL,
            null, POSITIVE_DURATION, duration(false));

    /** Partitioned mode: the top-level JSON field with the event's own time (ISO-8601 with offset); without it
     *  event ids must be UUIDv7. */
    public static final Key<String> EVENT_TIME_FIELD = new Key<>("event-time.field", Scope.PER_CONSUMER_OR_GLOBAL,
            null, "a JSON member name", InboxConfig::text);

    private static final List<Key<?>> KEYS = List.of(DATASOURCE, SCHEMA_MIGRATE, NAME, EVENT_ID_SOURCE,
            EVENT_ID_FIELD, EVENT_ID_HEADER, EVENT_ID_PROPERTY, EVENT_ID_BEAN, EVENT_ID_MAX_LENGTH, FINGERPRINT,
            DEAD_LETTER_ORDER, DEAD_LETTER_ORDER_JMS_PROPERTY, RETRY_MAX_ATTEMPTS, RETRY_DELAY, RETRY_MAX_DELAY, RETRY_TRANSIENT_BUDGET, TRANSACTION_TIMEOUT, JMS_OUTAGE_WAIT,
            RETENTION, TOPIC_RETENTION, EVENT_TIME_FIELD,
            PARTITIONING, PARTITION_MONTHS_AHEAD, PARTITION_LOCK_TIMEOUT, PURGE_SCHEDULE, PURGE_BATCH_SIZE,
            PURGE_LEASE, PURGE_OVERDUE_AFTER, DEAD_LETTER_REDRIVE_LEASE, DEAD_LETTER_RETENTION,
            HEALTH_START_GRACE);

    private InboxConfig() {
    }

    /**
     * @param property a configuration property name
     * @param key      a per-consumer key
     * @return the consumer that {@code property} sets {@code key} for, when it is {@code inbox.consumer.<c>.<key>}
     */
    public static Optional<String> consumerOf(String property, Key<?> key) {
        String suffix = "." + key.name();
        if (key.scope() == Scope.GLOBAL || !property.startsWith(CONSUMER_PREFIX) || !property.endsWith(suffix)
                || property.length() <= CONSUMER_PREFIX.length() + suffix.length()) {
            return Optional.empty();
        }
        return Optional.of(property.substring(CONSUMER_PREFIX.length(), property.length() - suffix.length()));
    }

    /** @return every key, in the order of docs/configuration.md */
    public static List<Key<?>> keys() {
        return KEYS;
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
     * @return the name the inbox stores for it: {@code inbox.consumer.<annotated>.name} when set, else
     *         {@code annotated} (there is no global form of this key)
     * @throws IllegalStateException (INBOX0004E) when the configured name is not a valid consumer name
     */
    public static String consumerName(String annotated) {
        return NAME.find(ConfigProvider.getConfig(), annotated).orElse(annotated);
    }

    static String text(String value) {
        return value;
    }

    static Boolean bool(String value) {
        return value.equalsIgnoreCase("true") ? Boolean.TRUE : value.equalsIgnoreCase("false") ? Boolean.FALSE : null;
    }

    private static Function<String, String> choice(String... values) {
        return value -> Arrays.stream(values).filter(value::equalsIgnoreCase).findFirst().orElse(null);
    }

    static Function<String, Integer> integer(int min, int max) {
        return value -> {
            try {
                int parsed = Integer.parseInt(value);
                return parsed >= min && parsed <= max ? parsed : null;
            } catch (NumberFormatException e) {
                return null;
            }
        };
    }

    static Function<String, Duration> duration(boolean allowZero) {
        return value -> {
            try {
                Duration parsed = Duration.parse(value);
                return parsed.isNegative() || (!allowZero && parsed.isZero()) ? null : parsed;
            } catch (DateTimeParseException e) {
                return null;
            }
        };
    }

    private static String schedule(String value) {
        if (value.equalsIgnoreCase("off")) {
            return "off";
        }
        return value.split("\\s+").length == 6 ? value : null;
    }
}
