package io.github.jakartainbox.inbox;

import io.github.jakartainbox.inbox.spi.EventIdExtractor;

/** The event id comes from an application-provided {@link EventIdExtractor} bean. */
final class BeanEventIdSource implements EventIdSource {

    private final String beanName;
    private final EventIdExtractor extractor;

    BeanEventIdSource(String beanName, EventIdExtractor extractor) {
        this.beanName = beanName;
        this.extractor = extractor;
    }

    @Override
    public String rawEventId(Delivery delivery) {
        try {
            return extractor.eventId(delivery.payload(), delivery.message());
        } catch (RuntimeException e) {
            throw new InvalidEventIdException("EventIdExtractor bean '" + beanName + "' failed: " + e);
        }
    }

    @Override
    public String where() {
        return "EventIdExtractor bean '" + beanName + "'";
    }
}
