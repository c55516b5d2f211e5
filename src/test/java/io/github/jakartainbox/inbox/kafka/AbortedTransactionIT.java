package io.github.jakartainbox.inbox.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.github.jakartainbox.billing.SampleEvents.Event;
import io.github.jakartainbox.billing.SampleEvents;
import io.github.jakartainbox.testing.Db;
import io.github.jakartainbox.testing.Deployments;
import io.github.jakartainbox.testing.TestEnv;
import io.github.jakartainbox.testing.Waiting;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.UUID;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.ListOffsetsOptions;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringSerializer;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.shrinkwrap.api.spec.WebArchive;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Issue 14, case 1: records of a Kafka transaction that the producer aborted never reach a consumer; those of a
 * committed transaction do. Outbox relays, Kafka Streams and Debezium with exactly-once write transactionally.
 */
@ExtendWith(ArquillianExtension.class)
class AbortedTransactionIT {

    private static final String TOPIC = TestEnv.ORDERS_TOPIC;
    private static final Duration WAIT = Duration.ofSeconds(90);
    private final Db db = Db.lazy();

    @Deployment
    static WebArchive deployment() {
        return Deployments.billingWithProbes();
    }

    private static KafkaProducer<String, String> transactionalProducer() {
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, TestEnv.BOOTSTRAP);
        p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        p.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, "aborted-it-" + UUID.randomUUID());
        return new KafkaProducer<>(p);
    }

    private long inboxRows(String eventId) {
        return db.number("SELECT count(*) FROM inbox WHERE event_id = ?", eventId);
    }

    @Test
    void anAbortedTransactionsEventIsNeitherInvoicedNorCountedAndACommittedOneIs() throws Exception {
        String run = "txn-" + UUID.randomUUID();
        Event aborted = SampleEvents.event(UUID.randomUUID().toString(), run + "-aborted", "500.00", "EUR");
        Event committed = SampleEvents.event(UUID.randomUUID().toString(), run + "-committed", "7.00", "EUR");
        Event plain = SampleEvents.event(UUID.randomUUID().toString(), run + "-plain", "3.00", "EUR");
        try (KafkaProducer<String, String> producer = transactionalProducer()) {
            producer.initTransactions();
            producer.beginTransaction();
            producer.send(new ProducerRecord<>(TOPIC, run, aborted.json()));
            producer.flush(); // the record is in the log, then the transaction is aborted
            producer.abortTransaction();
            producer.beginTransaction();
            producer.send(new ProducerRecord<>(TOPIC, run, committed.json()));
            producer.commitTransaction();
        }
        try (KafkaProducer<String, String> producer = SampleEvents.producer(TestEnv.BOOTSTRAP)) {
            SampleEvents.send(producer, TOPIC, List.of(new Event(plain.eventId(), run, plain.json())));
        }
        // same key, same partition: once the plain event after them is processed, both were handled
        assertEquals(2, db.await(WAIT, n -> n == 2, "SELECT count(*) FROM inbox WHERE event_id = ?", plain.eventId()),
                "the plain event after the transactions was processed by billing and analytics");
        assertEquals(2, inboxRows(committed.eventId()), "the committed transaction's event was processed by both");
        assertEquals(1, db.number("SELECT count(*) FROM invoice WHERE order_id = ?", committed.orderId()));
        assertEquals(0, inboxRows(aborted.eventId()),
                "the aborted transaction's event was processed by neither billing nor analytics (revenue)");
        assertEquals(0, db.number("SELECT count(*) FROM invoice WHERE order_id = ?", aborted.orderId()),
                "no invoice for an order that never happened");
        assertEquals(0, db.number("SELECT count(*) FROM inbox_dead_letter WHERE event_id = ?", aborted.eventId()),
                "nor is it dead-lettered: it was never delivered");
        // the example's consumer without an inbox (order-status) too: on liberty-kafka its committed offset stopped
        // for good at the first transaction marker (every restart replayed the rest of the partition); on inbox-kafka
        // it reaches the end of the log
        assertEquals("", awaitCommittedAtLogEnd(TestEnv.ORDER_STATUS_GROUP),
                "order-status's committed offset reaches the log end after Kafka transactions");
    }

    /**
     * @return "" once the group's committed offset is at the topic's end (read_committed: after the last record and
     *         transaction marker) on every partition, else what is behind when {@link #WAIT} has passed
     */
    private static String awaitCommittedAtLogEnd(String group) throws Exception {
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, TestEnv.BOOTSTRAP))) {
            return Waiting.lastValue(Waiting.await().atMost(WAIT).pollInterval(Duration.ofMillis(500)), () -> {
                List<TopicPartition> partitions = admin.describeTopics(List.of(TOPIC)).allTopicNames().get().get(TOPIC)
                        .partitions().stream().map(p -> new TopicPartition(TOPIC, p.partition())).toList();
                Map<TopicPartition, Long> end = admin.listOffsets(partitions.stream().collect(Collectors.toMap(
                                tp -> tp, tp -> OffsetSpec.latest())), new ListOffsetsOptions(IsolationLevel.READ_COMMITTED))
                        .all().get().entrySet().stream().collect(Collectors.toMap(Map.Entry::getKey,
                                e -> e.getValue().offset()));
                Map<TopicPartition, OffsetAndMetadata> committed = admin.listConsumerGroupOffsets(group)
                        .partitionsToOffsetAndMetadata().get();
                return end.entrySet().stream().filter(e -> committed.get(e.getKey()) == null
                                || committed.get(e.getKey()).offset() < e.getValue())
                        .map(e -> e.getKey() + " committed " + (committed.get(e.getKey()) == null ? "nothing"
                                : committed.get(e.getKey()).offset()) + ", end " + e.getValue())
                        .collect(Collectors.joining("; "));
            }, String::isEmpty);
        }
    }
}
