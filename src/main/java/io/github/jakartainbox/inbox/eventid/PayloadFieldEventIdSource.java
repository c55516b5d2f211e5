package io.github.jakartainbox.inbox.eventid;

import io.github.jakartainbox.inbox.InvalidEventIdException;
import io.github.jakartainbox.inbox.incoming.Delivery;
import io.github.jakartainbox.inbox.logging.InboxMessage;
import io.github.jakartainbox.inbox.text.StrictJson;
import io.github.jakartainbox.inbox.text.Utf8;
import jakarta.json.JsonException;
import jakarta.json.JsonObject;
import jakarta.json.JsonString;
import jakarta.json.JsonValue;

/**
 * The event id is a top-level string field of a JSON object payload ({@code String}, UTF-8 {@code byte[]} or
 * {@code jakarta.json.JsonObject}).
 */
public final class PayloadFieldEventIdSource implements EventIdSource {

    private final String field;

    public PayloadFieldEventIdSource(String field) {
        this.field = field;
    }

    @Override
    public String rawEventId(Delivery delivery) {
        Object payload = delivery.payload();
        JsonObject object;
        if (payload instanceof JsonObject json) {
            object = json;
        } else if (payload instanceof String || payload instanceof byte[]) {
            String text = payload instanceof String s ? s : Utf8.decode((byte[]) payload);
            if (text == null) {
                throw new InvalidEventIdException(InboxMessage.INBOX0220E.format(where()));
            }
            object = parse(text);
        } else if (payload == null) {
            throw new InvalidEventIdException(InboxMessage.INBOX0221E.format(where()));
        } else {
            throw new InvalidEventIdException(InboxMessage.INBOX0222E.format(where(),
                    payload.getClass().getName()));
        }
        JsonValue value = object.get(field);
        if (value == null) {
            return null;
        }
        if (value.getValueType() == JsonValue.ValueType.NULL) {
            // present but null is the producer's explicit null, not a field it left out: said as such
            throw new InvalidEventIdException(InboxMessage.INBOX0234E.format(where()));
        }
        if (value instanceof JsonString text) {
            return text.getString();
        }
        throw new InvalidEventIdException(InboxMessage.INBOX0223E.format(where(), value.getValueType()));
    }

    private JsonObject parse(String text) {
        if (text.isBlank()) {
            throw new InvalidEventIdException(InboxMessage.INBOX0224E.format(where()));
        }
        try {
            return StrictJson.readObject(text);
        } catch (JsonException e) {
            throw new InvalidEventIdException(InboxMessage.INBOX0225E.format(where(), e.getMessage()));
        }
    }

    @Override
    public String where() {
        return "JSON field '" + field + "'";
    }
}
