package io.github.jakartainbox.inbox.retention;

import io.github.jakartainbox.inbox.InboxConfig;
import io.github.jakartainbox.inbox.consumer.IdempotentChannels;
import io.github.jakartainbox.inbox.spi.PurgeCompleted;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.context.Initialized;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.logging.Logger;
import org.eclipse.microprofile.config.Config;
import org.eclipse.microprofile.config.ConfigProvider;

/**
 * Checks, at start and after each purge run, that each {@code @Idempotent} Kafka consumer keeps its inbox rows
 * longer than any replay can reach back: longer than its topic's {@code retention.ms} and than the broker's
 * {@code offsets.retention.minutes} (a group whose offsets expired re-reads the topic from {@code earliest}).
 * Both are read from the broker with the Kafka Admin client, with the channel's Kafka client settings.
 *
 * <p>{@code inbox.consumer.<consumer>.topic-retention} (or {@code inbox.topic-retention}), when set, overrides
 * what the broker says, for brokers the service may not describe (ACLs without DescribeConfigs): then that
 * value stands for both. Each figure says which source it came from. Logs {@code RETAIN0001W} when the inbox
 * retention is too short, {@code RETAIN0002W} when nothing could be read.
 */
@ApplicationScoped
public class RetentionCheck {

    /**
     * The retention figures of one consumer.
     *
     * @param consumer         the inbox consumer name
     * @param channel          its channel
     * @param topic            the topic the channel consumes
     * @param inboxRetention   how long its inbox rows are kept ({@code inbox.consumer.<c>.retention})
     * @param topicRetention   the topic's {@code retention.ms}, {@code null} when the topic keeps records forever
     *                         or it is unknown
     * @param offsetsRetention the broker's {@code offsets.retention.minutes}, {@code null} when unknown
     * @param required         what the inbox must exceed: the longer of the two; {@code null} when unknown or forever
     * @param source           {@code broker}, {@code override <key>}, or {@code unknown: <why>}
     * @param tooShort         the inbox retention does not exceed {@code required} (or the topic keeps records forever)
     * @param checkedAt        when it was read
     */
    public record ConsumerRetention(String consumer, String channel, String topic, Duration inboxRetention,
                                    Duration topicRetention, Duration offsetsRetention, Duration required,
                                    String source, boolean tooShort, OffsetDateTime checkedAt) {
    }

    static final Logger LOG = Logger.getLogger("io.github.jakartainbox.inbox.retention");
    private static final Duration TIMEOUT = Duration.ofSeconds(10);

    @Inject
    IdempotentChannels channels;

    private volatile List<ConsumerRetention> last = List.of();

    /** @return the figures of the last check, empty before the first */
    public List<ConsumerRetention> last() {
        return last;
    }

    /** At start, on its own thread: a broker that does not answer must not hold up the deployment. */
    void onStart(@Observes @Initialized(ApplicationScoped.class) Object started) {
        Thread thread = new Thread(this::checkQuietly, "jakarta-inbox-retention-check");
        thread.setDaemon(true);
        thread.start();
    }

    void onPurge(@Observes PurgeCompleted run) {
        checkQuietly();
    }

    private void checkQuietly() {
        try {
            check();
        } catch (RuntimeException e) {
            RetentionMessage.RETAIN0003W.log(e, e.toString());
        }
    }

    /**
     * Reads the figures of every {@code @Idempotent} channel of the {@code liberty-kafka} or {@code inbox-kafka}
     * connector (the first topic when a channel reads several), logs the
     * warnings, and keeps them for {@link #last()}.
     *
     * @return the figures, one per channel
     */
    public List<ConsumerRetention> check() {
        Config config = ConfigProvider.getConfig();
        List<ConsumerRetention> result = new ArrayList<>();
        for (Map.Entry<String, String> entry : channels.consumerByChannel().entrySet()) {
            String channel = entry.getKey();
            String connectorName = IdempotentChannels.attribute(config, channel, "connector").orElse("");
            if (!connectorName.equals("liberty-kafka") && !connectorName.equals("inbox-kafka")) {
                continue;
            }
            String annotated = entry.getValue();
            String consumer = InboxConfig.consumerName(annotated);
            String topic = IdempotentChannels.attribute(config, channel, "topic").orElse(channel).split(",")[0].trim();
            Duration inbox = InboxConfig.RETENTION.get(config, annotated);
            Optional<Duration> override = InboxConfig.TOPIC_RETENTION.find(config, annotated);
            Duration topicRetention = null;
            Duration offsets = null;
            String source;
            if (override.isPresent()) {
                topicRetention = override.get();
                offsets = override.get();
                source = "override inbox.consumer." + annotated + "." + InboxConfig.TOPIC_RETENTION.name()
                        + " (or inbox." + InboxConfig.TOPIC_RETENTION.name() + ")";
            } else {
                try {
                    BrokerRetention.Figures figures = BrokerRetention.describe(
                            clientProperties(config, channel, connectorName), topic, TIMEOUT);
                    topicRetention = figures.topic();
                    offsets = figures.offsetsRetention();
                    source = figures.topic() == null ? "broker (the topic keeps records forever)" : "broker";
                } catch (Exception e) {
                    source = "unknown: " + e;
                }
            }
            boolean known = offsets != null;
            boolean forever = known && topicRetention == null;
            Duration required = !known || forever ? null
                    : topicRetention.compareTo(offsets) > 0 ? topicRetention : offsets;
            boolean tooShort = forever || required != null && inbox.compareTo(required) <= 0;
            result.add(new ConsumerRetention(consumer, channel, topic, inbox, topicRetention, offsets, required, source,
                    tooShort, OffsetDateTime.now()));
            if (!known) {
                RetentionMessage.RETAIN0002W.log(consumer, topic, source, inbox);
            } else if (tooShort) {
                RetentionMessage.RETAIN0001W.log(consumer, inbox, topic, forever ? "-1 (forever)" : topicRetention,
                        offsets, source);
            }
        }
        last = List.copyOf(result);
        return last;
    }

    /** The channel's Kafka client settings that reach the broker: address and security. */
    private static Properties clientProperties(Config config, String channel, String connectorName) {
        Properties properties = new Properties();
        String incoming = "mp.messaging.incoming." + channel + ".";
        String connector = "mp.messaging.connector." + connectorName + ".";
        for (String prefix : List.of(connector, incoming)) { // the channel's own keys win
            for (String name : config.getPropertyNames()) {
                if (name.startsWith(prefix)) {
                    String key = name.substring(prefix.length());
                    if (key.equals("bootstrap.servers") || key.startsWith("security.") || key.startsWith("sasl.")
                            || key.startsWith("ssl.")) {
                        config.getOptionalValue(name, String.class).ifPresent(v -> properties.put(key, v));
                    }
                }
            }
        }
        if (!properties.containsKey("bootstrap.servers")) {
            IdempotentChannels.attribute(config, channel, "bootstrap.servers")
                    .ifPresent(v -> properties.put("bootstrap.servers", v));
        }
        return properties;
    }
}
