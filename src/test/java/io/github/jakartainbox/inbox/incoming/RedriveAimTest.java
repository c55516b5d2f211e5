package io.github.jakartainbox.inbox.incoming;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.charset.StandardCharsets;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.eclipse.microprofile.reactive.messaging.Message;
import org.junit.jupiter.api.Test;

/** A re-driven record's aim read from its headers, and the carrier a connector sets for a payload-only delivery. */
class RedriveAimTest {

    /** A message that unwraps to its Kafka record, as both Kafka connectors' messages do. */
    private static Message<String> kafka(ConsumerRecord<String, String> record) {
        return new Message<>() {
            @Override
            public String getPayload() {
                return record.value();
            }

            @Override
            public <C> C unwrap(Class<C> type) {
                return type.cast(record);
            }
        };
    }

    @Test
    void theAimAndTheDeadLetterAreTheLastHeadersOfTheRecord() {
        ConsumerRecord<String, String> record = new ConsumerRecord<>("orders", 0, 5L, "k", "v");
        record.headers().add(RedriveAim.CONSUMER_HEADER, "analytics".getBytes(StandardCharsets.UTF_8));
        record.headers().add(RedriveAim.CONSUMER_HEADER, "billing".getBytes(StandardCharsets.UTF_8));
        record.headers().add(RedriveAim.DEAD_LETTER_HEADER, "42".getBytes(StandardCharsets.UTF_8));
        assertEquals("billing", RedriveAim.aimedAt(kafka(record)));
        assertEquals("42", RedriveAim.deadLetterOf(kafka(record)));
        assertNull(RedriveAim.aimedAt(Message.of("v")), "no Kafka record: nothing aimed");
        assertNull(RedriveAim.deadLetterOf(null));
    }

    @Test
    void aPayloadOnlyDeliveryIsCarriedByTheMessageBeingDeliveredOnThisThreadOnly() {
        Message<String> carrier = kafka(new ConsumerRecord<>("orders", 0, 6L, "k", "v"));
        Delivery payloadOnly = new Delivery("v", null, -1);
        assertNull(RedriveAim.carrier(payloadOnly));
        RedriveAim.delivering(carrier, () -> assertSame(carrier, RedriveAim.carrier(payloadOnly)));
        assertThrows(IllegalStateException.class, () -> RedriveAim.delivering(carrier, () -> {
            throw new IllegalStateException("the method failed");
        }));
        assertNull(RedriveAim.carrier(payloadOnly), "cleared after the delivery, a failed one too");
        Message<String> own = Message.of("v");
        assertSame(own, RedriveAim.carrier(new Delivery("v", own, 0)), "a method's own message carries it");
    }
}
