package io.github.jakartainbox.outbox;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Duration;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;

class RelayWorkerTest {

    private static RelayStatements.Row row(long id, String key, boolean due) {
        return new RelayStatements.Row(id, UUID.randomUUID(), "t", key, "{}", "{}", 0, due);
    }

    private static List<Long> ids(List<RelayStatements.Row> rows) {
        return rows.stream().map(RelayStatements.Row::id).toList();
    }

    @Test
    void aRoundSendsOnlyTheFirstPendingRowOfEachKey() {
        assertEquals(List.of(1L, 2L), ids(RelayWorker.sendable(List.of(row(1, "a", true), row(2, "b", true),
                row(3, "a", true), row(4, "b", true)))));
    }

    @Test
    void aRowBackingOffHoldsBackTheLaterRowsOfItsKeyOnly() {
        assertEquals(List.of(3L), ids(RelayWorker.sendable(List.of(row(1, "a", false), row(2, "a", true),
                row(3, "b", true)))));
    }

    @Test
    void rowsWithoutAKeyAreAllSentWhenDue() {
        assertEquals(List.of(1L, 2L), ids(RelayWorker.sendable(List.of(row(1, null, true), row(2, null, true),
                row(3, null, false)))));
    }

    @Test
    void backoffDoublesFromTheDelayUpToTheMaximum() {
        Duration delay = Duration.ofMillis(500);
        Duration max = Duration.ofSeconds(3);
        assertEquals(Duration.ofMillis(500), RelayWorker.backoff(1, delay, max));
        assertEquals(Duration.ofMillis(1000), RelayWorker.backoff(2, delay, max));
        assertEquals(Duration.ofMillis(2000), RelayWorker.backoff(3, delay, max));
        assertEquals(max, RelayWorker.backoff(4, delay, max));
        assertEquals(max, RelayWorker.backoff(1000, delay, max));
    }

    @Test
    void eventIdsAreUuidV7CarryingTheirTime() {
        UUID id = EventIdsV7.at(1_700_000_000_123L);
        assertEquals(7, id.version());
        assertEquals(2, id.variant());
        assertEquals(1_700_000_000_123L, id.getMostSignificantBits() >>> 16);
    }
}
