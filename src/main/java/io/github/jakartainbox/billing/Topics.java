package io.github.jakartainbox.billing;

import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.errors.TopicExistsException;
import org.eclipse.microprofile.config.ConfigProvider;

/**
 * Creates the service's topics at start (orders.confirmed, invoices.issued) with a configured partition count: the
 * part both topic classes share.
 */
public final class Topics {

    private Topics() {
    }

    /**
     * Creates a topic with a partition count, or warns when it exists with fewer ({@code BILLING0219W}) or cannot
     * be created ({@code BILLING0220W}); never fails the start.
     *
     * @param topic      the topic
     * @param partitions the partitions it is created with
     * @param prefix     the configuration prefix of the cluster's client settings (bootstrap, security), such as
     *                   {@code outbox.kafka.} or {@code mp.messaging.connector.inbox-kafka.}
     * @param key        the key that sets {@code partitions}, named in the warning
     */
    public static void ensure(String topic, int partitions, String prefix, String key) {
        Properties properties = new Properties();
        org.eclipse.microprofile.config.Config config = ConfigProvider.getConfig();
        for (String name : config.getPropertyNames()) {
            if (name.startsWith(prefix) && (name.contains("bootstrap") || name.contains("security")
                    || name.contains("sasl") || name.contains("ssl"))) {
                config.getOptionalValue(name, String.class)
                        .ifPresent(value -> properties.put(name.substring(prefix.length()), value));
            }
        }
        properties.put(AdminClientConfig.CLIENT_ID_CONFIG, "billing-topics");
        properties.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 10_000);
        properties.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 10_000);
        try (Admin admin = Admin.create(properties)) {
            try {
                admin.createTopics(List.of(new NewTopic(topic, java.util.Optional.of(partitions),
                        java.util.Optional.empty()))).all().get(15, TimeUnit.SECONDS);
                return;
            } catch (ExecutionException e) {
                if (!(e.getCause() instanceof TopicExistsException)) {
                    throw e;
                }
            }
            Map<String, TopicDescription> described = admin.describeTopics(List.of(topic)).allTopicNames()
                    .get(15, TimeUnit.SECONDS);
            int existing = described.get(topic).partitions().size();
            if (existing < partitions) {
                BillingMessage.BILLING0219W.log(topic, String.valueOf(existing), String.valueOf(partitions), key);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (Exception e) {
            BillingMessage.BILLING0220W.log(topic, String.valueOf(partitions),
                    e instanceof ExecutionException && e.getCause() != null ? e.getCause().toString() : e.toString());
        }
    }
}
