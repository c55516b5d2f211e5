package io.github.jakartainbox.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.github.jakartainbox.billing.SampleEvents;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;

/** Sends raw records to the tests' orders topic and knows when both consumers have handled them. */
public final class OrderRecords {

    private static final Duration WAIT = Duration.ofSeconds(90);

    private OrderRecords() {
    }

    /**
     * Sends the values with one key (one partition, in order), then a good marker event with the same key, and waits
     * until billing and analytics both processed the marker: every record before it has been handled by then.
     *
     * @param db     the tests' database
     * @param key    the record key
     * @param values the record values, as sent
     * @throws Exception when sending fails or the marker is not processed within 90 s
     */
    public static void sendThenMarker(Db db, String key, List<String> values) throws Exception {
        SampleEvents.Event marker = SampleEvents.event(UUID.randomUUID().toString(), key + "-marker", "1.00", "EUR");
        try (KafkaProducer<String, String> producer = SampleEvents.producer(TestEnv.BOOTSTRAP)) {
            for (String value : values) {
                producer.send(new ProducerRecord<>(TestEnv.ORDERS_TOPIC, key, value));
            }
            producer.send(new ProducerRecord<>(TestEnv.ORDERS_TOPIC, key, marker.json())).get();
        }
        assertEquals(2, db.await(WAIT, n -> n == 2, "SELECT count(*) FROM inbox WHERE event_id = ?", marker.eventId()),
                "the marker after the records was processed by billing and analytics");
    }
}
