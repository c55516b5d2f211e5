package io.github.jakartainbox.inbox.kafka;

import io.github.jakartainbox.inbox.consumer.IdempotentChannels;
import io.github.jakartainbox.inbox.spi.Gauges;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;
import java.lang.management.ManagementFactory;
import java.util.Map;
import java.util.function.ToLongFunction;
import java.util.stream.Stream;
import javax.management.JMException;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import org.eclipse.microprofile.config.ConfigProvider;

/**
 * The {@code inbox-kafka} channels' figures as gauges tagged {@code channel}, when the server has MicroProfile
 * Metrics (the inbox hands the {@link Gauges} then): groups committed and rolled back, records and time in committed
 * groups, how long a commit has stayed behind, and the records not yet read. A channel with {@code concurrency} is
 * one set of gauges over its copies. Names in docs/observability.md, "Metrics".
 */
@ApplicationScoped
public class KafkaGauges {

    @Inject
    IdempotentChannels channels;

    void publish(@Observes Gauges gauges) {
        for (String channel : channels.incomingChannels()) {
            String connector = ConfigProvider.getConfig().getOptionalValue("mp.messaging.incoming." + channel
                    + ".connector", String.class).map(String::trim).orElse("");
            if (!connector.equals(InboxKafkaConnector.NAME)) {
                continue;
            }
            Map<String, String> tags = Map.of("channel", channel);
            total(gauges, "inbox.kafka.groups.committed", "Groups of records committed in one transaction each, "
                    + "since the channel started.", tags, channel, ChannelFigures::groupsCommitted);
            total(gauges, "inbox.kafka.groups.rolled.back", "Groups rolled back and run again one by one, since the "
                    + "channel started.", tags, channel, ChannelFigures::groupsRolledBack);
            total(gauges, "inbox.kafka.group.records", "Records committed in groups, since the channel started.",
                    tags, channel, ChannelFigures::groupRecords);
            total(gauges, "inbox.kafka.group.millis", "Milliseconds from a committed group's first record to its "
                    + "commit, summed since the channel started.", tags, channel, ChannelFigures::groupMillis);
            // a share channel's (group.type=share); 0 on a classic channel
            total(gauges, "inbox.kafka.share.acquired", "Records a share channel acquired, since it started.", tags,
                    channel, ChannelFigures::acquired);
            total(gauges, "inbox.kafka.share.accepted", "Records a share channel accepted after the inbox settled "
                    + "them, since it started.", tags, channel, ChannelFigures::accepted);
            total(gauges, "inbox.kafka.share.released", "Acquired records a share channel released undone (a stop), "
                    + "since it started.", tags, channel, ChannelFigures::released);
            total(gauges, "inbox.kafka.share.locks.expired", "Acquired records whose lock expired while a delivery of "
                    + "their poll ran, since the share channel started.", tags, channel, ChannelFigures::locksExpired);
            total(gauges, "inbox.kafka.share.redelivered", "Records a share channel accepted that the broker had "
                    + "delivered before (deliveryCount above 1), since it started.", tags, channel,
                    ChannelFigures::redelivered);
            total(gauges, "inbox.kafka.share.rejected", "Records a share channel rejected because the inbox "
                    + "dead-lettered them, since it started.", tags, channel, ChannelFigures::rejected);
            total(gauges, "inbox.kafka.share.renewed", "Record locks a share channel renewed while a delivery ran "
                    + "long, since it started.", tags, channel, ChannelFigures::renewed);
            total(gauges, "inbox.kafka.share.redelivered.duplicates", "Redelivered records whose claim found their "
                    + "inbox row (a lock that expired after the record was processed), since the share channel "
                    + "started.", tags, channel, ChannelFigures::redeliveredDuplicates);
            total(gauges, "inbox.kafka.share.ack.errors", "Record acknowledgements the broker refused or lost, since "
                    + "the share channel started.", tags, channel, ChannelFigures::acknowledgementErrors);
            gauges.gauge("inbox.kafka.commit.lag.seconds", "How long a partition's committed offset has stayed "
                    + "behind its processed records, the longest of the channel's; 0 when all are committed.", tags,
                    () -> commitLagSeconds(channel));
            gauges.gauge("inbox.kafka.records.lag", "Records in the channel's assigned partitions not yet read, "
                    + "as its Kafka consumers last measured them.", tags, () -> recordsLag(channel));
        }
    }

    private static void total(Gauges gauges, String name, String description, Map<String, String> tags,
                              String channel, ToLongFunction<ChannelFigures> figure) {
        gauges.gauge(name, description, tags,
                () -> copies(channel).mapToLong(c -> figure.applyAsLong(c.figures())).sum());
    }

    /** @return the channel and the copies SmallRye's {@code concurrency} made of it ({@code <channel>$1}...) */
    private static Stream<InboxKafkaChannel> copies(String channel) {
        return InboxKafkaConnector.channels().entrySet().stream()
                .filter(e -> e.getKey().equals(channel) || e.getKey().startsWith(channel + "$"))
                .map(Map.Entry::getValue);
    }

    private static long commitLagSeconds(String channel) {
        long now = System.nanoTime();
        return copies(channel).flatMap(c -> c.behindSince().values().stream())
                .mapToLong(since -> (now - since) / 1_000_000_000L).max().orElse(0);
    }

    /** Sums the {@code records-lag} the Kafka client reports per partition in the platform MBean server. */
    private static long recordsLag(String channel) {
        java.util.Set<String> clientIds = copies(channel).map(c -> c.settings().kafka().getProperty("client.id"))
                .collect(java.util.stream.Collectors.toSet());
        MBeanServer server = ManagementFactory.getPlatformMBeanServer();
        long lag = 0;
        try {
            for (ObjectName name : server.queryNames(new ObjectName(
                    "kafka.consumer:type=consumer-fetch-manager-metrics,client-id=*,topic=*,partition=*"), null)) {
                String id = name.getKeyProperty("client-id");
                if (!clientIds.contains(id.startsWith("\"") ? ObjectName.unquote(id) : id)) {
                    continue;
                }
                try {
                    if (server.getAttribute(name, "records-lag") instanceof Number n
                            && !Double.isNaN(n.doubleValue())) {
                        lag += Math.max(0, n.longValue());
                    }
                } catch (JMException closing) {
                    // the consumer closed between the query and the read
                }
            }
        } catch (JMException e) {
            return -1; // cannot be read: a value no lag can have
        }
        return lag;
    }
}
