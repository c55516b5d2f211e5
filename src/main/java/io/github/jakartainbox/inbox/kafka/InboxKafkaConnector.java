package io.github.jakartainbox.inbox.kafka;

import static io.github.jakartainbox.inbox.kafka.ChannelAttributes.invalid;

import io.github.jakartainbox.inbox.consumer.InboxLifecycle;
import io.github.jakartainbox.inbox.claim.InboxClaim;
import io.github.jakartainbox.inbox.database.InboxDatabase;
import io.github.jakartainbox.inbox.failure.Failures;
import io.github.jakartainbox.inbox.logging.InboxLog;
import jakarta.annotation.PreDestroy;
import jakarta.annotation.Resource;
import jakarta.enterprise.concurrent.ManagedThreadFactory;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.transaction.UserTransaction;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import javax.naming.InitialContext;
import javax.naming.NamingException;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.KafkaShareConsumer;
import org.apache.kafka.common.KafkaException;
import org.eclipse.microprofile.config.Config;
import org.eclipse.microprofile.reactive.messaging.Message;
import org.eclipse.microprofile.reactive.messaging.spi.Connector;
import org.eclipse.microprofile.reactive.messaging.spi.IncomingConnectorFactory;
import org.eclipse.microprofile.reactive.streams.operators.PublisherBuilder;
import org.eclipse.microprofile.reactive.streams.operators.ReactiveStreams;

/**
 * The {@code inbox-kafka} connector: Kafka delivery for {@code @Incoming} + {@code @Idempotent} methods that runs
 * several consecutive records of a channel in one JTA transaction and commits offsets that never stop at a Kafka
 * transaction marker or a compaction gap. Declared per channel with
 * {@code mp.messaging.incoming.<channel>.connector=inbox-kafka}; public because CDI and Reactive Messaging need it,
 * not to be called.
 *
 * <p>Why its own poll loop rather than a wrapper around {@code liberty-kafka}: that connector commits only the
 * contiguous prefix of acknowledged offsets, and the offset of a transaction marker (or of a record removed by
 * compaction) is never delivered, so never acknowledged; its commits stop there for good. Committing from a second
 * client is refused while the group has members (classic group protocol). A consumer owned here commits its
 * position ({@code KafkaConsumer.position}), which is past markers and gaps.
 *
 * <p>Channel attributes: every key the Kafka consumer knows ({@code bootstrap.servers}, {@code group.id},
 * deserializers, security...), on the channel ({@code mp.messaging.incoming.<channel>.<key>}) or for all channels
 * of the connector ({@code mp.messaging.connector.inbox-kafka.<key>}); {@code topic} (comma-separated; default the
 * channel name); {@code group.max-size} (default 100; 1 is the per-message mode); {@code group.claim}
 * ({@code multi-row}, the default: one INSERT claims a group's events at its first delivery; or {@code per-message});
 * {@code group.timeout} (ISO-8601,
 * default {@code PT30S}: the JTA timeout of a group's transaction; a group takes no further record after half of
 * it); {@code commit-lag.alert} (ISO-8601, default {@code PT2M}: a partition whose committed offset stays behind its
 * processed records for longer is logged, {@code INBOX0608W}, and shown by health); {@code offset-store}
 * ({@code database}, the default: each group's offsets are also written to the inbox's table
 * {@code inbox_kafka_offset} in the group's transaction and read at assignment, so that a database failover that
 * loses commits loses their offsets with them, see {@link OffsetChoice}; or {@code kafka}: Kafka's committed offsets
 * only); {@code group.type} ({@code classic}, the default, or {@code share}: a KIP-932 share group read by
 * {@link ShareLoop}, one record per transaction unless {@code group.max-size} says more, which refuses
 * {@code offset-store} and the consumer keys a share consumer rejects). Defaults differing from the Kafka client's:
 * {@code isolation.level=read_committed}, {@code enable.auto.commit=false} (required),
 * {@code metadata.max.age.ms=30000} (partitions added to a topic are read within it and a rebalance).
 * Needs the feature {@code concurrent-3.0} ({@code INBOX0600E}).
 */
