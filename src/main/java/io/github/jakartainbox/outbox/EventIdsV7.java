package io.github.jakartainbox.outbox;

import java.security.SecureRandom;
import java.util.UUID;

/**
 * UUIDv7 event ids (RFC 9562, section 5.7): 48 bits of Unix milliseconds, version 7, 74 random bits. Time-ordered,
 * so an inbox partitioned by month downstream can place the event by its id alone.
 */
final class EventIdsV7 {

    private static final SecureRandom RANDOM = new SecureRandom();

    private EventIdsV7() {
    }

    /** @return a new UUIDv7 for the current time */
    static UUID next() {
        return at(System.currentTimeMillis());
    }

    /**
     * @param epochMillis the time it carries
     * @return a new UUIDv7 for that time
     */
    static UUID at(long epochMillis) {
        long msb = (epochMillis << 16) | 0x7000L | (RANDOM.nextInt() & 0x0fffL);
        long lsb = (RANDOM.nextLong() & 0x3fffffffffffffffL) | 0x8000000000000000L;
        return new UUID(msb, lsb);
    }
}
