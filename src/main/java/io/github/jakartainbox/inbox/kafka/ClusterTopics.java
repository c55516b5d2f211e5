package io.github.jakartainbox.inbox.kafka;

import java.time.Duration;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.ListOffsetsResult;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.KafkaFuture;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;

/**
 * What the cluster says of a channel's topics: each topic's Kafka topic id and partition count, and the records in
 * partitions. The consumer keeps topic ids in its metadata but offers no public way to read them (neither
 * {@code ConsumerRecord} nor {@code PartitionInfo} carries one), so they come from the Admin API's
 * {@code describeTopics}: one request for the channel's topics at each assignment and each watch round.
 */
interface ClusterTopics extends AutoCloseable {

    /**
     * A topic as the cluster describes it.
     *
     * @param id         its Kafka topic id ({@code Uuid.toString()})
     * @param partitions its partition count
     */
    record Topic(String id, int partitions) {
    }

    /**
     * @param topics the topic names
     * @return those of them that exist, by name; a topic that does not exist is absent
     * @throws KafkaException when the cluster does not answer in time
     */
    Map<String, Topic> describe(Collection<String> topics);

    /**
     * @param partitions partitions of existing topics
     * @return per partition, the records it holds (end offset minus log start offset)
     * @throws KafkaException when the cluster does not answer in time
     */
    Map<TopicPartition, Long> records(Collection<TopicPartition> partitions);

    @Override
    void close();

    /** The Admin client of a channel, made at first use from the channel's Kafka settings. */
    final class OverAdmin implements ClusterTopics {

        static final Duration TIMEOUT = Duration.ofSeconds(10);

        private final Properties consumer;
        private Admin admin;

        /** @param consumer the channel's Kafka consumer properties; the Admin client takes those it knows */
        OverAdmin(Properties consumer) {
            this.consumer = consumer;
        }

        private Admin admin() {
            if (admin == null) {
                Properties properties = new Properties();
                for (String name : consumer.stringPropertyNames()) {
                    if (AdminClientConfig.configNames().contains(name)) {
                        properties.setProperty(name, consumer.getProperty(name));
                    }
                }
                properties.setProperty(AdminClientConfig.CLIENT_ID_CONFIG,
                        consumer.getProperty("client.id", "inbox-kafka") + "-topics");
                admin = Admin.create(properties);
            }
            return admin;
        }

        @Override
        public Map<String, Topic> describe(Collection<String> topics) {
            Map<String, KafkaFuture<TopicDescription>> futures = admin().describeTopics(topics).topicNameValues();
            Map<String, Topic> found = new HashMap<>();
            for (Map.Entry<String, KafkaFuture<TopicDescription>> e : futures.entrySet()) {
                try {
                    TopicDescription d = e.getValue().get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
                    found.put(e.getKey(), new Topic(d.topicId().toString(), d.partitions().size()));
                } catch (ExecutionException x) {
                    if (!(x.getCause() instanceof UnknownTopicOrPartitionException)) {
                        throw new KafkaException("describing topic " + e.getKey() + " failed: " + x.getCause(),
                                x.getCause());
                    }
                } catch (TimeoutException x) {
                    throw new KafkaException("describing topic " + e.getKey() + " took longer than " + TIMEOUT, x);
                } catch (InterruptedException x) {
                    Thread.currentThread().interrupt();
                    throw new KafkaException("interrupted", x);
                }
            }
            return found;
        }

        @Override
        public Map<TopicPartition, Long> records(Collection<TopicPartition> partitions) {
            Map<TopicPartition, Long> ends = offsets(partitions, OffsetSpec.latest());
            Map<TopicPartition, Long> starts = offsets(partitions, OffsetSpec.earliest());
            Map<TopicPartition, Long> records = new HashMap<>();
            ends.forEach((tp, end) -> records.put(tp, Math.max(0, end - starts.getOrDefault(tp, 0L))));
            return records;
        }

        private Map<TopicPartition, Long> offsets(Collection<TopicPartition> partitions, OffsetSpec spec) {
            Map<TopicPartition, OffsetSpec> request = new HashMap<>();
            partitions.forEach(tp -> request.put(tp, spec));
            try {
                Map<TopicPartition, ListOffsetsResult.ListOffsetsResultInfo> infos = admin().listOffsets(request).all()
                        .get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
                Map<TopicPartition, Long> offsets = new HashMap<>();
                infos.forEach((tp, info) -> offsets.put(tp, info.offset()));
                return offsets;
            } catch (ExecutionException | TimeoutException e) {
                throw new KafkaException("listing the offsets of " + List.copyOf(partitions) + " failed: " + e, e);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new KafkaException("interrupted", e);
            }
        }

        @Override
        public void close() {
            if (admin != null) {
                admin.close(Duration.ofSeconds(1));
                admin = null;
            }
        }
    }
}
