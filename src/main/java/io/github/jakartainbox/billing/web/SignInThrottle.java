package io.github.jakartainbox.billing.web;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;

/**
 * Failed sign-ins counted per user name and per client address: {@code maxFailures} failures of one of them within
 * {@code lockout} lock it for {@code lockout}, during which its sign-ins are refused without their password being
 * checked, so that guessing goes no faster than {@code maxFailures} tries per {@code lockout}. A success clears its
 * user's count, not its address's (a valid login of one user does not reset the guessing of another's from the same
 * address). The state is this server's, in memory: a restart clears it, and each server of a cluster counts its own.
 * At most {@code maxTracked} names and addresses are kept; past that, entries whose window and lock have ended are
 * dropped, and new ones are not counted until there is room.
 */
final class SignInThrottle {

    /** A user name or client address, as counted. */
    record Key(String kind, String value) {
        @Override
        public String toString() {
            return kind + " " + value;
        }
    }

    /** The failures of one key within its window, and the end of its lock, if any. */
    private record Count(int failures, Instant windowStart, Instant lockedUntil) {
    }

    private final int maxFailures;
    private final Duration lockout;
    private final int maxTracked;
    private final ConcurrentMap<Key, Count> counts = new ConcurrentHashMap<>();

    /**
     * @param maxFailures failures that lock a user or address, at least 1
     * @param lockout     the window they are counted in and how long the lock lasts, positive
     * @param maxTracked  the most users and addresses kept
     * @throws IllegalArgumentException when a bound is out of range
     */
    SignInThrottle(int maxFailures, Duration lockout, int maxTracked) {
        if (maxFailures < 1 || lockout.isNegative() || lockout.isZero() || maxTracked < 2) {
            throw new IllegalArgumentException("max-failures " + maxFailures + " must be at least 1 and lockout "
                    + lockout + " positive");
        }
        this.maxFailures = maxFailures;
        this.lockout = lockout;
        this.maxTracked = maxTracked;
    }

    static Key user(String name) {
        return new Key("user", name.length() > 100 ? name.substring(0, 100) : name);
    }

    static Key address(String address) {
        return new Key("address", address);
    }

    /**
     * @return when the later lock of the two keys ends, or null when neither is locked at {@code now}
     */
    Instant lockedUntil(Key user, Key address, Instant now) {
        return lockedUntil(List.of(user, address), now);
    }

    /** @return when the address's lock ends, or null when it is not locked at {@code now} */
    Instant lockedUntil(Key address, Instant now) {
        return lockedUntil(List.of(address), now);
    }

    private Instant lockedUntil(List<Key> keys, Instant now) {
        Instant until = null;
        for (Key key : keys) {
            Count count = counts.get(key);
            if (count != null && count.lockedUntil() != null && now.isBefore(count.lockedUntil())
                    && (until == null || count.lockedUntil().isAfter(until))) {
                until = count.lockedUntil();
            }
        }
        return until;
    }

    /**
     * Counts a failed sign-in against both keys.
     *
     * @return the keys this failure locked (empty when none reached {@code maxFailures})
     */
    List<Key> failed(Key user, Key address, Instant now) {
        return failed(List.of(user, address), now);
    }

    /**
     * Counts a failed sign-in that named no user (a malformed {@code Authorization} header) against its address.
     *
     * @return the address when this failure locked it, else empty
     */
    List<Key> failed(Key address, Instant now) {
        return failed(List.of(address), now);
    }

    private List<Key> failed(List<Key> keys, Instant now) {
        if (counts.size() >= maxTracked) {
            counts.values().removeIf(c -> !now.isBefore(c.windowStart().plus(lockout))
                    && (c.lockedUntil() == null || !now.isBefore(c.lockedUntil())));
        }
        List<Key> locked = new ArrayList<>(2);
        for (Key key : keys) {
            if (counts.size() >= maxTracked && !counts.containsKey(key)) {
                continue;
            }
            boolean[] lockedNow = {false};
            counts.compute(key, (k, count) -> {
                boolean windowOver = count == null || !now.isBefore(count.windowStart().plus(lockout));
                int failures = (windowOver ? 0 : count.failures()) + 1;
                if (failures >= maxFailures) {
                    lockedNow[0] = true;
                    return new Count(0, now, now.plus(lockout));
                }
                return new Count(failures, windowOver ? now : count.windowStart(),
                        count == null ? null : count.lockedUntil());
            });
            if (lockedNow[0]) {
                locked.add(key);
            }
        }
        return locked;
    }

    /** Clears the user's count after a successful sign-in; its address's count stays. */
    void succeeded(Key user) {
        counts.remove(user); // a locked user never gets here: its sign-ins are refused unchecked
    }

    /** @return how many users and addresses are counted now */
    int tracked() {
        return counts.size();
    }

    int maxFailures() {
        return maxFailures;
    }

    Duration lockout() {
        return lockout;
    }
}