@ApplicationScoped
@Connector(InboxKafkaConnector.NAME)
public class InboxKafkaConnector implements IncomingConnectorFactory {

    /** The connector's name, the value of {@code mp.messaging.incoming.<channel>.connector}. */
    public static final String NAME = "inbox-kafka";

    /** The connector's default {@code metadata.max.age.ms}: the bound on seeing a partition added to a topic. */
    static final long METADATA_MAX_AGE_MS = 30_000;

    private static final Map<String, InboxKafkaChannel> CHANNELS = new ConcurrentHashMap<>();

    @Inject
    InboxClaim inbox;

    @Inject
    InboxDatabase database;

    @Resource
    UserTransaction transaction;

    @Inject
    io.github.jakartainbox.inbox.deadletter.internal.ParkedEvents parked;

    /** How long the configuration check's share consumer may take to close (its first request answered). */
    private static final Duration SHARE_CHECK_CLOSE = Duration.ofSeconds(1);

    @Override
    public PublisherBuilder<? extends Message<?>> getPublisherBuilder(Config config) {
        InboxKafkaChannel.Settings settings = settings(config);
        try {
            // the Kafka client checks its configuration when it is made (no connection yet): fail the deployment
            // rather than a poll thread that retries a consumer that can never be made
            if (settings.share()) {
                // a share consumer asks for its coordinator as soon as it is made: closed at once, the client warns
                // that its request is still in flight, at every start
                new KafkaShareConsumer<>(settings.kafka()).close(SHARE_CHECK_CLOSE);
            } else {
                new KafkaConsumer<>(settings.kafka()).close(Duration.ZERO);
            }
        } catch (KafkaException e) {
            throw invalid(settings.channel(), "the Kafka consumer refuses its configuration: "
                    + Failures.describe(e));
        }
        ManagedThreadFactory threads;
        try {
            threads = (ManagedThreadFactory) new InitialContext().lookup("java:comp/DefaultManagedThreadFactory");
        } catch (NamingException | RuntimeException | NoClassDefFoundError e) {
            throw new IllegalStateException(KafkaMessage.INBOX0600E.format(settings.channel(),
                    Failures.describe(e)), e);
        }
        InboxKafkaChannel channel = new InboxKafkaChannel(settings, threads, transaction, inbox,
                new KafkaOffsets(database));
        // partitions moved: this server may now hold keys whose sequences another server opened
        channel.onAssigned(parked::forget);
        InboxLifecycle.stopWithApplication(NAME, InboxKafkaConnector::stopAll);
        KafkaClientLogLimit.install();
        InboxKafkaChannel earlier = CHANNELS.put(settings.channel(), channel);
        if (earlier != null) {
            earlier.stop();
        }
        if (settings.share()) {
            KafkaMessage.INBOX0622I.log(settings.channel(), settings.topics(), settings.groupId(),
                    String.valueOf(settings.maxGroupSize()));
        } else {
            KafkaMessage.INBOX0602I.log(settings.channel(), settings.topics(), settings.groupId(),
                    String.valueOf(settings.maxGroupSize()), settings.groupTimeout(),
                    settings.kafka().getProperty("isolation.level"));
        }
        return ReactiveStreams.fromPublisher(channel);
    }

