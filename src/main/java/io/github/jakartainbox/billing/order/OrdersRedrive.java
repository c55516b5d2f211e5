package io.github.jakartainbox.billing.order;

import io.github.jakartainbox.billing.BillingConfig;
import io.github.jakartainbox.inbox.deadletter.InboxDeadLetters.SentRecord;
import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.eclipse.microprofile.config.ConfigProvider;

/**
 * Sends re-driven {@code orders.confirmed} records with a Kafka producer of its own: unlike a Reactive Messaging
 * emitter on liberty-kafka, it sets the record's headers (the re-drive's aim, {@code inbox-redrive-consumer}) and
 * reports the record's partition and offset for the dead letter's history. Made at the first re-drive.
 *
 * <p>Keys: {@code billing.redrive.topic} (default: the topic consumer billing reads,
 * {@code mp.messaging.incoming.orders-billing.topic}) and {@code billing.redrive.bootstrap.servers} (default: the
 * server variable {@code kafka.bootstrap.servers}).
 */
@ApplicationScoped
public class OrdersRedrive {

    /** How long a send may wait for the broker's acknowledgement before the re-drive answers 503. */
    static final Duration SEND_TIMEOUT = Duration.ofSeconds(30);

    private KafkaProducer<String, byte[]> producer;
    private String topic;

    /** @return the topic re-drives go to */
    public synchronized String topic() {
        if (topic == null) {
            var config = ConfigProvider.getConfig();
            topic = BillingConfig.REDRIVE_TOPIC.find(config)
                    .or(() -> config.getOptionalValue("mp.messaging.incoming.orders-billing.topic", String.class))
                    .orElse("orders.confirmed");
        }
        return topic;
    }

    /**
     * Sends one record and waits for the broker's acknowledgement (acks=all).
     *
     * @param payload the value, byte for byte
     * @param headers headers to set, name to UTF-8 text
     * @return the topic, partition and offset the broker gave it
     * @throws Exception when the broker did not acknowledge within {@link #SEND_TIMEOUT} (a TimeoutException) or
     *                   refused the record (an ExecutionException)
     */
    public SentRecord send(byte[] payload, Map<String, String> headers) throws Exception {
        ProducerRecord<String, byte[]> record = new ProducerRecord<>(topic(), null, payload);
        headers.forEach((name, value) -> record.headers().add(name, value.getBytes(StandardCharsets.UTF_8)));
        RecordMetadata sent = producer().send(record).get(SEND_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        return new SentRecord(sent.topic(), sent.partition(), sent.hasOffset() ? sent.offset() : null);
    }

    private synchronized KafkaProducer<String, byte[]> producer() {
        if (producer == null) {
            var config = ConfigProvider.getConfig();
            Properties p = new Properties();
            p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, BillingConfig.REDRIVE_BOOTSTRAP_SERVERS.find(config)
                    .or(() -> config.getOptionalValue("kafka.bootstrap.servers", String.class))
                    .orElse("127.0.0.1:9092"));
            p.put(ProducerConfig.ACKS_CONFIG, "all");
            p.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, "10000");
            p.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, "10000");
            p.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, "20000");
            p.put(ProducerConfig.CLIENT_ID_CONFIG, "billing-redrive");
            producer = new KafkaProducer<>(p, new StringSerializer(), new ByteArraySerializer());
        }
        return producer;
    }

    @PreDestroy
    synchronized void close() {
        if (producer != null) {
            producer.close(Duration.ofSeconds(5));
            producer = null;
        }
    }
}
