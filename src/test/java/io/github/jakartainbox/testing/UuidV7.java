package io.github.jakartainbox.testing;

import java.security.SecureRandom;
import java.time.Instant;
import java.util.UUID;

/** Makes UUIDv7 event ids for a given instant (RFC 9562, section 5.7), as a producer would. */
public final class UuidV7 {

    private static final SecureRandom RANDOM = new SecureRandom();

    private UuidV7() {
    }

    /**
     * @param time the event's time
     * @return a new UUIDv7 carrying it
     */
    public static String at(Instant time) {
        long msb = (time.toEpochMilli() << 16) | 0x7000L | (RANDOM.nextInt() & 0x0fffL);
        long lsb = (RANDOM.nextLong() & 0x3fffffffffffffffL) | 0x8000000000000000L;
        return new UUID(msb, lsb).toString();
    }
}
