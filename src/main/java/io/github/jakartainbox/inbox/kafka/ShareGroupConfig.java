package io.github.jakartainbox.inbox.kafka;

import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.common.config.ConfigResource;

/**
 * Sets a share group's own configuration ({@code share.auto.offset.reset}, {@code share.isolation.level}: the
 * group's, not the consumer's) before the channel's consumers join, as {@code kafka-configs --entity-type groups}
 * would; and reads the group's limits (delivery count limit, lock duration, renewal) the channel works within. Tests
 * hand in a recording one.
 */
interface ShareGroupConfig {

    /** The group config of a share group's delivery count limit (broker default {@code group.share.delivery.count.limit}). */
    String DELIVERY_COUNT_LIMIT = "share.delivery.count.limit";
    /** The group config of a share group's acquisition lock (broker default {@code group.share.record.lock.duration.ms}). */
    String LOCK_DURATION = "share.record.lock.duration.ms";
    /** The group config that lets a share group's consumers renew their locks ({@code RENEW}, Kafka 4.2+). */
    String RENEW = "share.renew.acknowledge.enable";

    /**
     * @param groupId the share group
     * @param configs the group configs to set; those not named keep their values
     * @throws Exception when the cluster refuses or cannot be reached
     */
    void set(String groupId, Map<String, String> configs) throws Exception;

    /**
     * @param groupId the share group
     * @param names   the group configs to read
     * @return the values the group works with (its own, else the broker's defaults) of those named that the cluster
     *         describes; empty when it describes none
     * @throws Exception when the cluster refuses or cannot be reached
     */
    default Map<String, String> read(String groupId, Collection<String> names) throws Exception {
        return Map.of();
    }

    /** Through an Admin client made from the channel's consumer properties (those the Admin client knows). */
    static ShareGroupConfig overAdmin(Properties consumer) {
        Properties properties = new Properties();
        for (String name : consumer.stringPropertyNames()) {
            if (AdminClientConfig.configNames().contains(name)) {
                properties.setProperty(name, consumer.getProperty(name));
            }
        }
        properties.setProperty(AdminClientConfig.CLIENT_ID_CONFIG,
                consumer.getProperty("client.id", "inbox-kafka") + "-group-config");
        return new ShareGroupConfig() {
            @Override
            public void set(String groupId, Map<String, String> configs) throws Exception {
                try (Admin admin = Admin.create(properties)) {
                    List<AlterConfigOp> ops = configs.entrySet().stream()
                            .map(e -> new AlterConfigOp(new ConfigEntry(e.getKey(), e.getValue()),
                                    AlterConfigOp.OpType.SET))
                            .toList();
                    admin.incrementalAlterConfigs(Map.of(new ConfigResource(ConfigResource.Type.GROUP, groupId), ops))
                            .all().get(ClusterTopics.OverAdmin.TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
                }
            }

            @Override
            public Map<String, String> read(String groupId, Collection<String> names) throws Exception {
                ConfigResource group = new ConfigResource(ConfigResource.Type.GROUP, groupId);
                try (Admin admin = Admin.create(properties)) {
                    Config config = admin.describeConfigs(List.of(group)).all()
                            .get(ClusterTopics.OverAdmin.TIMEOUT.toMillis(), TimeUnit.MILLISECONDS).get(group);
                    Map<String, String> values = new TreeMap<>();
                    for (String name : names) {
                        ConfigEntry entry = config == null ? null : config.get(name);
                        if (entry != null && entry.value() != null) {
                            values.put(name, entry.value());
                        }
                    }
                    return values;
                }
            }
        };
    }
}
