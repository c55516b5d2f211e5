package io.github.jakartainbox.inbox.failure;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class RetryPolicyTest {

    private final RetryPolicy policy = new RetryPolicy(3, Duration.ofMillis(200), Duration.ofSeconds(1));

    @Test
    void retriesUntilTheLastAttempt() {
        assertTrue(policy.retriesAfter(1));
        assertTrue(policy.retriesAfter(2));
        assertFalse(policy.retriesAfter(3));
    }

    @Test
    void delayDoublesPerAttemptUpToTheMaximum() {
        assertEquals(Duration.ofMillis(200), policy.delayAfter(1));
        assertEquals(Duration.ofMillis(400), policy.delayAfter(2));
        assertEquals(Duration.ofMillis(800), policy.delayAfter(3));
        assertEquals(Duration.ofSeconds(1), policy.delayAfter(4));
        assertEquals(Duration.ofSeconds(1), policy.delayAfter(10_000), "no overflow on long outages");
    }

    @Test
    void oneAttemptMeansNoRetry() {
        assertFalse(new RetryPolicy(1, Duration.ZERO, Duration.ZERO).retriesAfter(1));
        assertThrows(IllegalArgumentException.class, () -> new RetryPolicy(0, Duration.ZERO, Duration.ZERO));
    }
}
