package io.github.jakartainbox.inbox.incoming;

import java.nio.charset.StandardCharsets;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.Header;
import org.eclipse.microprofile.reactive.messaging.Message;

/**
 * What a re-driven Kafka record says about itself: the consumer it is aimed at and the dead letter it re-drives,
 * read from its headers; and the message that carries a delivery, for a method that takes only the payload.
 */
public final class RedriveAim {

    /** The header naming the one consumer that may process a re-sent record (absent: every consumer may). */
    public static final String CONSUMER_HEADER = "inbox-redrive-consumer";
    /** The header naming the dead letter's id. */
    public static final String DEAD_LETTER_HEADER = "inbox-redrive-dead-letter";

    /**
     * The message a connector is delivering on this thread (the {@code inbox-kafka} connector calls the channel's
     * method on its poll thread), so that the inbox reaches the record when the method takes only the payload.
     */
    private static final ThreadLocal<Message<?>> DELIVERING = new ThreadLocal<>();

    private RedriveAim() {
    }

    /**
     * Runs a delivery of a message on this thread, its carrier for a method that takes only the payload.
     *
     * @param message the message being delivered
     * @param delivery what delivers it
     */
    public static void delivering(Message<?> message, Runnable delivery) {
        DELIVERING.set(message);
        try {
            delivery.run();
        } finally {
            DELIVERING.remove();
        }
    }

    /** @return the message a connector is delivering on this thread ({@link #delivering}), {@code null} when none */
    public static Message<?> delivering() {
        return DELIVERING.get();
    }

    /**
     * @param delivery a delivery to an {@code @Idempotent} method
     * @return the message that carries it: the method's {@code Message} argument, else the message a connector is
     *         delivering on this thread ({@link #delivering}); {@code null} when neither
     */
    public static Message<?> carrier(Delivery delivery) {
        return delivery.message() != null ? delivery.message() : DELIVERING.get();
    }

    /**
     * @param message a delivered message, may be {@code null}
     * @return the UTF-8 value of its record's last {@link #CONSUMER_HEADER}; {@code null} when the message is no Kafka
     *         record or carries no such header
     */
    public static String aimedAt(Message<?> message) {
        return message == null ? null : header(message, CONSUMER_HEADER);
    }

    /** @return the dead letter id a re-driven Kafka record names, {@code null} when none */
    public static String deadLetterOf(Message<?> message) {
        return header(message, DEAD_LETTER_HEADER);
    }

    private static String header(Message<?> message, String name) {
        try {
            ConsumerRecord<?, ?> record = message.unwrap(ConsumerRecord.class);
            Header header = record == null ? null : record.headers().lastHeader(name);
            return header == null || header.value() == null ? null : new String(header.value(), StandardCharsets.UTF_8);
        } catch (RuntimeException e) {
            return null; // not a Kafka record (an in-memory or JMS message): nothing can be aimed
        }
    }
}
