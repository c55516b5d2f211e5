package io.github.jakartainbox.inbox.health;

import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import javax.management.AttributeNotFoundException;
import javax.management.InstanceNotFoundException;
import javax.management.JMException;
import javax.management.MBeanServer;
import javax.management.ObjectName;

/**
 * The Kafka consumers of this server, as the Kafka client reports them in the platform MBean server
 * ({@code kafka.consumer:type=consumer-coordinator-metrics,client-id=...}, Kafka's own JMX metrics; a share
 * consumer's are {@code type=consumer-share-coordinator-metrics}, without {@code assigned-partitions}).
 *
 * <p>liberty-kafka keeps a {@code poll()} running while a channel is idle, so a working consumer heartbeats to its
 * group coordinator every {@code heartbeat.interval.ms} (3 s by default). When liberty-kafka shuts a channel down
 * (an unacknowledged message, CWMRX1011E; a failed poll, CWMRX1002E; then SRMSG00201) it stops polling but
 * keeps the consumer open: the client leaves the group once {@code max.poll.interval.ms} (5 min by default) has
 * passed without a poll, and stops heartbeating. A consumer that has not heartbeated for its session timeout is
 * therefore not consuming. Source: Kafka consumer metrics {@code last-heartbeat-seconds-ago} and
 * {@code assigned-partitions} (Apache Kafka documentation, "Consumer Group Monitoring").
 */
final class KafkaConsumers {

    /**
     * One consumer's state.
     *
     * @param clientId           its {@code client.id}
     * @param lastHeartbeat      time since its last heartbeat to the group coordinator
     * @param assignedPartitions partitions assigned to it now; 0 for a share consumer, whose client does not say
     */
    record Consumer(String clientId, Duration lastHeartbeat, long assignedPartitions) {
    }

    private KafkaConsumers() {
    }

    /**
     * @param clientIds the {@code client.id}s of the channel's consumers (one per copy of a channel with
     *                  {@code concurrency}); the Kafka client's default names are {@code consumer-<group>-<n>}
     * @return the matching consumers of this JVM, none when the channel has no open consumer
     */
    static List<Consumer> of(Pattern clientIds) {
        MBeanServer server = ManagementFactory.getPlatformMBeanServer();
        List<Consumer> found = new ArrayList<>();
        try {
            java.util.Set<ObjectName> names = new java.util.LinkedHashSet<>(server.queryNames(
                    new ObjectName("kafka.consumer:type=consumer-coordinator-metrics,client-id=*"), null));
            names.addAll(server.queryNames(
                    new ObjectName("kafka.consumer:type=consumer-share-coordinator-metrics,client-id=*"), null));
            for (ObjectName name : names) {
                String id = ObjectName.unquote(quoted(name.getKeyProperty("client-id")));
                if (!clientIds.matcher(id).matches()) {
                    continue;
                }
                double seconds;
                double assigned;
                try {
                    seconds = number(server.getAttribute(name, "last-heartbeat-seconds-ago"));
                    assigned = assigned(server, name);
                } catch (InstanceNotFoundException | AttributeNotFoundException closing) {
                    continue; // the consumer closed between the query and the read: it is no open consumer
                }
                found.add(new Consumer(id, Double.isNaN(seconds) || seconds < 0 ? null
                        : Duration.ofMillis((long) (seconds * 1000)), Double.isNaN(assigned) ? 0 : (long) assigned));
            }
        } catch (JMException e) {
            throw new IllegalStateException("Cannot read the Kafka consumer metrics (JMX): " + e, e);
        }
        return found;
    }

    /**
     * @return the consumer's assigned partitions; NaN for a share consumer, whose metrics have none
     * @throws AttributeNotFoundException for a classic consumer without them: it is closing
     */
    private static double assigned(MBeanServer server, ObjectName name) throws JMException {
        if (name.getKeyProperty("type").equals("consumer-share-coordinator-metrics")) {
            return Double.NaN;
        }
        return number(server.getAttribute(name, "assigned-partitions"));
    }

    private static String quoted(String value) {
        return value.startsWith("\"") ? value : ObjectName.quote(value);
    }

    private static double number(Object value) {
        return value instanceof Number n ? n.doubleValue() : Double.NaN;
    }
}
