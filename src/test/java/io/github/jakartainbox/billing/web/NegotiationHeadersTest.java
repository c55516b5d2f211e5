package io.github.jakartainbox.billing.web;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import org.junit.jupiter.api.Test;

/** Which negotiation headers RequestGuard lets through to the JAX-RS runtime (RFC 9110 sections 12.5 and 8.3). */
class NegotiationHeadersTest {

    @Test
    void wellFormedHeadersPass() {
        for (String accept : new String[] {"*/*", "application/json", "application/json;q=0.9, */*;q=0.1",
                "text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8,"
                        + "application/signed-exchange;v=b3;q=0.7", "text/*; q=1.000", "application/json;;", "",
                "application/json, , text/plain", "text/plain; charset=\"utf-8, really\"; Q=0"}) {
            assertNull(NegotiationHeaders.flaw("Accept", accept), accept);
        }
        assertNull(NegotiationHeaders.flaw("Accept-Language", "de-CH, fr;q=0.8, en-US;q=0.5, *;q=0.1"));
        assertNull(NegotiationHeaders.flaw("Accept-Encoding", "gzip, deflate, br, identity;q=0, *;q=0"));
        assertNull(NegotiationHeaders.flaw("Accept-Charset", "utf-8, iso-8859-1;q=0.5"));
        assertNull(NegotiationHeaders.flaw("Content-Type", "application/json; charset=UTF-8"));
        assertNull(NegotiationHeaders.flaw("content-type", ";"), "the 415 of a type the API does not take");
    }

    /** The forms a new user's trial sent: a weight that is no number was a 500, the others a 400 blaming the URL. */
    @Test
    void malformedHeadersAreNamedWithWhatIsWrong() {
        String[][] weights = {{"Accept", "*/*;q=abc", "abc"}, {"Accept", "application/json;q=", ""},
                {"Accept", "*/*;level=1;q=zz", "zz"}, {"Accept", "text/*;q=0.5, */*;q=x", "x"},
                {"Content-Type", "application/json;q=abc", "abc"}, {"Accept", "*/*;q=1.5", "1.5"},
                {"Accept", "*/*;q=0.0001", "0.0001"}, {"Accept-Language", "en;q=abc", "abc"}};
        for (String[] w : weights) {
            assertEquals("weight q=" + w[2] + " is not a number from 0 to 1 with at most 3 decimals",
                    NegotiationHeaders.flaw(w[0], w[1]), w[0] + ": " + w[1]);
        }
        assertEquals("'' is not a media type type/subtype", NegotiationHeaders.flaw("Accept", ";;;"));
        assertEquals("'application' is not a media type type/subtype", NegotiationHeaders.flaw("Accept", "application"));
        assertEquals("'/' is not a media type type/subtype", NegotiationHeaders.flaw("Accept", "/"));
        assertEquals("parameter 'level' is not name=value", NegotiationHeaders.flaw("Accept", "text/plain;level"));
        assertEquals("a quoted string is not closed", NegotiationHeaders.flaw("Accept", "text/plain;a=\"x"));
        assertEquals("'en_US' is not a language range", NegotiationHeaders.flaw("Accept-Language", "en_US"));
        assertEquals("'gz ip' is not a content coding", NegotiationHeaders.flaw("Accept-Encoding", "gz ip"));
        assertEquals("'utf 8' is not a charset", NegotiationHeaders.flaw("Accept-Charset", "utf 8"));
    }
}
