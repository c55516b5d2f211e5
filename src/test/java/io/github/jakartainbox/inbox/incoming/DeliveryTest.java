package io.github.jakartainbox.inbox.incoming;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HexFormat;
import org.junit.jupiter.api.Test;

class DeliveryTest {

    private static Delivery of(Object payload) {
        return new Delivery(payload, null, -1);
    }

    @Test
    void fingerprintIsTheSha256OfThePayloadBytes() {
        // SHA-256("abc"), FIPS 180-2 appendix B.1
        assertEquals("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
                HexFormat.of().formatHex(of("abc").fingerprint()));
        assertArrayEquals(of("abc").fingerprint(), of("abc".getBytes(StandardCharsets.UTF_8)).fingerprint(),
                "a String and its UTF-8 bytes are the same payload");
        assertFalse(Arrays.equals(of("{\"a\":1}").fingerprint(), of("{\"a\":2}").fingerprint()));
        assertNull(of(null).fingerprint());
    }

    @Test
    void nonUtf8BytesAreKeptAsBytesNotAsReplacedText() {
        byte[] bad = {'{', '"', 'a', '"', ':', '"', (byte) 0xff, (byte) 0xc3, '"', '}'};
        Delivery delivery = of(bad);
        assertNull(delivery.payloadText(), "no U+FFFD text that would hide the bytes");
        assertArrayEquals(bad, delivery.payloadBytes());
        Delivery good = of("{\"a\":\"\u00e9\"}".getBytes(StandardCharsets.UTF_8));
        assertEquals("{\"a\":\"\u00e9\"}", good.payloadText());
        assertNull(good.payloadBytes());
    }
}