    /**
     * Reads and checks a channel's attributes.
     *
     * @param config the channel's configuration, as the Reactive Messaging engine hands it to the connector
     * @return the settings
     * @throws IllegalArgumentException ({@code INBOX0601E}) naming the attribute that is missing or wrong
     */
    static InboxKafkaChannel.Settings settings(Config config) {
        String channel = config.getOptionalValue("channel-name", String.class).orElse("?");
        Properties kafka = new Properties();
        for (String name : config.getPropertyNames()) {
            if (!ChannelAttributes.OWN.contains(name)) {
                config.getOptionalValue(name, String.class).ifPresent(value -> kafka.setProperty(name, value));
            }
        }
        String topic = ChannelAttributes.TOPIC.find(config).orElse("");
        if (topic.isEmpty()) {
            if (channel.contains("$")) {
                // SmallRye's concurrency attribute names the copies <channel>$1, <channel>$2...
                throw invalid(channel, "with 'concurrency' each copy of the channel is named " + channel
                        + ", so the topic would default to that name: set mp.messaging.incoming."
                        + channel.substring(0, channel.indexOf('$')) + ".topic to the topic to read");
            }
            topic = channel;
        }
        List<String> topics = Arrays.stream(topic.split(",")).map(String::trim).filter(t -> !t.isEmpty()).toList();
        String groupId = kafka.getProperty("group.id", "").trim();
        if (groupId.isEmpty()) {
            throw invalid(channel, "group.id is not set: set mp.messaging.incoming." + baseName(channel)
                    + ".group.id to the consumer group (the committed offsets are kept under it)");
        }
        if (ChannelAttributes.read(config, channel, ChannelAttributes.SHARE_GROUP)) {
            return shareSettings(config, channel, kafka, topics, groupId);
        }
        if ("true".equalsIgnoreCase(kafka.getProperty("enable.auto.commit", "false").trim())) {
            throw invalid(channel, "enable.auto.commit=true would commit offsets of records not yet processed; "
                    + "remove it (the connector commits after each group's transaction)");
        }
        kafka.setProperty("enable.auto.commit", "false");
        kafka.putIfAbsent("isolation.level", "read_committed");
        // partitions added to a topic are assigned once the consumers' metadata shows them: 30 s, not 5 min
        kafka.putIfAbsent("metadata.max.age.ms", String.valueOf(METADATA_MAX_AGE_MS));
        kafka.putIfAbsent("client.id", "inbox-kafka-" + channel.replace('$', '-'));
        int maxGroupSize = ChannelAttributes.read(config, channel, ChannelAttributes.GROUP_MAX_SIZE);
        Duration groupTimeout = ChannelAttributes.read(config, channel, ChannelAttributes.GROUP_TIMEOUT);
        if (groupTimeout.compareTo(Duration.ofSeconds(1)) < 0) {
            throw invalid(channel, "group.timeout is " + groupTimeout + "; it must be at least PT1S");
        }
        long maxPollInterval = Long.parseLong(kafka.getProperty("max.poll.interval.ms", "300000").trim());
        if (groupTimeout.toMillis() >= maxPollInterval) {
            throw invalid(channel, "group.timeout " + groupTimeout + " is not shorter than max.poll.interval.ms "
                    + maxPollInterval + ": a group could outlive the consumer's membership of its group; "
                    + "lower group.timeout or raise max.poll.interval.ms");
        }
        return new InboxKafkaChannel.Settings(channel, kafka, topics, groupId, maxGroupSize, groupTimeout,
                Duration.ofMillis(500), ChannelAttributes.read(config, channel, ChannelAttributes.COMMIT_LAG_ALERT),
                ChannelAttributes.read(config, channel, ChannelAttributes.MULTI_ROW_CLAIM),
                ChannelAttributes.read(config, channel, ChannelAttributes.OFFSETS_IN_DATABASE));
    }

    /**
     * Keys of the classic consumer that a share consumer refuses, with what to do instead: the share group's own
     * settings are the group's configuration, set with {@code kafka-configs --entity-type groups}.
     */
    static final Map<String, String> NOT_FOR_SHARE = Map.of(
            "auto.offset.reset", "a new share group starts where its group config share.auto.offset.reset says "
                    + "(latest by default): set the channel's share.auto.offset.reset=earliest instead, which the "
                    + "connector sets on the group",
            "isolation.level", "a share group reads as its group config share.isolation.level says: set the "
                    + "channel's share.isolation.level instead (read_committed by default), which the connector "
                    + "sets on the group",
            "enable.auto.commit", "a share group has no offsets to commit: each record is acknowledged after its "
                    + "transaction commits",
            "group.instance.id", "share groups have no static membership",
            "partition.assignment.strategy", "the broker assigns a share group's partitions",
            "group.protocol", "a share group has its own protocol",
            "group.remote.assignor", "the broker assigns a share group's partitions",
            "session.timeout.ms", "set the broker's group.share.session.timeout.ms instead",
            "heartbeat.interval.ms", "set the broker's group.share.heartbeat.interval.ms instead",
            "interceptor.classes", "a share consumer takes no interceptors");

