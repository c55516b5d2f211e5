package io.github.jakartainbox.inbox.kafka;

import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import org.eclipse.microprofile.config.Config;
import org.eclipse.microprofile.reactive.messaging.Incoming;

/**
 * Finds the Kafka channels of {@code @Idempotent} methods that would deliver records of aborted Kafka transactions.
 *
 * <p>A Kafka consumer reads with {@code isolation.level=read_uncommitted} unless told otherwise: it then receives
 * the records of transactions that their producer aborted (Kafka consumer configuration, {@code isolation.level};
 * KIP-98). The inbox would process such a record like any other, so an event that never happened has its effect.
 * Transactional producers are the common case on the producing side of an outbox (relays, Kafka Streams,
 * Debezium with exactly-once).
 */
public final class KafkaIsolationCheck {

    /** One channel that reads uncommitted records. */
    public record Finding(Method method, String channel, String isolationLevel) {
    }

    private KafkaIsolationCheck() {
    }

    /**
     * @param config  the MicroProfile Config the connectors read their attributes from
     * @param methods the {@code @Idempotent} methods
     * @return every {@code @Incoming} channel of those methods whose connector is a Kafka connector (its name
     *         contains {@code kafka}: {@code liberty-kafka}, {@code smallrye-kafka}) and whose
     *         {@code isolation.level}, on the channel or on the connector, is not {@code read_committed} (the default
     *         of {@code inbox-kafka}, {@link InboxKafkaConnector})
     */
    public static List<Finding> readUncommitted(Config config, Iterable<Method> methods) {
        List<Finding> findings = new ArrayList<>();
        for (Method method : methods) {
            // getAnnotation, not getAnnotationsByType: on Liberty the repeatable container type (SmallRye's
            // Incomings) is not visible to the application, and looking for it fails the deployment
            Incoming incoming = method.getAnnotation(Incoming.class);
            if (incoming != null) {
                String channel = incoming.value();
                String prefix = "mp.messaging.incoming." + channel + ".";
                String connector = config.getOptionalValue(prefix + "connector", String.class).orElse("");
                if (!connector.toLowerCase(Locale.ROOT).contains("kafka")) {
                    continue;
                }
                if (share(config, channel, connector)) {
                    // a share group's isolation is the group's config, which the channel sets (read_committed unless
                    // it says otherwise)
                    String shared = attribute(config, channel, connector,
                            ChannelAttributes.SHARE_ISOLATION_LEVEL.name()).orElse("read_committed");
                    if (!shared.equalsIgnoreCase("read_committed")) {
                        findings.add(new Finding(method, channel, "share.isolation.level=" + shared));
                    }
                    continue;
                }
                String level = config.getOptionalValue(prefix + "isolation.level", String.class)
                        .or(() -> config.getOptionalValue("mp.messaging.connector." + connector + ".isolation.level",
                                String.class))
                        .orElse(InboxKafkaConnector.NAME.equals(connector.trim()) ? "read_committed"
                                : "read_uncommitted (the Kafka consumer's default)");
                if (!level.trim().equalsIgnoreCase("read_committed")) {
                    findings.add(new Finding(method, channel, level));
                }
            }
        }
        return findings;
    }

    /**
     * SmallRye's {@code concurrency} channel attribute runs N copies of a channel named {@code <channel>$1},
     * {@code <channel>$2}...; a Kafka connector without {@code topic} reads the topic named after the channel, which
     * is then the copy's name: each copy would consume a topic nobody writes to.
     *
     * @param config  the MicroProfile Config the connectors read their attributes from
     * @param methods the {@code @Idempotent} methods
     * @return the Kafka channels of those methods with {@code concurrency} set and no {@code topic}
     */
    public static List<String> concurrencyWithoutTopic(Config config, Iterable<Method> methods) {
        List<String> channels = new ArrayList<>();
        for (Method method : methods) {
            Incoming incoming = method.getAnnotation(Incoming.class);
            if (incoming == null) {
                continue;
            }
            String prefix = "mp.messaging.incoming." + incoming.value() + ".";
            String connector = config.getOptionalValue(prefix + "connector", String.class).orElse("");
            boolean concurrency = config.getOptionalValue(prefix + "concurrency", String.class)
                    .filter(v -> !v.isBlank()).isPresent();
            boolean topic = config.getOptionalValue(prefix + "topic", String.class).filter(v -> !v.isBlank())
                    .isPresent();
            if (connector.toLowerCase(Locale.ROOT).contains("kafka") && concurrency && !topic) {
                channels.add(incoming.value());
            }
        }
        return channels;
    }

    /**
     * A channel of {@code inbox-kafka} whose method has no inbox, and the group size it is configured with.
     *
     * @param channel      the channel
     * @param maxGroupSize its {@code group.max-size}, as configured (the connector checks the value itself)
     */
    public record WithoutInbox(String channel, String maxGroupSize) {
    }

    /**
     * @param config     the MicroProfile Config the connectors read their attributes from
     * @param incoming   every {@code @Incoming} channel of the application
     * @param idempotent the channels whose method has a transaction of its own: {@code @Idempotent} (the inbox
     *                   begins one per attempt) or {@code @Transactional} (REQUIRED or REQUIRES_NEW)
     * @return the channels of {@code incoming} on the {@code inbox-kafka} connector whose method has none and whose {@code group.max-size} (on the channel or the connector, default 100) is
     *         above 1 ({@code INBOX0621E}): such a method runs inside the group's transaction, but after a rollback
     *         alone with none, where a method writing through JPA fails on the same record for ever. With
     *         {@code group.max-size=1} the connector serves such a method for its offsets only, and the method
     *         keeps its own transactions and failures (docs/using-the-library.md)
     */
    public static List<WithoutInbox> inboxKafkaWithoutInbox(Config config, Collection<String> incoming,
                                                            Collection<String> idempotent) {
        List<WithoutInbox> channels = new ArrayList<>();
        for (String channel : incoming) {
            String connector = config.getOptionalValue("mp.messaging.incoming." + channel + ".connector",
                    String.class).map(String::trim).orElse("");
            if (!connector.equals(InboxKafkaConnector.NAME) || idempotent.contains(channel)
                    || share(config, channel, connector)) {
                continue; // a share channel runs one record per transaction
            }
            String size = config.getOptionalValue("mp.messaging.incoming." + channel + ".group.max-size", String.class)
                    .or(() -> config.getOptionalValue("mp.messaging.connector." + connector + ".group.max-size",
                            String.class))
                    .map(String::trim).filter(v -> !v.isEmpty())
                    .orElse(ChannelAttributes.GROUP_MAX_SIZE.defaultText().orElseThrow());
            if (!size.equals("1")) {
                channels.add(new WithoutInbox(channel, size));
            }
        }
        return channels;
    }

    /** @return the channel's attribute, else the connector-wide one, trimmed; empty when neither is set */
    private static java.util.Optional<String> attribute(Config config, String channel, String connector, String name) {
        return config.getOptionalValue("mp.messaging.incoming." + channel + "." + name, String.class)
                .or(() -> config.getOptionalValue("mp.messaging.connector." + connector.trim() + "." + name,
                        String.class))
                .map(String::trim).filter(v -> !v.isEmpty());
    }

    /** @return whether the channel is an {@code inbox-kafka} share channel ({@code group.type=share}) */
    private static boolean share(Config config, String channel, String connector) {
        return InboxKafkaConnector.NAME.equals(connector.trim())
                && attribute(config, channel, connector, ChannelAttributes.SHARE_GROUP.name())
                        .filter("share"::equals).isPresent();
    }
}
