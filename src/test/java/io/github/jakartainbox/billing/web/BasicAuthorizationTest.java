package io.github.jakartainbox.billing.web;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The Authorization header read strictly as BASIC credentials: what Liberty's own parse of the header failed on (bad
 * base64, no colon, nothing after the scheme, extra spaces) is malformed here and says why, without the password.
 */
class BasicAuthorizationTest {

    private static String encoded(String text) {
        return Base64.getEncoder().encodeToString(text.getBytes(StandardCharsets.UTF_8));
    }

    private static String problem(String header) {
        BasicAuthorization parsed = BasicAuthorization.parse(header);
        assertFalse(parsed.wellFormed(), header);
        assertNull(parsed.user(), header);
        assertNull(parsed.password(), header);
        assertFalse(parsed.toString().contains("secret"), parsed.toString());
        return parsed.problem();
    }

    @Test
    void wellFormedCredentialsAreReadInAnySchemeCase() {
        for (String scheme : List.of("Basic", "basic", "BASIC")) {
            BasicAuthorization parsed = BasicAuthorization.parse(scheme + " " + encoded("reader:pa:ss wörd"));
            assertTrue(parsed.wellFormed(), scheme);
            assertEquals("reader", parsed.user());
            assertEquals("pa:ss wörd", parsed.password(), "the password runs to the end, colons included");
            assertFalse(parsed.toString().contains("wörd"), "no password in the text form");
        }
        assertEquals("", BasicAuthorization.parse("Basic " + encoded("reader:")).password(), "an empty password");
    }

    @Test
    void whatLibertyFailedOnIsMalformed() {
        assertEquals("is not one base64 value after Basic (RFC 4648 section 4, padded)", problem("Basic !!!!"));
        assertEquals("holds no colon between user and password once decoded", problem("Basic bm9jb2xvbg=="));
        assertEquals("has nothing after Basic", problem("Basic"));
        assertEquals("has nothing after Basic", problem("Basic "));
        assertEquals("has more than one space after Basic", problem("Basic   " + encoded("reader:secret")));
        assertEquals("has another character than one space after Basic", problem("Basic\t" + encoded("reader:secret")));
    }

    @Test
    void everyOtherMalformedHeaderSaysWhy() {
        assertEquals("is empty", problem(""));
        assertEquals("is not of scheme Basic", problem("Bearer " + encoded("reader:secret")));
        assertEquals("is not of scheme Basic", problem("Basicx " + encoded("reader:secret")));
        assertEquals("is not of scheme Basic", problem(" Basic " + encoded("reader:secret")));
        String base64 = "is not one base64 value after Basic (RFC 4648 section 4, padded)";
        assertEquals(base64, problem("Basic " + encoded("reader:secret") + " " + encoded("reader:secret")));
        assertEquals(base64, problem("Basic " + encoded("reader:secret") + " "));
        assertEquals(base64, problem("Basic " + encoded("reader:secret").substring(1)));
        assertEquals(base64, problem("Basic cmVhZGVyOnNlY3JldA"), "unpadded");
        assertEquals(base64, problem("Basic cmVhZGVy-nNlY3JldA=="), "the URL alphabet");
        assertEquals(base64, problem("Basic éééé"));
        assertEquals("is not UTF-8 once base64-decoded", problem("Basic //46eA=="));
        assertEquals("holds no user name before the colon once decoded", problem("Basic " + encoded(":secret")));
        assertEquals("holds a control character once decoded (RFC 7617 section 2)",
                problem("Basic " + encoded("reader:sec\nret")));
        String huge = "Basic " + "QUFB".repeat(2_000);
        assertEquals("has " + huge.length() + " characters, more than the 4096 taken", problem(huge));
    }

    @Test
    void aHeaderSentTwiceIsMalformedAndNoneIsNothing() {
        assertNull(BasicAuthorization.of(List.of()));
        String header = "Basic " + encoded("reader:secret");
        assertEquals("appears 2 times; a request carries it once", BasicAuthorization.of(List.of(header, header))
                .problem());
        assertTrue(BasicAuthorization.of(List.of(header)).wellFormed());
    }
}
