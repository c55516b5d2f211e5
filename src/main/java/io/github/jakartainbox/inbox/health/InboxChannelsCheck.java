package io.github.jakartainbox.inbox.health;

import io.github.jakartainbox.inbox.consumer.IdempotentChannels;
import io.github.jakartainbox.inbox.InboxConfig;
import io.github.jakartainbox.inbox.kafka.InboxKafkaConnector;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.time.Duration;
import java.util.List;
import java.util.regex.Pattern;
import org.eclipse.microprofile.config.Config;
import org.eclipse.microprofile.config.ConfigProvider;
import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.HealthCheckResponseBuilder;
import org.eclipse.microprofile.health.Readiness;

/**
 * Readiness check {@value #NAME}: each {@code @Incoming} channel of the {@code liberty-kafka} or
 * {@code inbox-kafka} connector has a Kafka consumer in this server that heartbeats to its group (see {@link KafkaConsumers} for why that means it
 * is consuming): the {@code @Idempotent} channels, and the application's others too (data {@code consumer}
 * {@value #NO_INBOX}), since a channel without an inbox that liberty-kafka shut down stops its events as
 * silently. DOWN names the channel that stopped; liberty-kafka never restarts a channel it shut down, so
 * only a server restart (after fixing the cause) brings it back. Channels of other connectors are listed as
 * not checked. An {@code inbox-kafka} channel is also DOWN while a partition's committed offset has stayed behind
 * the records processed from it for longer than its {@code commit-lag.alert} ({@code HEALTH0104E}).
 *
 * <p>A start is not a fault: within {@code inbox.health.start-grace} of the application's start, a channel that has
 * no consumer yet or whose consumer has not yet joined its group (a server joining a group waits for its rebalance,
 * up to the session timeout of a killed member) is UP with state {@code starting: ...}; after the grace it is DOWN
 * ({@code HEALTH0102E}, {@code HEALTH0105E}). A consumer that heartbeated and then stopped is DOWN at once
 * ({@code HEALTH0103E}).
 *
 * <p>Data, per channel {@code <channel>}: the inbox consumer, the Kafka group and client, the time since the
 * last heartbeat (ISO-8601) and the partitions assigned. For an {@code inbox-kafka} channel also, when there are
 * any: its topics the cluster does not have ({@code topics-missing}; the state says so, UP: a topic is made by its
 * first producer, and no restart of this server would make it), partitions its consumers have not yet seen with the
 * records waiting in them ({@code partitions-not-yet-assigned}, {@code records-not-yet-assigned}), and offset rows
 * no partition of its topics matches ({@code offset-rows-not-read}).
 */
@Readiness
@ApplicationScoped
public class InboxChannelsCheck implements HealthCheck {

    /** The check's name in {@code /health/ready}. */
    public static final String NAME = "inbox-channels";

    /** The {@code <channel>.consumer} data of a channel whose method is not {@code @Idempotent}. */
    public static final String NO_INBOX = "none (not @Idempotent)";

    static final Duration SESSION_TIMEOUT_DEFAULT = Duration.ofMillis(45_000);

    @Inject
    IdempotentChannels channels;

    /** Channels a Kafka consumer was seen for since the application started. */
    private final java.util.Set<String> hadConsumer = java.util.concurrent.ConcurrentHashMap.newKeySet();

