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
        assertEquals("weight q=abc is not a number from 0 to 1 with at most 3 decimals",
                NegotiationHeaders.flaw("Accept", "*/*;q=abc"));
        assertEquals("weight q= is not a number from 0 to 1 with at most 3 decimals",
                NegotiationHeaders.flaw("Accept", "application/json;q="));
        assertEquals("weight q=zz is not a number from 0 to 1 with at most 3 decimals",
                NegotiationHeaders.flaw("Accept", "*/*;level=1;q=zz"));
        assertEquals("weight q=x is not a number from 0 to 1 with at most 3 decimals",
                NegotiationHeaders.flaw("Accept", "text/*;q=0.5, */*;q=x"));
        assertEquals("weight q=abc is not a number from 0 to 1 with at most 3 decimals",
                NegotiationHeaders.flaw("Content-Type", "application/json;q=abc"));
        assertEquals("weight q=1.5 is not a number from 0 to 1 with at most 3 decimals",
                NegotiationHeaders.flaw("Accept", "*/*;q=1.5"));
        assertEquals("weight q=0.0001 is not a number from 0 to 1 with at most 3 decimals",
                NegotiationHeaders.flaw("Accept", "*/*;q=0.0001"));
        assertEquals("'' is not a media type type/subtype", NegotiationHeaders.flaw("Accept", ";;;"));
        assertEquals("'application' is not a media type type/subtype", NegotiationHeaders.flaw("Accept", "application"));
        assertEquals("'/' is not a media type type/subtype", NegotiationHeaders.flaw("Accept", "/"));
        assertEquals("parameter 'level' is not name=value", NegotiationHeaders.flaw("Accept", "text/plain;level"));
        assertEquals("a quoted string is not closed", NegotiationHeaders.flaw("Accept", "text/plain;a=\"x"));
        assertEquals("weight q=abc is not a number from 0 to 1 with at most 3 decimals",
                NegotiationHeaders.flaw("Accept-Language", "en;q=abc"));
        assertEquals("'en_US' is not a language range", NegotiationHeaders.flaw("Accept-Language", "en_US"));
        assertEquals("'gz ip' is not a content coding", NegotiationHeaders.flaw("Accept-Encoding", "gz ip"));
        assertEquals("'utf 8' is not a charset", NegotiationHeaders.flaw("Accept-Charset", "utf 8"));
    }
}
