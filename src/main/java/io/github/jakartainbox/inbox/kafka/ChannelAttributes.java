package io.github.jakartainbox.inbox.kafka;

import io.github.jakartainbox.inbox.ConfigKey;
import io.github.jakartainbox.inbox.logging.InboxLog;
import io.github.jakartainbox.inbox.logging.InboxMessage;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.eclipse.microprofile.config.Config;

/**
 * The attributes the {@code inbox-kafka} connector reads itself, with their defaults: a catalogue of
 * {@link ConfigKey}s read by the inbox keys' rules (trimmed, empty counts as unset, durations ISO-8601), checked when
 * the channel is made. A wrong value fails the deployment with {@code INBOX0601E} naming the channel and the
 * attribute. Every other attribute of the channel goes to the Kafka consumer.
 */
final class ChannelAttributes {

    private static final String POSITIVE_DURATION = "a positive ISO-8601 duration such as PT30S";

    /** The topics to read, comma-separated; the channel's name when unset. */
    static final ConfigKey<String> TOPIC = ConfigKey.text("topic", null, InboxMessage.INBOX0004E);

    /** The most records run in one JTA transaction. */
    static final ConfigKey<Integer> GROUP_MAX_SIZE = ConfigKey.integer("group.max-size", "100", 1, 10_000,
            InboxMessage.INBOX0004E);

    /** ISO-8601 duration, a group's transaction timeout; a group stops taking records when half of it is used. */
    static final ConfigKey<Duration> GROUP_TIMEOUT = ConfigKey.duration("group.timeout", "PT30S", POSITIVE_DURATION,
            false, null, InboxMessage.INBOX0004E);

    /** ISO-8601 duration a partition's committed offset may stay behind its processed records before INBOX0608W. */
    static final ConfigKey<Duration> COMMIT_LAG_ALERT = ConfigKey.duration("commit-lag.alert", "PT2M",
            POSITIVE_DURATION, false, null, InboxMessage.INBOX0004E);

    /** {@code true} for {@code multi-row} (one INSERT claims a group's events), {@code false} for {@code per-message}. */
    static final ConfigKey<Boolean> MULTI_ROW_CLAIM = ConfigKey.of("group.claim", "multi-row",
            "multi-row (one INSERT claims a group's events) or per-message (one INSERT per event)",
            text -> text.equals("multi-row") ? Boolean.TRUE : text.equals("per-message") ? Boolean.FALSE : null,
            InboxMessage.INBOX0004E);

    /** {@code true} for {@code database} (offsets in each group's transaction), {@code false} for {@code kafka}. */
    static final ConfigKey<Boolean> OFFSETS_IN_DATABASE = ConfigKey.of("offset-store", "database",
            "database (offsets written in each group's transaction, so that a database failover loses none) or kafka "
                    + "(Kafka's committed offsets only)",
            text -> text.equals("database") ? Boolean.TRUE : text.equals("kafka") ? Boolean.FALSE : null,
            InboxMessage.INBOX0004E);

    /** {@code true} for {@code share} (a KIP-932 share group, {@link ShareLoop}), {@code false} for {@code classic}. */
    static final ConfigKey<Boolean> SHARE_GROUP = ConfigKey.of("group.type", "classic",
            "classic (a consumer group: one consumer per partition) or share (a share group: records acquired and "
                    + "acknowledged one by one)",
            text -> text.equals("share") ? Boolean.TRUE : text.equals("classic") ? Boolean.FALSE : null,
            InboxMessage.INBOX0004E);

    /**
     * With {@code group.type=share}: the share group's {@code share.auto.offset.reset}, set on the group before its
     * consumers join; unset leaves the group's ({@code latest} unless set otherwise).
     */
    static final ConfigKey<String> SHARE_AUTO_OFFSET_RESET = ConfigKey.of("share.auto.offset.reset", null,
            "earliest, latest or by_duration:<ISO-8601 duration>", ChannelAttributes::offsetReset,
            InboxMessage.INBOX0004E);

