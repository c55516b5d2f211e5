package io.github.jakartainbox.inbox.jms;

import io.github.jakartainbox.inbox.InvalidEventIdException;
import io.github.jakartainbox.inbox.incoming.Delivery;
import io.github.jakartainbox.inbox.eventid.EventIdSource;

/**
 * The event id is the JMS message's {@code JMSMessageID}. Chosen only by {@code event-id.source=jms-message-id}:
 * the provider gives every <em>send</em> a new id, so a producer that sends an event again (a retry after a lost
 * answer, a resend after its own crash) makes a new id, and the inbox cannot recognise that duplicate; it
 * recognises only the broker's redeliveries of one sent message. Prefer an id the producer sets
 * ({@code jms-property}, or a JSON body field with {@code payload}).
 */
public final class JmsMessageIdEventIdSource implements EventIdSource {

    @Override
    public String rawEventId(Delivery delivery) {
        if (delivery.jms() == null) {
            throw new InvalidEventIdException(JmsMessage.INBOX0701E.format(where()));
        }
        return JmsMessages.messageId(delivery.jms());
    }

    @Override
    public boolean needsJmsMessage() {
        return true;
    }

    @Override
    public String where() {
        return "JMSMessageID";
    }
}
