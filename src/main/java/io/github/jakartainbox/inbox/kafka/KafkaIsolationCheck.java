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
     * @param config     the MicroProfile Config the connectors read their attributes from
     * @param incoming   every {@code @Incoming} channel of the application
     * @param idempotent the channels whose method is {@code @Idempotent}
     * @return the channels of {@code incoming} on the {@code inbox-kafka} connector whose method is not
     *         {@code @Idempotent} ({@code INBOX0621E}): the connector runs a group's records one by one without a
     *         transaction after a rollback, which only the inbox's own attempts make safe, so such a method would
     *         fail on the same record for ever
     */
    public static List<String> inboxKafkaWithoutInbox(Config config, Collection<String> incoming,
                                                      Collection<String> idempotent) {
        List<String> channels = new ArrayList<>();
        for (String channel : incoming) {
            String connector = config.getOptionalValue("mp.messaging.incoming." + channel + ".connector",
                    String.class).map(String::trim).orElse("");
            if (connector.equals(InboxKafkaConnector.NAME) && !idempotent.contains(channel)) {
                channels.add(channel);
            }
        }
        return channels;
    }
}
