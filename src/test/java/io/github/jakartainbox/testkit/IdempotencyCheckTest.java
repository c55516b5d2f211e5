package io.github.jakartainbox.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * The kit's decisions without a server: an in-memory consumer stands for the real one (the kit against Liberty is
 * {@code IdempotencyCheckIT}). Each way a consumer can fail the check gives a message naming it.
 */
class IdempotencyCheckTest {

    private static final String EVENT = "0190A8E2-5C3B-7D41-9B2E-6F1D2C3B4A59";

    /** A consumer with an in-memory inbox; {@code mode} says what it gets wrong. */
    private static final class FakeConsumer implements InboxFigures {
        enum Mode { IDEMPOTENT, NO_INBOX, EFFECT_ON_EVERY_DELIVERY, DEAD_LETTERS, NO_EFFECT }

        final Mode mode;
        final Set<String> inbox = new HashSet<>();
        final Map<String, List<String>> deadLetters = new HashMap<>();
        final AtomicInteger effects = new AtomicInteger();
        long skipped;
        final boolean counts;

        FakeConsumer(Mode mode, boolean counts) {
            this.mode = mode;
            this.counts = counts;
        }

        synchronized void consume(String eventId) {
            String id = eventId.toLowerCase();
            switch (mode) {
                case NO_INBOX -> effects.incrementAndGet();
                case DEAD_LETTERS -> deadLetters.computeIfAbsent(id, k -> new ArrayList<>())
                        .add("INBOX0301E: the method failed 3 times: java.lang.NumberFormatException");
                case EFFECT_ON_EVERY_DELIVERY -> {
                    effects.incrementAndGet(); // e.g. work on another thread or another datasource
                    if (!inbox.add(id)) {
                        skipped++;
                    }
                }
                case NO_EFFECT -> inbox.add(id);
                case IDEMPOTENT -> {
                    if (inbox.add(id)) {
                        effects.incrementAndGet();
                    } else {
                        skipped++;
                    }
                }
            }
        }

        @Override
        public synchronized long inboxRows(String consumer, String eventId) {
            return inbox.contains(eventId) ? 1 : 0;
        }

        @Override
        public synchronized List<String> deadLetterReasons(String consumer, String eventId) {
            return List.copyOf(deadLetters.getOrDefault(eventId, List.of()));
        }

        @Override
        public synchronized OptionalLong duplicatesSkipped(String consumer) {
            return counts ? OptionalLong.of(skipped) : OptionalLong.empty();
        }

        IdempotencyCheck.Builder check() {
            return IdempotencyCheck.of("payments", EVENT).delivery(() -> consume(EVENT)).state(effects::get)
                    .figures(this).timeout(Duration.ofSeconds(5));
        }

        IdempotencyCheck.Marker marker() {
            return () -> {
                String id = UUID.randomUUID().toString();
                synchronized (this) {
                    inbox.add(id);
                }
                return id;
            };
        }
    }

    @Test
    void anIdempotentConsumerPassesWithDuplicateCounts() {
        FakeConsumer consumer = new FakeConsumer(FakeConsumer.Mode.IDEMPOTENT, true);
        IdempotencyCheck.Result result = consumer.check().times(4).threads(3).run();
        assertEquals(8, result.deliveries());
        assertEquals(7, result.duplicatesSkipped(), "every delivery after the first skipped");
        assertEquals(0, result.stateBefore());
        assertEquals(1, result.stateAfterOne());
        assertEquals(EVENT.toLowerCase(), result.eventId(), "a UUID is looked up as the inbox stores it");
    }

    @Test
    void anIdempotentConsumerPassesWithAMarkerAndACrash() {
        FakeConsumer consumer = new FakeConsumer(FakeConsumer.Mode.IDEMPOTENT, false);
        AtomicInteger crashes = new AtomicInteger();
        IdempotencyCheck.Result result = consumer.check().marker(consumer.marker()).crash(() -> {
            crashes.incrementAndGet();
            consumer.consume(EVENT); // the broker hands the unacknowledged delivery over again after the restart
        }).run();
        assertEquals(1, crashes.get());
        assertTrue(result.crashed());
        assertEquals(-1, result.duplicatesSkipped(), "not counted by these figures");
        assertEquals(1, consumer.effects.get());
    }

