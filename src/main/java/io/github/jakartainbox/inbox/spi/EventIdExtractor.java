package io.github.jakartainbox.inbox.spi;

import org.eclipse.microprofile.reactive.messaging.Message;

/**
 * Finds the event id of a delivery when neither a JSON payload field nor a Kafka header carries it. Provide an
 * implementation as a CDI bean with a {@code @Named} qualifier and select it per consumer with
 * {@code inbox.consumer.<consumer>.event-id.source=bean} and {@code inbox.consumer.<consumer>.event-id.bean=<name>}.
 *
 * <p>The id must be the producer's own stable id for the event, the same on every delivery; never a timestamp
 * or a value computed from the payload. The inbox validates and normalizes what is returned
 * ({@link io.github.jakartainbox.inbox.eventid.EventIds}).
 */
public interface EventIdExtractor {

    /**
     * @param payload the method's payload argument (the message payload), never {@code null} unless the
     *                method was called with {@code null}
     * @param message the Reactive Messaging message when the method takes a {@code Message<T>} parameter,
     *                otherwise {@code null}
     * @return the raw event id, or {@code null} when the delivery carries none (it is then dead-lettered)
     * @throws RuntimeException any exception is treated as an unusable event id: the delivery is
     *                          dead-lettered with the exception's message
     */
    String eventId(Object payload, Message<?> message);
}
