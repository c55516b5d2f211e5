package io.github.jakartainbox.bench;

import io.github.jakartainbox.billing.SampleEvents.Event;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Future;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;

/** Sends events at a fixed rate, for the latency runs. */
final class Paced {

    private Paced() {
    }

    /**
     * Sends each event (keyed by order id) at its slot, flushing each, and waits for the broker's acknowledgements.
     *
     * @return each event id's send time
     */
    static Map<String, Instant> send(KafkaProducer<String, String> producer, String topic, List<Event> events,
                                     int rate) throws Exception {
        Map<String, Instant> sentAt = new HashMap<>();
        List<Future<RecordMetadata>> sent = new ArrayList<>();
        long interval = 1_000_000_000L / rate;
        long next = System.nanoTime();
        for (Event e : events) {
            while (System.nanoTime() < next) {
                Thread.onSpinWait();
            }
            sentAt.put(e.eventId(), Instant.now());
            sent.add(producer.send(new ProducerRecord<>(topic, e.orderId(), e.json())));
            producer.flush();
            next += interval;
        }
        for (Future<RecordMetadata> f : sent) {
            f.get();
        }
        return sentAt;
    }
}
