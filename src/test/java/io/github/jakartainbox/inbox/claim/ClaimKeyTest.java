package io.github.jakartainbox.inbox.claim;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.github.jakartainbox.inbox.consumer.ConsumerSettings;
import io.github.jakartainbox.inbox.eventid.EventIdSource;
import io.github.jakartainbox.inbox.eventid.PayloadFieldEventIdSource;
import io.github.jakartainbox.inbox.incoming.Delivery;
import java.time.LocalDate;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** A delivery's claim key is read once, when a path first asks for it, and its failure kept. */
class ClaimKeyTest {

    private static final String EVENT = "0190b7a0-1111-7222-8333-444455556666";
    private static final String ORDER = "{\"event_id\":\"" + EVENT + "\"}";

    private final AtomicInteger reads = new AtomicInteger();
    private final AtomicInteger months = new AtomicInteger();

    /** Counts the reads of the payload's {@code event_id}. */
    private final EventIdSource counted = new EventIdSource() {
        private final EventIdSource payload = new PayloadFieldEventIdSource("event_id");

        @Override
        public String rawEventId(Delivery delivery) {
            reads.incrementAndGet();
            return payload.rawEventId(delivery);
        }

        @Override
        public String where() {
            return payload.where();
        }
    };

    private final InboxClaim inbox = new InboxClaim() {
        @Override
        public LocalDate partitionMonth(ConsumerSettings consumer, Delivery delivery, String eventId) {
            months.incrementAndGet();
            return LocalDate.of(2026, 12, 1);
        }
    };

    private ConsumerSettings consumer(boolean fingerprint) {
        return new ConsumerSettings("billing", counted, 200, null, null, fingerprint, null);
    }

    @Test
    void theEventIdIsReadOnceAndOnlyWhenAskedFor() {
        Delivery delivery = new Delivery(ORDER, null, -1);
        ClaimKey key = ClaimKey.of(consumer(true), delivery, inbox);
        assertEquals(0, reads.get(), "nothing read before a path asks");
        assertEquals(EVENT, key.eventId());
        InboxClaim.Claim claim = key.claim();
        assertSame(claim, key.claim());
        assertEquals(1, reads.get());
        assertEquals(1, months.get());
        assertEquals(EVENT, claim.eventId());
        assertArrayEquals(delivery.fingerprint(), claim.fingerprint());
        assertEquals(LocalDate.of(2026, 12, 1), claim.month());
    }

    @Test
    void anUnusableEventIdFailsEveryAskWithTheSameException() {
        ClaimKey key = ClaimKey.of(consumer(false), new Delivery("{\"order_id\":\"o-2\"}", null, -1), inbox);
        RuntimeException first = assertThrows(RuntimeException.class, key::eventId);
        assertSame(first, assertThrows(RuntimeException.class, key::claim));
        assertEquals(1, reads.get());
        assertEquals(0, months.get());
    }

    @Test
    void aKeyReadAheadIsNotReadAgain() {
        InboxClaim.Claim ahead = new InboxClaim.Claim(EVENT, null, null);
        ClaimKey key = ClaimKey.readAhead(ahead);
        assertEquals(EVENT, key.eventId());
        assertSame(ahead, key.claim());
        assertNull(key.claim().fingerprint());
    }
}
