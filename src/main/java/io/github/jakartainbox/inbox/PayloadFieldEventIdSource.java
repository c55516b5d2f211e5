package io.github.jakartainbox.inbox;

import jakarta.json.JsonException;
import jakarta.json.JsonObject;
import jakarta.json.JsonString;
import jakarta.json.JsonValue;

/**
 * The event id is a top-level string field of a JSON object payload ({@code String}, UTF-8 {@code byte[]} or
 * {@code jakarta.json.JsonObject}).
 */
final class PayloadFieldEventIdSource implements EventIdSource {

    private final String field;

    PayloadFieldEventIdSource(String field) {
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
                throw new InvalidEventIdException("Cannot read " + where() + ": the payload is not valid UTF-8 "
                        + "(JSON text must be UTF-8, RFC 8259 section 8.1).");
            }
            object = parse(text);
        } else if (payload == null) {
            throw new InvalidEventIdException("Cannot read " + where() + ": the payload is null (a tombstone "
                    + "record, or a value the deserializer could not read).");
        } else {
            throw new InvalidEventIdException("Cannot read " + where() + ": the payload is a "
                    + payload.getClass().getName() + ", not JSON text. Take the payload as String, byte[] or "
                    + "JsonObject, or set inbox.consumer.<consumer>.event-id.source to header or bean.");
        }
        JsonValue value = object.get(field);
        if (value == null || value.getValueType() == JsonValue.ValueType.NULL) {
            return null;
        }
        if (value instanceof JsonString text) {
            return text.getString();
        }
        throw new InvalidEventIdException(where() + " must be a JSON string, but is a " + value.getValueType()
                + ". Send the event id as a string, for example a UUID.");
    }

    private JsonObject parse(String text) {
        if (text.isBlank()) {
            throw new InvalidEventIdException("Cannot read " + where() + ": the payload is empty.");
        }
        try {
            return StrictJson.readObject(text);
        } catch (JsonException e) {
            throw new InvalidEventIdException("Cannot read " + where() + ": the payload " + e.getMessage() + ".");
        }
    }

    @Override
    public String where() {
        return "JSON field '" + field + "'";
    }
}
