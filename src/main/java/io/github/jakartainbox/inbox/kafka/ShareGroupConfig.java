package io.github.jakartainbox.inbox.kafka;

import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.common.config.ConfigResource;

/**
 * Sets a share group's own configuration ({@code share.auto.offset.reset}, {@code share.isolation.level}: the
 * group's, not the consumer's) before the channel's consumers join, as {@code kafka-configs --entity-type groups}
 * would. Tests hand in a recording one.
 */
interface ShareGroupConfig {

    /**
     * @param groupId the share group
     * @param configs the group configs to set; those not named keep their values
     * @throws Exception when the cluster refuses or cannot be reached
     */
    void set(String groupId, Map<String, String> configs) throws Exception;

    /** Through an Admin client made from the channel's consumer properties (those the Admin client knows). */
    static ShareGroupConfig overAdmin(Properties consumer) {
        return (groupId, configs) -> {
            Properties properties = new Properties();
            for (String name : consumer.stringPropertyNames()) {
                if (AdminClientConfig.configNames().contains(name)) {
                    properties.setProperty(name, consumer.getProperty(name));
                }
            }
            properties.setProperty(AdminClientConfig.CLIENT_ID_CONFIG,
                    consumer.getProperty("client.id", "inbox-kafka") + "-group-config");
            try (Admin admin = Admin.create(properties)) {
                List<AlterConfigOp> ops = configs.entrySet().stream()
                        .map(e -> new AlterConfigOp(new ConfigEntry(e.getKey(), e.getValue()), AlterConfigOp.OpType.SET))
                        .toList();
                admin.incrementalAlterConfigs(Map.of(new ConfigResource(ConfigResource.Type.GROUP, groupId), ops))
                        .all().get(ClusterTopics.OverAdmin.TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
            }
        };
    }
}
