package io.github.jakartainbox.inbox.health;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import javax.management.Attribute;
import javax.management.AttributeList;
import javax.management.AttributeNotFoundException;
import javax.management.DynamicMBean;
import javax.management.MBeanInfo;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Reading the Kafka client's consumer metrics from the platform MBean server, with stand-ins for the client's
 * {@code consumer-coordinator-metrics} beans.
 */
class KafkaConsumersTest {

    private final MBeanServer server = ManagementFactory.getPlatformMBeanServer();
    private final List<ObjectName> registered = new java.util.ArrayList<>();

    /** A metrics bean whose attributes are the given values; an absent one is not found, as on a closing client. */
    private record Metrics(Map<String, Object> values) implements DynamicMBean {
        @Override
        public Object getAttribute(String attribute) throws AttributeNotFoundException {
            if (!values.containsKey(attribute)) {
                throw new AttributeNotFoundException(attribute);
            }
            return values.get(attribute);
        }

        @Override
        public void setAttribute(Attribute attribute) {
            throw new UnsupportedOperationException();
        }

        @Override
        public AttributeList getAttributes(String[] attributes) {
            return new AttributeList();
        }

        @Override
        public AttributeList setAttributes(AttributeList attributes) {
            throw new UnsupportedOperationException();
        }

        @Override
        public Object invoke(String actionName, Object[] params, String[] signature) {
            throw new UnsupportedOperationException();
        }

        @Override
        public MBeanInfo getMBeanInfo() {
            return new MBeanInfo(Metrics.class.getName(), "test metrics", null, null, null, null);
        }
    }

    private void register(String clientId, Map<String, Object> values) throws Exception {
        register("consumer-coordinator-metrics", clientId, values);
    }

    private void register(String type, String clientId, Map<String, Object> values) throws Exception {
        ObjectName name = new ObjectName("kafka.consumer:type=" + type + ",client-id=" + clientId);
        server.registerMBean(new Metrics(values), name);
        registered.add(name);
    }

    @AfterEach
    void unregister() throws Exception {
        for (ObjectName name : registered) {
            server.unregisterMBean(name);
        }
    }

    @Test
    void readsTheMatchingConsumersHeartbeatAndAssignedPartitions() throws Exception {
        register("consumer-kc-test-open-1", Map.of("last-heartbeat-seconds-ago", 2.5, "assigned-partitions", 3.0));
        register("consumer-other-1", Map.of("last-heartbeat-seconds-ago", 1.0, "assigned-partitions", 1.0));

        assertEquals(List.of(new KafkaConsumers.Consumer("consumer-kc-test-open-1", Duration.ofMillis(2500), 3)),
                KafkaConsumers.of(Pattern.compile("consumer-kc-test-open-\\d+")));
    }

    @Test
    void aConsumerWhoseMetricsGoWhileTheyAreReadIsNoOpenConsumer() throws Exception {
        // liberty-kafka closing the channel's consumer: the bean is still listed, its attributes are gone
        register("consumer-kc-test-closing-1", Map.of("last-heartbeat-seconds-ago", 2.5));
        register("consumer-kc-test-closing-2", Map.of("last-heartbeat-seconds-ago", 0.5, "assigned-partitions", 2.0));

        assertEquals(List.of(new KafkaConsumers.Consumer("consumer-kc-test-closing-2", Duration.ofMillis(500), 2)),
                KafkaConsumers.of(Pattern.compile("consumer-kc-test-closing-\\d+")));
    }

    @Test
    void aShareConsumerIsFoundByItsHeartbeatAlone() throws Exception {
        // a KafkaShareConsumer's coordinator metrics (kafka-clients 4.4) have no assigned-partitions
        register("consumer-share-coordinator-metrics", "inbox-kafka-kc-test-share-1",
                Map.of("last-heartbeat-seconds-ago", 1.5));

        assertEquals(List.of(new KafkaConsumers.Consumer("inbox-kafka-kc-test-share-1", Duration.ofMillis(1500), 0)),
                KafkaConsumers.of(Pattern.compile("inbox-kafka-kc-test-share-\\d+")));
    }
}
