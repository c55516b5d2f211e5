package io.github.jakartainbox.inbox.eventid;

import org.eclipse.microprofile.config.Config;

/**
 * The event id sources that a transport brings from above (the {@code jms} package: {@code jms-property},
 * {@code jms-message-id}), chosen by a consumer's {@code event-id.source}.
 */
public interface TransportEventIdSources {

    /**
     * @param source   the consumer's {@code event-id.source}
     * @param config   the configuration
     * @param consumer the consumer name of the annotation
     * @return the source it names, {@code null} when this transport has none by that name
     */
    EventIdSource create(String source, Config config, String consumer);
}