    /**
     * With {@code group.type=share}: the share group's {@code share.isolation.level}, set on the group before its
     * consumers join; {@code read_committed} as a classic channel's {@code isolation.level}.
     */
    static final ConfigKey<String> SHARE_ISOLATION_LEVEL = ConfigKey.of("share.isolation.level", "read_committed",
            "read_committed or read_uncommitted",
            text -> text.equals("read_committed") || text.equals("read_uncommitted") ? text : null,
            InboxMessage.INBOX0004E);

    /**
     * With {@code group.type=share}: whether the channel renews the locks of its poll's records while a delivery runs
     * long (it sets the group's {@code share.renew.acknowledge.enable=true} before its consumers join).
     */
    static final ConfigKey<Boolean> SHARE_RENEW = ConfigKey.of("share.renew", "true",
            "true (the locks of a poll's records are renewed while a delivery runs past half the lock) or false",
            text -> text.equals("true") ? Boolean.TRUE : text.equals("false") ? Boolean.FALSE : null,
            InboxMessage.INBOX0004E);

    /** The catalogue. */
    static final List<ConfigKey<?>> KEYS = List.of(TOPIC, GROUP_MAX_SIZE, GROUP_TIMEOUT, COMMIT_LAG_ALERT,
            MULTI_ROW_CLAIM, OFFSETS_IN_DATABASE, SHARE_GROUP,
            SHARE_AUTO_OFFSET_RESET, SHARE_ISOLATION_LEVEL, SHARE_RENEW);

    /**
     * Attributes never handed to the Kafka consumer: the catalogue's, those Reactive Messaging sets, and
     * {@code liberty-kafka}'s own, so that a channel can switch connectors without a warning from Kafka.
     */
    static final Set<String> OWN = Stream.concat(KEYS.stream().map(ConfigKey::name),
            Stream.of("connector", "channel-name", "concurrency",
                    "unacked.limit", "fast.ack", "context.service", "creation.retry.seconds"))
            .collect(Collectors.toUnmodifiableSet());

    private ChannelAttributes() {
    }

    private static String offsetReset(String text) {
        if (text.equals("earliest") || text.equals("latest")) {
            return text;
        }
        if (text.startsWith("by_duration:")) {
            try {
                java.time.Duration.parse(text.substring("by_duration:".length()));
                return text;
            } catch (java.time.format.DateTimeParseException e) {
                return null;
            }
        }
        return null;
    }

    /**
     * @param config  the channel's configuration
     * @param channel the channel's name
     * @param key     one of the catalogue's keys without a default
     * @param <T>     its value's type
     * @return the attribute's value, empty when it is unset
     * @throws IllegalArgumentException ({@code INBOX0601E}) when the value is not one the key allows
     */
    static <T> java.util.Optional<T> find(Config config, String channel, ConfigKey<T> key) {
        try {
            return key.find(config);
        } catch (IllegalStateException e) {
            String text = config.getOptionalValue(key.name(), String.class).map(String::trim).orElse("");
            throw invalid(channel, key.name() + " is '" + text + "'; it must be " + key.allowed());
        }
    }

    /**
     * @param config  the channel's configuration
     * @param channel the channel's name
     * @param key     one of the catalogue's keys with a default
     * @param <T>     its value's type
     * @return the attribute's value, else its default
     * @throws IllegalArgumentException ({@code INBOX0601E}) when the value is not one the key allows
     */
    static <T> T read(Config config, String channel, ConfigKey<T> key) {
        try {
            return key.get(config);
        } catch (IllegalStateException e) {
            String text = config.getOptionalValue(key.name(), String.class).map(String::trim).orElse("");
            throw invalid(channel, key.name() + " is '" + text + "'; it must be " + key.allowed());
        }
    }

    /**
     * @param channel the channel's name
     * @param what    what is wrong and what to do
     * @return the deployment's failure ({@code INBOX0601E}), logged
     */
    static IllegalArgumentException invalid(String channel, String what) {
        String text = KafkaMessage.INBOX0601E.format(channel, what);
        InboxLog.LOG.severe(text);
        return new IllegalArgumentException(text);
    }
}
