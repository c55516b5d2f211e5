package io.github.jakartainbox.billing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.jakartainbox.inbox.UnprocessableEventException;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class OrderConfirmedTest {

    @Test
    void parsesTheDocumentedFormat() {
        OrderConfirmed o = OrderConfirmed.parse("{\"event_id\":\"e\",\"order_id\":\"o-1\",\"customer_email\":"
                + "\"a@example.com\",\"amount\":\"129.90\",\"currency\":\"EUR\"}");
        assertEquals(new OrderConfirmed("e", "o-1", "a@example.com", new BigDecimal("129.90"), "EUR"), o);
    }

    @Test
    void rejectsBadFieldsNamingThem() {
        String base = "{\"event_id\":\"e\",\"order_id\":\"o\",\"customer_email\":\"a@example.com\",";
        assertMessage("amount must be a decimal string", base + "\"amount\":\"abc\",\"currency\":\"EUR\"}");
        assertMessage("field 'amount' must be a non-empty JSON string", base + "\"amount\":12.5,\"currency\":\"EUR\"}");
        assertMessage("must be positive", base + "\"amount\":\"-1\",\"currency\":\"EUR\"}");
        assertMessage("must be positive", base + "\"amount\":\"1.001\",\"currency\":\"EUR\"}");
        assertMessage("not an ISO 4217 currency code", base + "\"amount\":\"1.00\",\"currency\":\"XYZ1\"}");
        assertMessage("not valid JSON", "{\"event_id\":");
        assertMessage("not an ISO 4217 currency code", base + "\"amount\":\"1.00\",\"currency\":\"XXX\"}");
        String valid = base + "\"amount\":\"1.00\",\"currency\":\"EUR\"}";
        assertMessage("not valid JSON", valid + " }}} this is not json");
        assertMessage("not valid JSON", valid + "{\"event_id\":\"other\"}");
        assertMessage("not valid JSON", valid + "\u0000");
        assertMessage("customer_email 'x\\u000A[ERROR] forged' is not", base.replace("a@example.com", "x\\n[ERROR] forged")
                + "\"amount\":\"1.00\",\"currency\":\"EUR\"}");
        assertMessage("not a JSON object", "[1]");
        assertMessage("value is empty", "");
        assertMessage("must be positive, with at most 10 integer digits", base + "\"amount\":\"1e999999999\",\"currency\":\"EUR\"}");
        assertMessage("not valid JSON", base + "\"x\":" + "[".repeat(5000) + "]".repeat(5000) + "}");
    }

    @Test
    void valuesAreCheckedAsBytesFirst() {
        assertBytesMessage("value is empty (0 bytes)", new byte[0]);
        assertBytesMessage("value is empty (a tombstone", null);
        byte[] big = ("{\"event_id\":\"e\",\"pad\":\"" + "x".repeat(5 * 1024 * 1024) + "\"}").getBytes(StandardCharsets.UTF_8);
        assertBytesMessage("more than the 65536", big);
        byte[] latin1 = "{\"event_id\":\"e\",\"customer_email\":\"j\u00f6rg@example.com\"}".getBytes(StandardCharsets.ISO_8859_1);
        assertBytesMessage("not valid UTF-8", latin1);
        OrderConfirmed o = OrderConfirmed.parse(("{\"event_id\":\"e\",\"order_id\":\"o-1\",\"customer_email\":"
                + "\"j\u00f6rg@example.com\",\"amount\":\"1.00\",\"currency\":\"EUR\"}").getBytes(StandardCharsets.UTF_8));
        assertEquals("j\u00f6rg@example.com", o.customerEmail());
    }

    private static void assertBytesMessage(String expected, byte[] value) {
        UnprocessableEventException e = assertThrows(UnprocessableEventException.class, () -> OrderConfirmed.parse(value));
        assertTrue(e.getMessage().contains(expected), e.getMessage());
    }

    private static void assertMessage(String expected, String json) {
        UnprocessableEventException e = assertThrows(UnprocessableEventException.class, () -> OrderConfirmed.parse(json));
        assertTrue(e.getMessage().contains(expected), e.getMessage());
    }
}
