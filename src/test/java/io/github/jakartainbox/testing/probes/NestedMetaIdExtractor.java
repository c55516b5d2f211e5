package io.github.jakartainbox.testing.probes;

import io.github.jakartainbox.inbox.spi.EventIdExtractor;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Named;
import jakarta.json.Json;
import jakarta.json.JsonObject;
import java.io.StringReader;
import org.eclipse.microprofile.reactive.messaging.Message;

/** Event-id source "bean" of consumer probe-bean: the producer's id sits in a nested field, meta.id. */
@ApplicationScoped
@Named("nested-meta-id")
public class NestedMetaIdExtractor implements EventIdExtractor {

    @Override
    public String eventId(Object payload, Message<?> message) {
        JsonObject object = Json.createReader(new StringReader((String) payload)).readObject();
        JsonObject meta = object.getJsonObject("meta");
        return meta == null ? null : meta.getString("id", null);
    }
}
