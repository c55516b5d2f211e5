package io.github.jakartainbox.inbox.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.jakartainbox.testing.MapConfig;
import java.util.List;
import java.util.Map;
import org.eclipse.microprofile.config.Config;
import org.junit.jupiter.api.Test;

/** Dead-letter order by key is kept by inbox-kafka channels in classic groups and message-driven beans; elsewhere
 * the deployment fails. */
class KeyOrderDeploymentCheckTest {

    private static List<String> problems(Map<String, String> properties, Map<String, String> channels) {
        Config config = MapConfig.of(properties);
        return KafkaDeploymentChecks.orderByKey(config, List.of("billing"), channels, java.util.Set.of());
    }

    @Test
    void aClassicInboxKafkaChannelKeepsTheOrder() {
        assertEquals(List.of(), problems(Map.of("inbox.consumer.billing.dead-letter.order", "key",
                "mp.messaging.incoming.orders.connector", "inbox-kafka"), Map.of("orders", "billing")));
    }

    @Test
    void theDefaultAsksNothingOfTheChannel() {
        assertEquals(List.of(), problems(Map.of("mp.messaging.incoming.orders.connector", "liberty-kafka",
                "mp.messaging.incoming.orders.group.type", "share"), Map.of("orders", "billing")));
        assertEquals(List.of(), problems(Map.of("inbox.consumer.billing.dead-letter.order", "none"), Map.of()));
    }

    @Test
    void aShareChannelIsRefused() {
        List<String> found = problems(Map.of("inbox.consumer.billing.dead-letter.order", "KEY",
                "mp.messaging.connector.inbox-kafka.group.type", "share",
                "mp.messaging.incoming.orders.connector", "inbox-kafka"), Map.of("orders", "billing"));
        assertEquals(1, found.size(), found.toString());
        assertTrue(found.get(0).startsWith("INBOX0626E: Consumer billing") && found.get(0).contains("channel orders"),
                found.get(0));
    }

    @Test
    void anotherConnectorOrAMethodWithoutChannelOrJmsMessageIsRefused() {
        List<String> liberty = problems(Map.of("inbox.consumer.billing.dead-letter.order", "key",
                "mp.messaging.incoming.orders.connector", "liberty-kafka"), Map.of("orders", "billing"));
        assertEquals(1, liberty.size(), liberty.toString());
        assertTrue(liberty.get(0).startsWith("INBOX0627E") && liberty.get(0).contains("liberty-kafka"), liberty.get(0));
        List<String> none = problems(Map.of("inbox.consumer.billing.dead-letter.order", "key"), Map.of());
        assertEquals(1, none.size(), none.toString());
        assertTrue(none.get(0).startsWith("INBOX0627E") && none.get(0).contains("nor a JMS message"), none.get(0));
    }

    @Test
    void aMessageDrivenBeanKeepsTheOrder() {
        Config config = MapConfig.of(Map.of("inbox.consumer.billing.dead-letter.order", "key"));
        assertEquals(List.of(), KafkaDeploymentChecks.orderByKey(config, List.of("billing"), Map.of(),
                java.util.Set.of("billing")));
    }
}
