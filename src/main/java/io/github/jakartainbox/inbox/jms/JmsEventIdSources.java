package io.github.jakartainbox.inbox.jms;

import io.github.jakartainbox.inbox.InboxConfig;
import io.github.jakartainbox.inbox.eventid.EventIdSource;
import io.github.jakartainbox.inbox.eventid.TransportEventIdSources;
import jakarta.enterprise.context.ApplicationScoped;
import org.eclipse.microprofile.config.Config;

/** The event id sources of message-driven beans: {@code event-id.source=jms-property} and {@code jms-message-id}. */
@ApplicationScoped
public class JmsEventIdSources implements TransportEventIdSources {

    @Override
    public EventIdSource create(String source, Config config, String consumer) {
        return switch (source) {
            case "jms-property" -> new JmsPropertyEventIdSource(InboxConfig.EVENT_ID_PROPERTY.get(config, consumer));
            case "jms-message-id" -> new JmsMessageIdEventIdSource();
            default -> null;
        };
    }
}