    /** Channel attributes of classic mode only: a share group's progress is the broker's. */
    private static final List<ConfigKeyName> CLASSIC_ONLY = List.of(
            new ConfigKeyName(ChannelAttributes.OFFSETS_IN_DATABASE.name(), null,
                    "a share group's progress is the broker's, not an offset: remove it"));

    /** A classic-only attribute, the one value share mode allows ({@code null}: none), and what to do. */
    private record ConfigKeyName(String name, String allowed, String instead) {
    }

    /** Reads and checks a share channel's attributes ({@code group.type=share}). */
    private static InboxKafkaChannel.Settings shareSettings(Config config, String channel, Properties kafka,
                                                           List<String> topics, String groupId) {
        for (Map.Entry<String, String> refused : new java.util.TreeMap<>(NOT_FOR_SHARE).entrySet()) {
            if (kafka.containsKey(refused.getKey())) {
                throw invalid(channel, refused.getKey() + " is not a setting of a share consumer (group.type=share): "
                        + refused.getValue());
            }
        }
        for (ConfigKeyName own : CLASSIC_ONLY) {
            String value = config.getOptionalValue(own.name(), String.class).map(String::trim).orElse("");
            if (!value.isEmpty() && !value.equals(own.allowed())) {
                throw invalid(channel, own.name() + " is '" + value + "' with group.type=share: " + own.instead());
            }
        }
        String mode = kafka.getProperty("share.acknowledgement.mode", "explicit").trim();
        if (!mode.equals("explicit")) {
            throw invalid(channel, "share.acknowledgement.mode is '" + mode + "'; the connector acknowledges each "
                    + "record after its transaction commits, which needs explicit: remove it");
        }
        kafka.setProperty("share.acknowledgement.mode", "explicit");
        kafka.putIfAbsent("client.id", "inbox-kafka-" + channel.replace('$', '-'));
        Duration groupTimeout = ChannelAttributes.read(config, channel, ChannelAttributes.GROUP_TIMEOUT);
        Map<String, String> groupConfig = new java.util.TreeMap<>();
        groupConfig.put(ChannelAttributes.SHARE_ISOLATION_LEVEL.name(),
                ChannelAttributes.read(config, channel, ChannelAttributes.SHARE_ISOLATION_LEVEL));
        ChannelAttributes.find(config, channel, ChannelAttributes.SHARE_AUTO_OFFSET_RESET)
                .ifPresent(reset -> groupConfig.put(ChannelAttributes.SHARE_AUTO_OFFSET_RESET.name(), reset));
        // one record per transaction unless the channel sets group.max-size: a share channel's scale is its consumers
        int maxGroupSize = config.getOptionalValue(ChannelAttributes.GROUP_MAX_SIZE.name(), String.class).isPresent()
                ? ChannelAttributes.read(config, channel, ChannelAttributes.GROUP_MAX_SIZE) : 1;
        return new InboxKafkaChannel.Settings(channel, kafka, topics, groupId, maxGroupSize, groupTimeout,
                Duration.ofMillis(500), ChannelAttributes.read(config, channel, ChannelAttributes.COMMIT_LAG_ALERT),
                maxGroupSize > 1 && ChannelAttributes.read(config, channel, ChannelAttributes.MULTI_ROW_CLAIM), false,
                true,
                Map.copyOf(groupConfig),
                ChannelAttributes.read(config, channel, ChannelAttributes.SHARE_RENEW));
    }

    private static String baseName(String channel) {
        int dollar = channel.indexOf('$');
        return dollar < 0 ? channel : channel.substring(0, dollar);
    }

    /**
     * A partition whose committed offset has stayed behind the records processed from it.
     *
     * @param partition the partition, {@code <topic>-<n>}
     * @param behindFor how long its commit has been behind
     * @param alertAfter the channel's {@code commit-lag.alert}
     */
    public record CommitLag(String partition, Duration behindFor, Duration alertAfter) {
    }

