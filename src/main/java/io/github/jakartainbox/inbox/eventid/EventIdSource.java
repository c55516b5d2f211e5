package io.github.jakartainbox.inbox.eventid;

import io.github.jakartainbox.inbox.incoming.Delivery;

/**
 * Where a consumer finds the raw event id of a delivery. Implementations: {@link PayloadFieldEventIdSource},
 * {@link KafkaHeaderEventIdSource}, {@link BeanEventIdSource}, {@code JmsPropertyEventIdSource},
 * {@code JmsMessageIdEventIdSource}; chosen by
 * {@code inbox.consumer.<consumer>.event-id.source}.
 */
public interface EventIdSource {

    /**
     * @param delivery the intercepted delivery
     * @return the raw event id, {@code null} when absent
     * @throws InvalidEventIdException when the place holding the id cannot be read (not JSON, wrong type)
     */
    String rawEventId(Delivery delivery);

    /** @return where the id is looked for, for error messages, e.g. {@code JSON field 'event_id'} */
    String where();

    /** @return whether the id can only be found on the {@code Message}, so the method must take one */
    default boolean needsMessage() {
        return false;
    }

    /** @return whether the id can only be found on a JMS message, so the method must take a
     *          {@code jakarta.jms.Message} */
    default boolean needsJmsMessage() {
        return false;
    }
}
