package io.github.jakartainbox.inbox.deadletter;

import io.github.jakartainbox.inbox.UnprocessableEventException;
import io.github.jakartainbox.inbox.incoming.Delivery;
import io.github.jakartainbox.inbox.deadletter.internal.DeadLetterWriter;
import io.github.jakartainbox.inbox.incoming.RedriveAim;
import io.github.jakartainbox.inbox.kafka.KafkaRecordMessage;
import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.eclipse.microprofile.reactive.messaging.Message;
import org.junit.jupiter.api.Test;

/** A dead letter's reason names a message id and the Kafka record it came from. */
class DeadLetterReasonTest {

    @Test
    void anUnclassifiedFailureStartsWithAMessageId() {
        String reason = DeadLetterWriter.reason(new NumberFormatException("For input string: \"x\""), 3,
                null);
        assertEquals("INBOX0228E: java.lang.NumberFormatException: For input string: \"x\" (on each of 3 attempt(s); "
                + "the failure policy does not classify this error)", reason);
    }

    @Test
    void aFailureThatNamesItselfKeepsItsId() {
        String reason = DeadLetterWriter.reason(
                new UnprocessableEventException("BILLING0101E: the amount is not a number"), 1, "orders-2@17");
        assertEquals("BILLING0101E: the amount is not a number [orders-2@17]", reason);
    }

    @Test
    void aMethodsDeclarationThatTheEventIsUnprocessableSaysSo() {
        String reason = DeadLetterWriter.reason(
                new UnprocessableEventException("order 7 names no known customer"), 1, "orders-0@3");
        assertEquals("INBOX0229E: order 7 names no known customer (the consumer's method declared the event "
                + "unprocessable: dead-lettered at once) [orders-0@3]", reason);
    }

    @Test
    void aPayloadOnlyDeliveryOnInboxKafkaIsLocatedByTheRecordBeingDelivered() {
        ConsumerRecord<String, String> record = new ConsumerRecord<>("orders.confirmed", 2, 88L, "k", "v");
        Delivery payloadOnly = new Delivery("v", null, -1);
        RedriveAim.delivering(new KafkaRecordMessage(record).message(), () ->
            assertEquals("orders.confirmed-2@88", Delivery.locationOf(InboxRedrives.carrier(payloadOnly))));
        assertNull(Delivery.locationOf(InboxRedrives.carrier(payloadOnly)), "no record on the thread: unknown");
    }

    @Test
    void aKafkaRecordsLocationIsItsTopicPartitionAndOffset() {
        ConsumerRecord<String, String> record = new ConsumerRecord<>("orders.confirmed", 4, 1234L, "k", "v");
        Delivery kafka = new Delivery("v", new KafkaRecordMessage(record).message(), 0);
        Delivery plain = new Delivery("v", Message.of("v"), 0);
        assertAll(() -> assertEquals("orders.confirmed-4@1234", kafka.location()),
                () -> assertNull(plain.location()),
                () -> assertNull(new Delivery("v", null, -1).location()));
    }
}
