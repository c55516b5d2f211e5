package io.github.jakartainbox.inbox.eventid;

import io.github.jakartainbox.inbox.InvalidEventIdException;
import io.github.jakartainbox.inbox.incoming.Delivery;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class PayloadFieldEventIdSourceTest {

    private final PayloadFieldEventIdSource source = new PayloadFieldEventIdSource("event_id");

    private static Delivery payload(Object payload) {
        return new Delivery(payload, null, -1);
    }

    @Test
    void readsTheFieldFromJsonTextAndUtf8Bytes() {
        assertEquals("e-1", source.rawEventId(payload("{\"event_id\":\"e-1\",\"x\":1}")));
        assertEquals("é-1", source.rawEventId(payload("{\"event_id\":\"é-1\"}".getBytes(StandardCharsets.UTF_8))));
    }

    @Test
    void absentFieldIsNoId() {
        assertNull(source.rawEventId(payload("{\"x\":1}")));
    }

    @Test
    void aNullIdIsReportedAsNullNotAsMissing() {
        InvalidEventIdException e = assertThrows(InvalidEventIdException.class,
                () -> source.rawEventId(payload("{\"event_id\":null}")));
        assertTrue(e.getMessage().startsWith("INBOX0234E: No event id: JSON field 'event_id' is null"), e.getMessage());
    }

    @Test
    void nonStringIdIsRejected() {
        InvalidEventIdException e = assertThrows(InvalidEventIdException.class,
                () -> source.rawEventId(payload("{\"event_id\":42}")));
        assertTrue(e.getMessage().contains("must be a JSON string, but is a NUMBER"), e.getMessage());
    }

    @Test
    void malformedEmptyOrNonObjectPayloadIsRejected() {
        assertThrows(InvalidEventIdException.class, () -> source.rawEventId(payload("{\"event_id\":")));
        assertThrows(InvalidEventIdException.class, () -> source.rawEventId(payload("")));
        assertThrows(InvalidEventIdException.class, () -> source.rawEventId(payload("[1,2]")));
        InvalidEventIdException e = assertThrows(InvalidEventIdException.class,
                () -> source.rawEventId(payload(Integer.valueOf(3))));
        assertTrue(e.getMessage().contains("not JSON text"), e.getMessage());
        assertThrows(InvalidEventIdException.class, () -> source.rawEventId(payload(null)));
    }

    @Test
    void anythingAfterTheObjectMakesThePayloadInvalid() {
        for (String trailing : new String[] {" }}} not json", "{\"event_id\":\"other\"}", "\u0000", "[]"}) {
            InvalidEventIdException e = assertThrows(InvalidEventIdException.class,
                    () -> source.rawEventId(payload("{\"event_id\":\"e-1\"}" + trailing)), trailing);
            assertTrue(e.getMessage().contains("not valid JSON"), e.getMessage());
        }
        assertEquals("e-1", source.rawEventId(payload("{\"event_id\":\"e-1\"} \n")), "trailing whitespace is JSON");
    }

    @Test
    void anEventIdMemberTwiceIsRefusedNotResolvedToOneOfThem() {
        InvalidEventIdException e = assertThrows(InvalidEventIdException.class,
                () -> source.rawEventId(payload("{\"event_id\":\"e-1\",\"event_id\":\"e-2\"}")));
        assertTrue(e.getMessage().contains("has member name 'event_id' more than once"), e.getMessage());
    }

    @Test
    void nonUtf8BytesAreRejectedNotReplaced() {
        byte[] latin1 = "{\"event_id\":\"j\u00f6rg\"}".getBytes(StandardCharsets.ISO_8859_1);
        InvalidEventIdException e = assertThrows(InvalidEventIdException.class, () -> source.rawEventId(payload(latin1)));
        assertTrue(e.getMessage().contains("not valid UTF-8"), e.getMessage());
    }

    @Test
    void jsonNestedBeyondTheParsersLimitIsAnInvalidIdNotACrash() {
        String deep = "{\"event_id\":\"x\",\"a\":" + "[".repeat(5000) + "]".repeat(5000) + "}";
        assertThrows(InvalidEventIdException.class, () -> source.rawEventId(payload(deep)));
    }
}
