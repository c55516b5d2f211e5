package io.github.jakartainbox.inbox.eventid;

import io.github.jakartainbox.inbox.InvalidEventIdException;
import io.github.jakartainbox.inbox.incoming.Delivery;
import io.github.jakartainbox.inbox.logging.InboxMessage;
import io.github.jakartainbox.inbox.text.Printable;
import io.github.jakartainbox.inbox.spi.EventIdExtractor;
import jakarta.enterprise.inject.Instance;

/** The event id comes from an application-provided {@link EventIdExtractor} bean, obtained at first use. */
public final class BeanEventIdSource implements EventIdSource {

    private final String beanName;
    private final Instance<EventIdExtractor> bean;
    private volatile EventIdExtractor extractor;

    public BeanEventIdSource(String beanName, Instance<EventIdExtractor> bean) {
        this.beanName = beanName;
        this.bean = bean;
    }

    @Override
    public String rawEventId(Delivery delivery) {
        EventIdExtractor current = extractor;
        if (current == null) {
            current = bean.get();
            extractor = current;
        }
        try {
            return current.eventId(delivery.payload(), delivery.message());
        } catch (RuntimeException e) {
            throw new InvalidEventIdException(InboxMessage.INBOX0216E.format(beanName,
                    Printable.of(String.valueOf(e), 200)));
        }
    }

    @Override
    public String where() {
        return "EventIdExtractor bean '" + beanName + "'";
    }
}
