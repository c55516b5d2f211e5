package io.github.jakartainbox.inbox.jms;

import io.github.jakartainbox.inbox.InvalidEventIdException;
import io.github.jakartainbox.inbox.incoming.Delivery;
import io.github.jakartainbox.inbox.eventid.EventIdSource;

/**
 * The event id is a string property of a JMS message ({@code message.getStringProperty}), for a message-driven
 * bean's {@code onMessage(jakarta.jms.Message)}. Chosen by {@code event-id.source=jms-property}, the property named by
 * {@code event-id.property} (default {@code event_id}).
 */
public final class JmsPropertyEventIdSource implements EventIdSource {

    private final String property;

    public JmsPropertyEventIdSource(String property) {
        this.property = property;
    }

    @Override
    public String rawEventId(Delivery delivery) {
        if (delivery.jms() == null) {
            throw new InvalidEventIdException(JmsMessage.INBOX0701E.format(where()));
        }
        return JmsMessages.stringProperty(delivery.jms(), property);
    }

    @Override
    public boolean needsJmsMessage() {
        return true;
    }

    @Override
    public String where() {
        return "JMS property '" + property + "'";
    }
}
