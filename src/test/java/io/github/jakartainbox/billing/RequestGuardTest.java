package io.github.jakartainbox.billing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

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
    }
}