    @Override
    public HealthCheckResponse call() {
        Config config = ConfigProvider.getConfig();
        HealthCheckResponseBuilder response = HealthCheckResponse.named(NAME).up();
        StringBuilder down = new StringBuilder();
        Duration sinceStart = channels.sinceStart();
        Duration grace = InboxConfig.HEALTH_START_GRACE.get(config);
        for (String channel : channels.incomingChannels()) {
            String prefix = channel + ".";
            response.withData(prefix + "consumer", channels.consumerByChannel().getOrDefault(channel, NO_INBOX));
            String connector = IdempotentChannels.attribute(config, channel, "connector").orElse("");
            boolean inboxKafka = connector.equals(InboxKafkaConnector.NAME);
            if (!connector.equals("liberty-kafka") && !inboxKafka) {
                response.withData(prefix + "state", "not checked (connector '" + connector + "')");
                continue;
            }
            String group = IdempotentChannels.attribute(config, channel, "group.id").orElse(null);
            // the client ids to look for: the channel's own, or the connector's defaults; with SmallRye's concurrency
            // attribute each copy of an inbox-kafka channel has its own (inbox-kafka-<channel>-<n>)
            Pattern clientId = IdempotentChannels.attribute(config, channel, "client.id")
                    .map(id -> Pattern.compile(Pattern.quote(id) + "(-\\d+)?"))
                    .orElse(inboxKafka ? Pattern.compile(Pattern.quote("inbox-kafka-" + channel) + "(-\\d+)?")
                            : Pattern.compile("consumer-" + Pattern.quote(String.valueOf(
                                    IdempotentChannels.attribute(config, channel, "group.id").orElse(""))) + "-\\d+"));
            Duration sessionTimeout = IdempotentChannels.attribute(config, channel, "session.timeout.ms")
                    .map(ms -> Duration.ofMillis(Long.parseLong(ms.trim()))).orElse(SESSION_TIMEOUT_DEFAULT);
            response.withData(prefix + "group", String.valueOf(group));
            String problem;
            String starting = null;
            if (group == null) {
                problem = HealthMessage.HEALTH0101E.format(channel, "group.id");
            } else {
                List<KafkaConsumers.Consumer> consumers = KafkaConsumers.of(clientId);
                long assigned = 0;
                for (KafkaConsumers.Consumer consumer : consumers) {
                    String copy = consumers.size() == 1 ? prefix : prefix + consumer.clientId() + ".";
                    response.withData(prefix + "client" + (consumers.size() == 1 ? "" : "." + consumer.clientId()),
                            consumer.clientId());
                    response.withData(copy + "last-heartbeat", String.valueOf(consumer.lastHeartbeat()));
                    assigned += consumer.assignedPartitions();
                }
                response.withData(prefix + "assigned-partitions", assigned);
                if (!consumers.isEmpty()) {
                    hadConsumer.add(channel);
                }
                Judgement judgement = judge(channel, group, consumers, sessionTimeout, sinceStart, grace,
                        hadConsumer.contains(channel));
                problem = judgement.problem();
                starting = judgement.starting();
            }
            List<String> missing = List.of();
            if (inboxKafka) {
                List<String> notRead = InboxKafkaConnector.offsetRowsNotRead(channel);
                if (!notRead.isEmpty()) {
                    response.withData(prefix + "offset-rows-not-read", String.join(",", notRead));
                }
                missing = InboxKafkaConnector.topicsMissing(channel);
                if (!missing.isEmpty()) {
                    response.withData(prefix + "topics-missing", String.join(",", missing));
                }
                java.util.Map<String, Long> unassigned = InboxKafkaConnector.partitionsNotYetAssigned(channel);
                if (!unassigned.isEmpty()) {
                    response.withData(prefix + "partitions-not-yet-assigned", String.join(",", unassigned.keySet()));
                    response.withData(prefix + "records-not-yet-assigned",
                            unassigned.values().stream().mapToLong(Long::longValue).sum());
                }
            }
            if (problem == null && inboxKafka) {
                for (InboxKafkaConnector.CommitLag lag : InboxKafkaConnector.commitLag(channel)) {
                    response.withData(prefix + "commit-lag." + lag.partition(), lag.behindFor().withNanos(0).toString());
                    problem = HealthMessage.HEALTH0104E.format(channel, lag.partition(),
                            lag.behindFor().withNanos(0), lag.alertAfter());
                }
            }
            String state = problem != null ? problem : starting != null ? starting
                    : !missing.isEmpty() ? "waiting: topic " + String.join(", ", missing) + " does not exist in the "
                            + "cluster (deleted, or not made yet); nothing of it is read" : "consuming";
            response.withData(prefix + "state", state);
            if (problem != null) {
                down.append(down.isEmpty() ? "" : " ").append(problem);
            }
        }
        if (!down.isEmpty()) {
            response.down().withData("reason", down.toString());
        }
        return response.build();
    }

    /**
     * What a channel's consumers say about it.
     *
     * @param problem  the message that makes the check DOWN, or null
     * @param starting the {@code state} of a channel still starting (UP), or null
     */
    record Judgement(String problem, String starting) {
    }

    /**
     * Tells a channel that is starting from one that stopped. Within {@code grace} of the application's start, a
     * channel without a consumer yet, or whose consumers have not yet heartbeated (they wait for the group's
     * rebalance), is starting. A consumer that heartbeated once and then not for longer than the session timeout
     * stopped after consuming: DOWN whatever the time since start.
     *
     * @param channel        the channel name
     * @param group          its consumer group
     * @param consumers      its consumers in this server
     * @param sessionTimeout the channel's {@code session.timeout.ms}
     * @param sinceStart     the time since the application started
     * @param grace          {@code inbox.health.start-grace}
     * @param hadConsumer    whether a Kafka consumer of the channel was seen before in this application
     * @return the problem (DOWN), or the starting state, or neither (consuming)
     */
    static Judgement judge(String channel, String group, List<KafkaConsumers.Consumer> consumers,
            Duration sessionTimeout, Duration sinceStart, Duration grace, boolean hadConsumer) {
        // a consumer that existed and is gone (liberty-kafka shut the channel down) is no start, grace or not
        boolean inGrace = sinceStart.compareTo(grace) <= 0 && !(consumers.isEmpty() && hadConsumer);
        String since = sinceStart.withNanos(0).toString();
        if (consumers.isEmpty()) {
            return inGrace ? new Judgement(null, "starting: no Kafka consumer yet, " + since + " after start (grace "
                    + grace + ")") : new Judgement(HealthMessage.HEALTH0102E.format(channel, group), null);
        }
        String problem = null;
        String starting = null;
        for (KafkaConsumers.Consumer consumer : consumers) {
            if (consumer.lastHeartbeat() == null) {
                if (inGrace) {
                    starting = "starting: client " + consumer.clientId() + " has not joined group " + group
                            + " yet, " + since + " after start (grace " + grace + ")";
                } else {
                    problem = HealthMessage.HEALTH0105E.format(channel, group, consumer.clientId(), grace);
                }
            } else if (consumer.lastHeartbeat().compareTo(sessionTimeout) > 0) {
                problem = HealthMessage.HEALTH0103E.format(channel, group, consumer.clientId(),
                        consumer.lastHeartbeat().toString(), sessionTimeout);
            }
        }
        return new Judgement(problem, problem == null ? starting : null);
    }
}
