package io.github.jakartainbox.billing.web;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.github.jakartainbox.billing.BillingMessage;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

import org.junit.jupiter.api.Test;

/** How RequestGuard reads an Origin header or an allow-list entry (RFC 6454 serialisation). */
class RequestGuardTest {

    @Test
    void anOriginIsNormalisedWithItsDefaultPort() {
        assertEquals("http://localhost:9080", RequestGuard.origin("http://localhost:9080"));
        assertEquals("http://billing.example:80", RequestGuard.origin("http://billing.example"));
        assertEquals("https://billing.example:443", RequestGuard.origin("HTTPS://Billing.Example"));
        assertEquals("https://billing.example:443", RequestGuard.origin("https://billing.example:443"));
        assertEquals("http://[::1]:9080", RequestGuard.origin("http://[::1]:9080"));
    }

    @Test
    void whatIsNoHttpOriginIsNull() {
        for (String text : new String[] {"null", "", "billing.example", "file:///etc/passwd", "ftp://billing.example",
                "http://billing.example/", "http://billing.example/path", "http://user:pw@billing.example",
                "http://billing.example?x=1", "http://billing.example#x", "http://localhost:9080.evil.example",
                "http://bad host", "http://billing.example:99999999999"}) {
            assertNull(RequestGuard.origin(text), text);
        }
    }

    @Test
    void aPercentNotFollowedByTwoHexDigitsIsFound() {
        assertEquals(-1, RequestGuard.malformedEscape("limit=10&orderId=a%20b%2F"));
        assertEquals(-1, RequestGuard.malformedEscape("/billing/api/invoices"));
        assertEquals(6, RequestGuard.malformedEscape("limit=%zz"));
        assertEquals(8, RequestGuard.malformedEscape("orderId=%"));
        assertEquals(8, RequestGuard.malformedEscape("orderId=%4"));
        assertEquals(11, RequestGuard.malformedEscape("orderId=%41%g1"));
        // hexadecimal digits are ASCII: Character.digit also took ARABIC-INDIC DIGIT ONE and FULLWIDTH LATIN A
        assertEquals(6, RequestGuard.malformedEscape("limit=%\u0661\u0661"));
        assertEquals(6, RequestGuard.malformedEscape("limit=%4\uff21"));
    }

    /** A character a URL may not carry unencoded (RFC 3986 section 2) is found; the JAX-RS runtime failed on it. */
    @Test
    void aCharacterAUrlMayNotCarryIsFound() {
        assertEquals(-1, RequestGuard.notInUri("/billing/api/invoices"));
        assertEquals(-1, RequestGuard.notInUri("orderId=a%C3%A9-._~!$&'()*+,;=:@/?"));
        assertEquals(8, RequestGuard.notInUri("orderId=\u00e9"));
        for (String c : new String[] {"|", "\"", "{", "}", "^", "`", "<", ">", "\\", "[", "]", " ", "#", "\u0000",
                "\u007f", "\u0661"}) {
            assertEquals(1, RequestGuard.notInUri("a" + c + "b"), c);
        }
    }

    @Test
    void theCharsetOfAContentTypeIsItsParameterUnquoted() {
        assertNull(RequestGuard.charset(null));
        assertNull(RequestGuard.charset("application/json"));
        assertNull(RequestGuard.charset("application/json; boundary=x"));
        assertEquals("latin1", RequestGuard.charset("application/json; charset=latin1"));
        assertEquals("UTF-8", RequestGuard.charset("application/json;CHARSET=\"UTF-8\""));
        assertEquals("utf-8", RequestGuard.charset("application/json ; q=1 ; charset = utf-8 "));
    }

    /** getServerName: the host of an absolute-form target or of Host, compared with the allow-list's form. */
    @Test
    void aServerNameIsComparedAsTheAllowListHoldsIt() {
        assertEquals("localhost", RequestGuard.serverName("LocalHost"));
        assertEquals("[::1]", RequestGuard.serverName("::1"));
        assertEquals("[::1]", RequestGuard.serverName("[::1]"));
        assertEquals("evil.example", RequestGuard.serverName("evil.example"));
    }

    @Test
    void aHostHeaderIsItsNameWithoutThePort() {
        assertEquals("localhost", RequestGuard.host("localhost:9080"));
        assertEquals("localhost", RequestGuard.host("LocalHost"));
        assertEquals("127.0.0.1", RequestGuard.host("127.0.0.1:9080"));
        assertEquals("[::1]", RequestGuard.host("[::1]:9080"));
        assertEquals("rebound.example.test", RequestGuard.host("Rebound.Example.Test:9080"));
        for (String text : new String[] {"", "a b", "user@localhost", "localhost/x", "localhost?x", "localhost#x",
                "localhost:99999999999", "::1", "localhost\t", "localhost:9080\t", "\tlocalhost", " localhost",
                "localhost ", "localhost\r", "localhost\u000B", "local\u0000host", "localhost\u0085",
                "localhost\u00A0", "localhost\u200B", "[::1]\t", "127.0.0.1 "}) {
            assertNull(RequestGuard.host(text), text);
        }
    }

