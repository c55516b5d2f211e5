package io.github.jakartainbox.bench;

import java.time.Duration;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * A gate between the topic the outbox relay publishes to and the topic a consumer reads: while open, each record is
 * copied at once (same partition, key, value and headers); while held, records wait in the first topic. It lets the
 * mail benchmark build a backlog of {@code invoices.issued} before the mailer sees any of it, so that the mailer is
 * measured alone rather than beside the billing consumer on the same cores.
 */
final class HeldTopic implements AutoCloseable {

    private final KafkaConsumer<byte[], byte[]> consumer;
    private final KafkaProducer<byte[], byte[]> producer;
    private final String to;
    private final Thread thread;
    private final AtomicLong copied = new AtomicLong();
    private volatile boolean open = true;
    private volatile boolean closed;
    private volatile RuntimeException failure;

    /**
     * @param bootstrap  the broker
     * @param from       the topic written to (its partitions are read from the start)
     * @param to         the topic read by the consumer under test, with at least as many partitions as {@code from}
     * @param partitions the partitions of {@code from}
     */
    HeldTopic(String bootstrap, String from, String to, int partitions) {
        this.to = to;
        Properties c = new Properties();
        c.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        c.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        c.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        c.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        consumer = new KafkaConsumer<>(c, new ByteArrayDeserializer(), new ByteArrayDeserializer());
        consumer.assign(java.util.stream.IntStream.range(0, partitions)
                .mapToObj(p -> new TopicPartition(from, p)).toList());
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ProducerConfig.LINGER_MS_CONFIG, 0);
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        producer = new KafkaProducer<>(p, new ByteArraySerializer(), new ByteArraySerializer());
        thread = new Thread(this::copy, "held-topic-" + from);
        thread.setDaemon(true);
        thread.start();
    }

    /** Lets records through (and those that waited). */
    void open() {
        check();
        open = true;
    }

    /** Keeps later records in the first topic until {@link #open()}. */
    void hold() {
        check();
        open = false;
    }

    /** @return records copied so far */
    long copied() {
        check();
        return copied.get();
    }

    private void check() {
        if (failure != null) {
            throw failure;
        }
    }

    private void copy() {
        try {
            while (!closed) {
                if (!open) {
                    Thread.sleep(5);
                    continue;
                }
                List<ConsumerRecord<byte[], byte[]>> records = new java.util.ArrayList<>();
                consumer.poll(Duration.ofMillis(20)).forEach(records::add);
                for (ConsumerRecord<byte[], byte[]> r : records) {
                    producer.send(new ProducerRecord<>(to, r.partition(), r.key(), r.value(), r.headers()));
                }
                if (!records.isEmpty()) {
                    producer.flush();
                    copied.addAndGet(records.size());
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (RuntimeException e) {
            failure = e;
        }
    }

    @Override
    public void close() throws InterruptedException {
        closed = true;
        thread.join(10_000);
        consumer.close();
        producer.close();
    }
}
