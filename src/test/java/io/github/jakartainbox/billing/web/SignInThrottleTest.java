package io.github.jakartainbox.billing.web;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Failed sign-ins per user and per client address: counted, locked for a while, and released. */
class SignInThrottleTest {

    private static final Instant T0 = Instant.parse("2026-12-04T08:00:00Z");
    private static final Duration LOCKOUT = Duration.ofMinutes(1);
    private static final SignInThrottle.Key READER = SignInThrottle.user("reader");
    private static final SignInThrottle.Key OPERATOR = SignInThrottle.user("operator");
    private static final SignInThrottle.Key HOME = SignInThrottle.address("10.0.0.1");
    private static final SignInThrottle.Key AWAY = SignInThrottle.address("10.0.0.2");

    @Test
    void theFifthFailureOfAUserLocksItAndItsAddressForTheLockout() {
        SignInThrottle throttle = new SignInThrottle(5, LOCKOUT, 1000);
        for (int i = 0; i < 4; i++) {
            assertEquals(List.of(), throttle.failed(READER, HOME, T0.plusSeconds(i)));
            assertNull(throttle.lockedUntil(READER, HOME, T0.plusSeconds(i)), "not locked after " + (i + 1));
        }
        assertEquals(List.of(READER, HOME), throttle.failed(READER, HOME, T0.plusSeconds(4)), "the fifth locks both");
        Instant until = T0.plusSeconds(4).plus(LOCKOUT);
        assertEquals(until, throttle.lockedUntil(READER, AWAY, T0.plusSeconds(5)), "the user, from anywhere");
        assertEquals(until, throttle.lockedUntil(OPERATOR, HOME, T0.plusSeconds(5)), "anyone, from the address");
        assertNull(throttle.lockedUntil(OPERATOR, AWAY, T0.plusSeconds(5)), "another user from elsewhere");
        assertNull(throttle.lockedUntil(READER, HOME, until), "released when the lockout has passed");
    }

    @Test
    void failuresOlderThanTheWindowAreForgotten() {
        SignInThrottle throttle = new SignInThrottle(3, LOCKOUT, 1000);
        throttle.failed(READER, HOME, T0);
        throttle.failed(READER, HOME, T0.plusSeconds(30));
        assertEquals(List.of(), throttle.failed(READER, HOME, T0.plusSeconds(61)), "a new window began");
        assertNull(throttle.lockedUntil(READER, HOME, T0.plusSeconds(61)));
    }

    /** Guessing one user's password from many addresses, or many users' from one address, is locked either way. */
    @Test
    void eachUserAndEachAddressIsCountedOnItsOwn() {
        SignInThrottle throttle = new SignInThrottle(5, LOCKOUT, 1000);
        for (int i = 0; i < 5; i++) {
            throttle.failed(READER, SignInThrottle.address("10.1.0." + i), T0);
        }
        assertEquals(T0.plus(LOCKOUT), throttle.lockedUntil(READER, AWAY, T0), "one user from five addresses");
        for (int i = 0; i < 5; i++) {
            throttle.failed(SignInThrottle.user("guess-" + i), AWAY, T0);
        }
        assertEquals(T0.plus(LOCKOUT), throttle.lockedUntil(OPERATOR, AWAY, T0), "five users from one address");
    }

    /** A success clears its user's count; its address keeps counting, so one valid login does not reset guessing. */
    @Test
    void aSuccessClearsTheUsersCountOnly() {
        SignInThrottle throttle = new SignInThrottle(3, LOCKOUT, 1000);
        throttle.failed(OPERATOR, HOME, T0);
        throttle.failed(OPERATOR, HOME, T0);
        throttle.succeeded(OPERATOR);
        assertEquals(List.of(HOME), throttle.failed(OPERATOR, HOME, T0), "the address's third failure, the user's first");
        assertNull(throttle.lockedUntil(OPERATOR, AWAY, T0));
    }

    /** Random user names cannot grow the memory without bound. */
    @Test
    void atMostMaxTrackedKeysAreKept() {
        SignInThrottle throttle = new SignInThrottle(1000, LOCKOUT, 10);
        for (int i = 0; i < 100; i++) {
            throttle.failed(SignInThrottle.user("u" + i), HOME, T0);
        }
        assertEquals(10, throttle.tracked());
        throttle.failed(SignInThrottle.user("late"), HOME, T0.plus(LOCKOUT));
        assertEquals(2, throttle.tracked(), "ended windows dropped when full: the new user and the address");
    }

    @Test
    void boundsOutOfRangeAreRefused() {
        assertThrows(IllegalArgumentException.class, () -> new SignInThrottle(0, LOCKOUT, 1000));
        assertThrows(IllegalArgumentException.class, () -> new SignInThrottle(5, Duration.ZERO, 1000));
    }

    @Test
    void aFailureWithoutAUserCountsAgainstItsAddressOnly() {
        SignInThrottle throttle = new SignInThrottle(2, LOCKOUT, 1000);
        assertEquals(List.of(), throttle.failed(HOME, T0));
        assertNull(throttle.lockedUntil(HOME, T0));
        assertEquals(List.of(HOME), throttle.failed(HOME, T0.plusSeconds(1)), "the second locks the address");
        assertEquals(T0.plusSeconds(1).plus(LOCKOUT), throttle.lockedUntil(HOME, T0.plusSeconds(2)));
        assertEquals(T0.plusSeconds(1).plus(LOCKOUT), throttle.lockedUntil(READER, HOME, T0.plusSeconds(2)),
                "any user from the address");
        assertNull(throttle.lockedUntil(READER, AWAY, T0.plusSeconds(2)), "no user was counted");
        assertEquals(1, throttle.tracked());
    }
}