    /**
     * A Host with a trailing tab passed the Host rule (it was trimmed) and was refused as an absolute-form target
     * (BILLING0298E, whose text speaks of the request target), since the runtime's server name kept the tab. A Host
     * that is no host[:port] is the Host refusal's case; only a well-formed, allowed Host with a target of another
     * host is the target's.
     */
    @Test
    void aMalformedHostHeaderIsRefusedAsTheHostNotAsTheTarget() {
        Set<String> local = RequestGuard.hosts(RequestGuard.LOCAL_HOSTS, bad -> { });
        for (String host : new String[] {"localhost\t", "localhost:9080\t", "localhost\r", "localhost\u000B",
                "localhost\u00A0", "localhost\u200B", "local host", "localhost ", "127.0.0.1\t", "[::1]:9080\t",
                "user@localhost", "localhost/x", "rebound.example.test", "\t", " "}) {
            assertEquals(BillingMessage.BILLING0259E, RequestGuard.hostRefusal(host, host, local), host);
            assertEquals(BillingMessage.BILLING0259E, RequestGuard.hostRefusal(host, "localhost", local), host);
        }
        assertEquals(BillingMessage.BILLING0298E, RequestGuard.hostRefusal("localhost:9080", "evil.example", local));
        assertEquals(BillingMessage.BILLING0298E, RequestGuard.hostRefusal("localhost", "localhost\t", local));
        assertEquals(BillingMessage.BILLING0297E, RequestGuard.hostRefusal(null, "localhost", local));
        assertEquals(BillingMessage.BILLING0297E, RequestGuard.hostRefusal("", "localhost", local));
        for (String host : new String[] {"localhost", "LocalHost:9080", "127.0.0.1:9080", "[::1]:9080"}) {
            assertNull(RequestGuard.hostRefusal(host, host.replaceFirst(":9080$", ""), local), host);
        }
        assertNull(RequestGuard.hostRefusal("[::1]", "::1", local));
    }

    @Test
    void theHostAllowListDefaultsToTheLocalNamesAndRefusesEntriesThatAreNoHostName() {
        List<String> bad = new ArrayList<>();
        assertEquals(Set.of("localhost", "127.0.0.1", "[::1]"), RequestGuard.hosts(RequestGuard.LOCAL_HOSTS, bad::add));
        assertEquals(List.of(), bad);
        assertEquals(Set.of("billing.example.com", "localhost"),
                RequestGuard.hosts(" Billing.Example.com , ,localhost,billing.example.com:443,http://x.test,x.test/p",
                        bad::add));
        assertEquals(List.of("billing.example.com:443", "http://x.test", "x.test/p"), bad);
    }

    /** A repeated query parameter is found by its decoded name; the runtime would take the first and drop the rest. */
    @Test
    void aRepeatedQueryParameterIsFoundByItsDecodedName() {
        assertEquals("consumer", RequestGuard.repeatedParameter("consumer=billing&consumer=analytics"));
        assertEquals("consumer", RequestGuard.repeatedParameter("consumer=billing&limit=5&consum%65r=analytics"));
        assertEquals("open", RequestGuard.repeatedParameter("open&open=false"));
        assertNull(RequestGuard.repeatedParameter("consumer=billing&limit=5&open=false"));
        assertNull(RequestGuard.repeatedParameter("&&limit=5&"));
        assertNull(RequestGuard.repeatedParameter(""));
    }

    /** A Content-Type the runtime cannot parse was answered with its bare 400 and the URL's advice (BILLING0296E). */
    @Test
    void oneMediaTypeWithAtMostOneCharsetIsAContentType() {
        for (String ok : List.of("application/json", "application/json; charset=UTF-8", "application/json;charset=\"utf-8\"",
                "application/json;", "Application/JSON ; a=b", "text/plain; x=\"a;\\\"b\"")) {
            assertTrue(RequestGuard.mediaType(ok), ok);
        }
        for (String bad : List.of("application/json, text/plain", "/", "application/", ";", "application",
                "application/json; charset", "application/json;charset=UTF-8;charset=latin1", "application/json; a=b c")) {
            assertFalse(RequestGuard.mediaType(bad), bad);
        }
    }

    /** Anyone may send refused requests: each refusal's message is logged at most once a minute. */
    @Test
    void aRefusalIsLoggedAtMostOnceAMinute() {
        java.util.Map<io.github.jakartainbox.billing.BillingMessage, Long> said = new java.util.HashMap<>();
        var host = io.github.jakartainbox.billing.BillingMessage.BILLING0259E;
        var origin = io.github.jakartainbox.billing.BillingMessage.BILLING0230E;
        assertTrue(RequestGuard.due(said, host, 0));
        assertFalse(RequestGuard.due(said, host, RequestGuard.SAY_EVERY_NANOS - 1), "within the minute");
        assertTrue(RequestGuard.due(said, origin, 1), "another message has its own minute");
        assertTrue(RequestGuard.due(said, host, RequestGuard.SAY_EVERY_NANOS));
        assertFalse(RequestGuard.due(said, host, RequestGuard.SAY_EVERY_NANOS + 1));
    }

    /** Escapes that are not UTF-8 were decoded to U+FFFD: {@code ?orderId=%FF} looked for another order. */
    @Test
    void theBytesOfAUrlsEscapesMustBeUtf8() {
        assertEquals(-1, RequestGuard.notUtf8("orderId=%C3%A9+x"));
        assertEquals(-1, RequestGuard.notUtf8("plain"));
        assertEquals(8, RequestGuard.notUtf8("orderId=%FF"));
        assertEquals(9, RequestGuard.notUtf8("orderId=a%C3"), "a sequence cut short");
        assertEquals(9, RequestGuard.notUtf8("consumer=%C0%80"), "an overlong encoding");
        assertEquals(8, RequestGuard.notUtf8("orderId=%ED%A0%80"), "a surrogate");
    }
}