    /**
     * For the health check ({@code io.github.jakartainbox.inbox.health.InboxChannelsCheck}): the partitions of an
     * {@code inbox-kafka} channel of this server whose committed offset has been behind the processed records for
     * longer than the channel's {@code commit-lag.alert}.
     *
     * @param channel the channel name
     * @return those partitions, empty when every commit is up to date or the channel is not of this connector
     */
    public static List<CommitLag> commitLag(String channel) {
        long now = System.nanoTime();
        // the channel, or the copies SmallRye's concurrency attribute made of it (<channel>$1, <channel>$2...)
        return CHANNELS.entrySet().stream()
                .filter(e -> e.getKey().equals(channel) || e.getKey().startsWith(channel + "$"))
                .flatMap(e -> {
                    Duration alert = e.getValue().settings().lagWarning();
                    return e.getValue().behindSince().entrySet().stream()
                            .map(b -> new CommitLag(b.getKey().toString(), Duration.ofNanos(now - b.getValue()), alert))
                            .filter(l -> l.behindFor().compareTo(alert) > 0);
                }).toList();
    }

    /**
     * For the health check: rows of the channel's consumer group in {@code inbox_kafka_offset} for partitions that
     * none of its topics has (a topic deleted, a partition count lowered), as its last look at the cluster found
     * them (every 10 s).
     *
     * @param channel the channel name
     * @return those partitions ({@code <topic>-<n>}), empty when there are none or the channel is not of this
     *         connector
     */
    public static List<String> offsetRowsNotRead(String channel) {
        return seen(channel).flatMap(s -> s.rowsNotRead().stream()).distinct().sorted().toList();
    }

    /**
     * For the health check: the channel's topics that the cluster does not have (deleted, or not made yet), as its
     * last look at the cluster found them (every 10 s).
     *
     * @param channel the channel name
     * @return those topics, empty when all exist or the channel is not of this connector
     */
    public static List<String> topicsMissing(String channel) {
        return seen(channel).flatMap(s -> s.missing().stream()).distinct().sorted().toList();
    }

    /**
     * For the health check: partitions of the channel's topics that its consumers have not yet seen (added to the
     * topic since their last metadata refresh, {@code metadata.max.age.ms}), and the records waiting in each.
     *
     * @param channel the channel name
     * @return those partitions ({@code <topic>-<n>}) with their records, sorted; empty when there are none or the
     *         channel is not of this connector
     */
    public static Map<String, Long> partitionsNotYetAssigned(String channel) {
        Map<String, Long> waiting = new java.util.TreeMap<>();
        seen(channel).forEach(s -> waiting.putAll(s.unassigned()));
        return waiting;
    }

    private static java.util.stream.Stream<TopicWatch.Seen> seen(String channel) {
        // the channel, or the copies SmallRye's concurrency attribute made of it (<channel>$1, <channel>$2...)
        return CHANNELS.entrySet().stream()
                .filter(e -> e.getKey().equals(channel) || e.getKey().startsWith(channel + "$"))
                .map(e -> e.getValue().seen());
    }

    /** @return the channels of this connector in the application, by channel name */
    static Map<String, InboxKafkaChannel> channels() {
        return Map.copyOf(CHANNELS);
    }

    /** Stops every channel (see {@link #stopAll()}); a second call finds nothing left to stop. */
    @PreDestroy
    void stop() {
        stopAll();
    }

    /**
     * Stops every channel of the application and waits for each: the group in flight commits, done offsets are
     * committed synchronously, the consumer closes. Logs {@code INBOX0611I} when there was a channel to stop.
     */
    public static void stopAll() {
        KafkaClientLogLimit.uninstall(); // the loggers are the server's: a filter left there would pin this application
        if (CHANNELS.isEmpty()) {
            return;
        }
        long start = System.nanoTime();
        List<InboxKafkaChannel> stopping = List.copyOf(CHANNELS.values());
        stopping.forEach(InboxKafkaChannel::stop);
        stopping.forEach(c -> c.awaitStopped(c.settings().groupTimeout().plusSeconds(5)));
        stopping.forEach(c -> CHANNELS.remove(c.settings().channel(), c));
        KafkaMessage.INBOX0611I.log(stopping.stream().map(c -> c.settings().channel()).sorted().toList()
                .toString(), String.valueOf(Duration.ofNanos(System.nanoTime() - start).toMillis()));
    }
}
