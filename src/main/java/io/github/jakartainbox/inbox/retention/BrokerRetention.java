package io.github.jakartainbox.inbox.retention;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.config.ConfigResource;

/**
 * What a Kafka broker keeps, read with the Admin client: a topic's {@code retention.ms} (how long its records
 * can be replayed) and the broker's {@code offsets.retention.minutes} (how long a consumer group's committed
 * offsets survive without the group; past it a group restarts from {@code auto.offset.reset}, which is
 * {@code earliest} here: the whole topic again). Source: Apache Kafka documentation, topic and broker
 * configurations.
 */
final class BrokerRetention {

    /**
     * @param topic            the topic's {@code retention.ms}, {@code null} when it keeps records forever (-1)
     * @param offsetsRetention the broker's {@code offsets.retention.minutes}
     */
    record Figures(Duration topic, Duration offsetsRetention) {
    }

    private BrokerRetention() {
    }

    /**
     * @param clientProperties the channel's Kafka client properties (bootstrap.servers, security settings)
     * @param topic            the topic to describe
     * @param timeout          how long to wait for the broker
     * @return the figures
     * @throws Exception when the broker cannot be reached or refuses to describe them (ACLs: DescribeConfigs)
     */
    static Figures describe(Properties clientProperties, String topic, Duration timeout) throws Exception {
        Properties properties = new Properties();
        properties.putAll(clientProperties);
        properties.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, (int) timeout.toMillis());
        properties.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, (int) timeout.toMillis());
        properties.put(AdminClientConfig.CLIENT_ID_CONFIG, "jakarta-inbox-retention");
        try (Admin admin = Admin.create(properties)) {
            Node node = admin.describeCluster().nodes().get(timeout.toMillis(), TimeUnit.MILLISECONDS).iterator().next();
            ConfigResource topicResource = new ConfigResource(ConfigResource.Type.TOPIC, topic);
            ConfigResource brokerResource = new ConfigResource(ConfigResource.Type.BROKER, node.idString());
            Map<ConfigResource, Config> configs = admin.describeConfigs(List.of(topicResource, brokerResource))
                    .all().get(timeout.toMillis(), TimeUnit.MILLISECONDS);
            long retentionMs = Long.parseLong(value(configs.get(topicResource), "retention.ms"));
            long offsetsMinutes = Long.parseLong(value(configs.get(brokerResource), "offsets.retention.minutes"));
            return new Figures(retentionMs < 0 ? null : Duration.ofMillis(retentionMs), Duration.ofMinutes(offsetsMinutes));
        }
    }

    private static String value(Config config, String name) {
        ConfigEntry entry = config == null ? null : config.get(name);
        if (entry == null || entry.value() == null) {
            throw new IllegalStateException(name + " is not in the broker's answer");
        }
        return entry.value();
    }
}
