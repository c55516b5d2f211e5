package io.github.jakartainbox.outbox;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Properties;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.junit.jupiter.api.Test;

/**
 * The relay's producer survives a leader change on a cluster without losing or doubling a record: every in-sync
 * replica acknowledges ({@code acks=all}, with the topic's {@code min.insync.replicas}), and the broker drops the
 * retries of a batch it already has (idempotence, at most 5 requests in flight so retries keep their order).
 */
class OutboxRelayProducerTest {

    @Test
    void theRelaysProducerIsIdempotentWithAcksAll() {
        Properties p = OutboxRelay.relayDefaults();
        assertEquals("all", p.get(ProducerConfig.ACKS_CONFIG));
        assertEquals("true", p.get(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG));
        int inFlight = Integer.parseInt(String.valueOf(p.get(ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION)));
        assertTrue(inFlight >= 1 && inFlight <= 5, "idempotence keeps order with at most 5 in flight: " + inFlight);
    }
}
