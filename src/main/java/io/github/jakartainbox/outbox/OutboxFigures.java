package io.github.jakartainbox.outbox;

import java.time.Duration;

/**
 * The outbox's figures at one moment.
 *
 * @param pending         rows neither delivered nor given up
 * @param oldestPending   age of the oldest pending row, {@link Duration#ZERO} when none is pending
 * @param delivered       rows delivered since the outbox was created (a running total; the purge does not lower it)
 * @param failing         pending rows that failed at least {@code outbox.relay.failing-after} times
 */
public record OutboxFigures(long pending, Duration oldestPending, long delivered, long failing) {
}