    @Test
    void aConsumerWithoutTheInboxFailsNamingTheMissingRow() {
        FakeConsumer consumer = new FakeConsumer(FakeConsumer.Mode.NO_INBOX, true);
        AssertionError failure = assertThrows(AssertionError.class, () -> consumer.check().run());
        assertTrue(failure.getMessage().contains("the inbox has no row for consumer \"payments\""), failure.getMessage());
        assertTrue(failure.getMessage().contains("does not go through the inbox"), failure.getMessage());
        assertTrue(failure.getMessage().contains("@Idempotent(consumer = \"payments\")"), failure.getMessage());
    }

    @Test
    void anEffectOutsideTheInboxFailsAfterTheDuplicatesInARow() {
        FakeConsumer consumer = new FakeConsumer(FakeConsumer.Mode.EFFECT_ON_EVERY_DELIVERY, true);
        AssertionError failure = assertThrows(AssertionError.class, () -> consumer.check().times(3).run());
        String message = failure.getMessage();
        assertTrue(message.contains("after 2 more deliveries in a row the state is not the state after one delivery"),
                message);
        assertTrue(message.contains("state after one delivery:        1"), message);
        assertTrue(message.contains("state now:                       3"), message);
        assertTrue(message.contains("inbox rows for the event:        1"), message);
        assertTrue(message.contains("duplicates skipped:              rose by 2 of 2"), message);
        assertTrue(message.contains("on the calling thread"), message);
    }

    @Test
    void aDeadLetteredFirstDeliveryFailsWithItsReason() {
        FakeConsumer consumer = new FakeConsumer(FakeConsumer.Mode.DEAD_LETTERS, true);
        AssertionError failure = assertThrows(AssertionError.class, () -> consumer.check().run());
        assertTrue(failure.getMessage().contains("the first delivery was dead-lettered, not processed: INBOX0301E"),
                failure.getMessage());
    }

    @Test
    void aStateTheConsumerDoesNotChangeIsRefusedAsProvingNothing() {
        FakeConsumer consumer = new FakeConsumer(FakeConsumer.Mode.NO_EFFECT, true);
        AssertionError failure = assertThrows(AssertionError.class, () -> consumer.check().run());
        assertTrue(failure.getMessage().contains("the state did not change with the first delivery"),
                failure.getMessage());
        assertTrue(failure.getMessage().contains("proves nothing"), failure.getMessage());
    }

    @Test
    void nothingReachingTheConsumerFailsWhenTheWaitRunsOut() {
        FakeConsumer consumer = new FakeConsumer(FakeConsumer.Mode.IDEMPOTENT, true);
        AssertionError failure = assertThrows(AssertionError.class, () -> IdempotencyCheck.of("payments", EVENT)
                .delivery(() -> { }).state(consumer.effects::get).figures(consumer)
                .timeout(Duration.ofMillis(300)).run());
        assertTrue(failure.getMessage().contains("no inbox row for the first delivery within PT0.3S"),
                failure.getMessage());
    }

    @Test
    void withoutDuplicateCountsOrAMarkerTheCheckRefusesToRun() {
        FakeConsumer consumer = new FakeConsumer(FakeConsumer.Mode.IDEMPOTENT, false);
        IllegalStateException refused = assertThrows(IllegalStateException.class, () -> consumer.check().run());
        assertTrue(refused.getMessage().contains("give a marker"), refused.getMessage());
        assertEquals(0, consumer.effects.get(), "nothing delivered");
        assertThrows(IllegalStateException.class, () -> new FakeConsumer(FakeConsumer.Mode.IDEMPOTENT, true).check()
                .crash(() -> { }).run(), "a crash needs a marker");
        assertThrows(IllegalArgumentException.class, () -> consumer.check().times(1));
        assertThrows(IllegalArgumentException.class, () -> consumer.check().threads(1));
    }
}
