package io.github.jakartainbox.inbox;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.jakartainbox.inbox.retention.InboxPurge;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * The purge's status as readiness, {@code /api/inbox/purge} and the metrics show it. Right after a start the state row
 * still held the error of a run from before it (in the tests, the timer's first run came before the tables were made:
 * {@code INBOX0008E}), and readiness showed that error and {@code purge-overdue: true} until the next run.
 */
class InboxStatisticsTest {

    private static final OffsetDateTime NOW = OffsetDateTime.parse("2026-12-04T08:00:00Z");
    private static final Duration OVERDUE_AFTER = Duration.ofHours(1);
    private static final String ERROR = "INBOX0008E: The inbox is not ready";

    private static InboxStatistics.PurgeStatus status(OffsetDateTime finished, String error,
                                                      Optional<InboxPurge.Failure> unrecorded, boolean ranSinceStart) {
        return InboxStatistics.status(NOW.minusMinutes(6), finished, 0, 10, 2, error,
                error == null ? null : NOW.minusMinutes(6), NOW, OVERDUE_AFTER, unrecorded, ranSinceStart);
    }

    @Test
    void anErrorRecordedBeforeThisServersFirstRunIsNoNewsUntilThePurgeRuns() {
        InboxStatistics.PurgeStatus atStart = status(NOW.minusMinutes(11), ERROR, Optional.empty(), false);
        assertNull(atStart.lastError(), "not run yet: the error is from before this start");
        assertNull(atStart.lastErrorAt());
        assertFalse(atStart.overdue(), "the last success is 11 minutes old, within the hour");
        InboxStatistics.PurgeStatus afterItsRun = status(NOW.minusMinutes(11), ERROR, Optional.empty(), true);
        assertEquals(ERROR, afterItsRun.lastError(), "once the purge has run, the recorded error is its outcome");
        assertTrue(afterItsRun.overdue());
    }

    @Test
    void anOldLastSuccessIsOverdueAlsoBeforeThisServersFirstRun() {
        InboxStatistics.PurgeStatus atStart = status(NOW.minusHours(3), ERROR, Optional.empty(), false);
        assertNull(atStart.lastError());
        assertTrue(atStart.overdue(), "no success for 3 hours is news whoever ran last");
    }

    @Test
    void thisServersUnrecordedFailureIsShownWhateverTheRow() {
        InboxPurge.Failure failure = new InboxPurge.Failure(NOW.minusSeconds(5), "connection refused");
        InboxStatistics.PurgeStatus status = status(NOW.minusMinutes(11), null, Optional.of(failure), true);
        assertEquals("connection refused", status.lastError());
        assertEquals(failure.at(), status.lastErrorAt());
        assertTrue(status.overdue());
    }

    @Test
    void aRecentSuccessWithoutErrorIsNotOverdue() {
        InboxStatistics.PurgeStatus status = status(NOW.minusMinutes(2), null, Optional.empty(), true);
        assertNull(status.lastError());
        assertFalse(status.overdue());
    }
}
