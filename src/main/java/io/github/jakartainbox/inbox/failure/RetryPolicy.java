package io.github.jakartainbox.inbox.failure;

import java.time.Duration;

/**
 * How often a failed delivery is attempted again, each attempt in a new transaction, before it is dead-lettered:
 * exponential backoff starting at {@code delay}, doubled per attempt, capped at {@code maxDelay}.
 *
 * @param maxAttempts attempts in all, the first one included; at least 1
 * @param delay       the wait before the second attempt
 * @param maxDelay    the longest wait between two attempts
 */
public record RetryPolicy(int maxAttempts, Duration delay, Duration maxDelay) {

    public RetryPolicy {
        if (maxAttempts < 1) {
            throw new IllegalArgumentException("maxAttempts must be at least 1: " + maxAttempts);
        }
        if (delay.isNegative() || maxDelay.isNegative()) {
            throw new IllegalArgumentException("delays must not be negative");
        }
    }

    /**
     * @param failedAttempt the number of the attempt that just failed, from 1
     * @return whether another attempt follows
     */
    boolean retriesAfter(int failedAttempt) {
        return failedAttempt < maxAttempts;
    }

    /**
     * @param failedAttempt the number of the attempt that just failed, from 1
     * @return the wait before the next attempt: {@code delay * 2^(failedAttempt - 1)}, at most {@code maxDelay}
     */
    public Duration delayAfter(int failedAttempt) {
        int doublings = Math.min(failedAttempt - 1, 30);
        long millis = delay.toMillis();
        long scaled = millis > (Long.MAX_VALUE >> doublings) ? Long.MAX_VALUE : millis << doublings;
        return scaled >= maxDelay.toMillis() ? maxDelay : Duration.ofMillis(scaled);
    }
}
