package io.github.jakartainbox.inbox.text;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import jakarta.json.JsonException;
import jakarta.json.JsonObject;
import java.math.BigDecimal;
import org.junit.jupiter.api.Test;

class StrictJsonTest {

    private static void refused(String expected, String json) {
        JsonException e = assertThrows(JsonException.class, () -> StrictJson.readObject(json), json);
        assertTrue(e.getMessage().contains(expected), e.getMessage());
    }

    @Test
    void readsOneObjectWithNestedValues() {
        JsonObject o = StrictJson.readObject(" {\"a\":\"x\",\"n\":1.50,\"t\":true,\"z\":null,\"l\":[1,{\"b\":[]}],"
                + "\"o\":{\"a\":\"same name, other object\"},\"e\":\"\\ud83d\\ude00\"} \n");
        assertEquals("x", o.getString("a"));
        assertEquals(new BigDecimal("1.50"), o.getJsonNumber("n").bigDecimalValue());
        assertEquals("same name, other object", o.getJsonObject("o").getString("a"));
        assertEquals(2, o.getJsonArray("l").size());
        assertEquals("\ud83d\ude00", o.getString("e"), "a surrogate pair is one character");
    }

    @Test
    void aMemberNameTwiceInOneObjectIsRefusedNamingIt() {
        refused("has member name 'amount' more than once", "{\"amount\":\"1.00\",\"x\":1,\"amount\":\"1000.00\"}");
        refused("has member name 'k' more than once", "{\"a\":[{\"k\":1,\"k\":1}]}");
        refused("RFC 8259 section 4", "{\"a\":1,\"a\":1}");
    }

    /**
     * Parse errors name the character as U+XXXX with its line and column, and a text cut short as such: Parsson said
     * "Unexpected char 65,279" (the code in the server's locale) and "Unexpected char -1".
     */
    @Test
    void parseErrorsSayWhatAndWhereInPlainWords() {
        refused("starts with a byte order mark (U+FEFF)", "\uFEFF{\"a\":1}");
        refused("the text ends before the JSON object is complete", "{\"a\":");
        refused("the text ends before the JSON object is complete", "{\"a\":\"b");
        refused("unexpected character U+0078 ('x') at line 1, column 7", "{\"a\":1x}");
        refused("unexpected character U+0001 at line 1, column 8", "{\"a\":\"b\u0001\"}");
        refused("unexpected NUMBER at line 1, column 6; Expected tokens are: [COLON]", "{\"a\" 1}");
    }

    /**
     * A number longer than the reader takes is valid JSON, refused as too long, naming the member and what to send:
     * before, "is not valid JSON: Number of BigDecimal ... exceeded maximum length".
     */
    @Test
    void aNumberTooLongForTheReaderIsRefusedAsSuch() {
        String digits = "1".repeat(50_000);
        JsonException e = assertThrows(JsonException.class, () -> StrictJson.readObject("{\"amount\":" + digits + "}"));
        assertTrue(e.getMessage().startsWith("holds a number of 50,000 characters"), e.getMessage());
        assertTrue(e.getMessage().contains("line 1"), e.getMessage());
        refused("holds a number of 1,101 characters", "{\"a\":[" + "9".repeat(1_101) + "]}");
        refused("holds a number of 1,102 characters", "{\"a\":-0." + "9".repeat(1_099) + "}");
        assertEquals(new BigDecimal("9".repeat(1_000)), StrictJson.readObject("{\"a\":" + "9".repeat(1_000) + "}")
                .getJsonNumber("a").bigDecimalValue(), "a long number within the limit is read");
    }

    @Test
    void textThatIsNotExactlyOneObjectIsRefused() {
        refused("is not valid JSON", "{\"a\":");
        refused("is not valid JSON", "{\"a\":1} {\"a\":2}");
        refused("is not valid JSON", "{\"a\":1} }}}");
        refused("is not a JSON object", "[1]");
        refused("is not a JSON object", "42");
        refused("is not valid JSON", "");
    }

    @Test
    void unpairedSurrogatesAndDeepNestingAreRefused() {
        refused("unpaired surrogate \\uD800 in a string", "{\"a\":\"x\\ud800\"}");
        refused("unpaired surrogate \\uDC00 in a member name", "{\"\\udc00\":1}");
        String deep = "{\"a\":" + "[".repeat(StrictJson.MAX_DEPTH) + "]".repeat(StrictJson.MAX_DEPTH) + "}";
        refused("nested deeper than " + StrictJson.MAX_DEPTH, deep);
        String limit = "{\"a\":" + "[".repeat(StrictJson.MAX_DEPTH - 1) + "]".repeat(StrictJson.MAX_DEPTH - 1) + "}";
        assertEquals(1, StrictJson.readObject(limit).size(), "the top-level object and 63 arrays are 64 levels");
    }
}
