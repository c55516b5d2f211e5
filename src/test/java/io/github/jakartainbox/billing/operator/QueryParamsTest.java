package io.github.jakartainbox.billing.operator;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * How the API reads the numbers of a request: ASCII digits only (the 400 that names the parameter needs the JAX-RS
 * runtime: ApiBoundsIT).
 */
class QueryParamsTest {

    /** Digits of other scripts, which Integer.parseInt and Long.parseLong take: ?limit=%D9%A1 was a limit of 1. */
    @Test
    void aNumberOfOtherDigitsThanAsciiIsNoNumber() {
        for (String text : List.of("\u0661", "\u0661\u0660", "\u0967", "\uff11", "\ud835\udfcf", "1\u0660", "+1", " 1",
                "1 ", "-0", "-1", "", "abc", "1.5", "1e3", "0x10", "9223372036854775808", "12345678901234567890")) {
            assertEquals(-1, QueryParams.asciiNumber(text), text);
        }
        assertEquals(-1, QueryParams.asciiNumber(null));
    }

    @Test
    void asciiNumbersAreRead() {
        assertEquals(0, QueryParams.asciiNumber("0"));
        assertEquals(7, QueryParams.asciiNumber("007"));
        assertEquals(65537, QueryParams.asciiNumber("65537"));
        assertEquals(Long.MAX_VALUE, QueryParams.asciiNumber("9223372036854775807"));
    }
}
