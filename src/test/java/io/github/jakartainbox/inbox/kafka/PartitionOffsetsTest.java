package io.github.jakartainbox.inbox.kafka;

import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

/** A channel's offset bookkeeping ({@link PartitionOffsets}) and where a halted poll resumes, without a consumer. */
class PartitionOffsetsTest {

    private static final TopicPartition P0 = new TopicPartition("orders", 0);
    private static final TopicPartition P1 = new TopicPartition("orders", 1);
    private static final long SECOND = 1_000_000_000L;

    private final PartitionOffsets offsets = new PartitionOffsets();

    @Test
    void kafkaModeCommitsEachPositionPastTheLastConfirmedCommit() {
        offsets.confirmed(Map.of(P0, new OffsetAndMetadata(10)));
        Map<TopicPartition, OffsetAndMetadata> commit = offsets.toCommit(Map.of(P0, 10L, P1, 4L), false);
        assertAll(() -> assertEquals(Set.of(P1), commit.keySet(), "P0 did not move"),
                () -> assertEquals(4L, commit.get(P1).offset()),
                () -> assertEquals(OffsetChoice.KAFKA_MODE, commit.get(P1).metadata()));
    }

    @Test
    void databaseModeCommitsNoOffsetBeyondTheRowAndNothingWithoutOne() {
        offsets.settled(P0, 7L);
        Map<TopicPartition, OffsetAndMetadata> commit = offsets.toCommit(Map.of(P0, 12L, P1, 4L), true);
        assertAll(() -> assertEquals(Set.of(P0), commit.keySet(), "P1 has no row yet"),
                () -> assertEquals(7L, commit.get(P0).offset(), "the row, not the position"),
                () -> assertEquals(OffsetChoice.DATABASE_MODE, commit.get(P0).metadata()));
    }

    @Test
    void rowsBehindThePositionsAreBroughtUpAndRecordedOnceWritten() {
        offsets.settled(P0, 7L);
        offsets.settled(P1, 4L);
        Map<TopicPartition, KafkaOffsets.Advance> behind = offsets.rowsBehind(Map.of(P0, 9L, P1, 4L));
        assertEquals(Map.of(P0, new KafkaOffsets.Advance(9, 7L)), behind);
        offsets.wrote(behind);
        assertEquals(9L, offsets.known(P0));
    }

    @Test
    void aGroupsAdvancesArePerPartitionTheOffsetAfterItsLastRecord() {
        offsets.settled(P0, 3L);
        List<ConsumerRecord<String, String>> records = List.of(record(P0, 3), record(P1, 0), record(P0, 8),
                record(P0, 5));
        assertEquals(Map.of(P0, new KafkaOffsets.Advance(9, 3L), P1, new KafkaOffsets.Advance(1, null)),
                offsets.advances(records));
    }

    @Test
    void aRowGoneOrBelowWhatWasWrittenIsLost() {
        offsets.settled(P0, 100L);
        offsets.settled(P1, 50L);
        assertAll(() -> assertEquals(Set.of(P0), offsets.lostIn(Map.of(P0, 90L, P1, 60L))),
                () -> assertEquals(Set.of(P0, P1), offsets.lostIn(Map.of())),
                () -> assertTrue(offsets.lostIn(Map.of(P0, 100L, P1, 50L)).isEmpty()));
    }

    @Test
    void startingOverGoesBackToTheRowElseTheFloorAndForgetsTheCommits() {
        offsets.settled(P0, 100L);
        offsets.settled(P1, null); // no row at assignment: the first record done is the floor
        offsets.processed(P1, 40, 0, true);
        offsets.processed(P1, 41, 0, true);
        offsets.wrote(Map.of(P1, new KafkaOffsets.Advance(42, null)));
        offsets.confirmed(Map.of(P0, new OffsetAndMetadata(100), P1, new OffsetAndMetadata(42)));
        long before = offsets.epoch();
        PartitionOffsets.SoughtBack back = offsets.startOver(List.of(P0, P1), Map.of(P0, 80L));
        assertAll(() -> assertEquals(Map.of(P0, 80L, P1, 40L), back.to()),
                () -> assertEquals(Map.of(P0, 100L, P1, 42L), back.wrote()),
                () -> assertEquals(80L, offsets.known(P0)),
                () -> assertNull(offsets.known(P1), "no row: the next write creates it"),
                () -> assertNull(offsets.committed(P0)),
                () -> assertNull(offsets.processedUpTo(P1)),
                () -> assertEquals(Set.of(P0, P1), offsets.rewound()),
                () -> assertEquals(before + 1, offsets.epoch()));
        offsets.newPoll();
        assertTrue(offsets.rewound().isEmpty());
    }

    @Test
    void aConfirmationFromAnEarlierEpochIsNotRecorded() {
        long sent = offsets.epoch();
        offsets.forget(List.of(P1));
        assertAll(() -> assertFalse(offsets.confirmed(Map.of(P0, new OffsetAndMetadata(5)), sent)),
                () -> assertNull(offsets.committed(P0)),
                () -> assertTrue(offsets.confirmed(Map.of(P0, new OffsetAndMetadata(5)), offsets.epoch())),
                () -> assertEquals(5L, offsets.committed(P0)));
    }

    @Test
    void partitionsWaitingForTheDatabaseAreNamedOnceAndReleasedWhenSettled() {
        assertEquals(Set.of(P0, P1), offsets.unresolved(List.of(P0, P1)));
        assertEquals(Set.of(), offsets.unresolved(List.of(P0)), "already waiting: not named again");
        assertAll(() -> assertTrue(offsets.isUnresolved(P0)),
                () -> assertTrue(offsets.settled(P0, 5L), "it was paused: resume it"),
                () -> assertFalse(offsets.settled(P0, 5L)),
                () -> assertEquals(List.of(P1), offsets.unresolved()));
        offsets.newConsumer();
        assertAll(() -> assertTrue(offsets.unresolved().isEmpty()), () -> assertNull(offsets.known(P0)));
    }

    @Test
    void aCommitBehindIsReportedOncePerWarningPeriodAndHealthSeesSinceWhen() {
        Duration warning = Duration.ofSeconds(60);
        offsets.processed(P0, 9, 0, false);
        assertTrue(offsets.lagging(0, warning).isEmpty(), "behind from now on");
        assertTrue(offsets.lagging(59 * SECOND, warning).isEmpty());
        List<PartitionOffsets.Lag> lag = offsets.lagging(61 * SECOND, warning);
        assertAll(() -> assertEquals(List.of(new PartitionOffsets.Lag(P0, Duration.ofSeconds(61), null, 10)), lag),
                () -> assertTrue(offsets.lagging(62 * SECOND, warning).isEmpty(), "once per period"),
                () -> assertEquals(Map.of(P0, 0L), offsets.behindSince(), "never reset by the log"));
        offsets.confirmed(Map.of(P0, new OffsetAndMetadata(10)));
        assertAll(() -> assertTrue(offsets.lagging(200 * SECOND, warning).isEmpty()),
                () -> assertTrue(offsets.behindSince().isEmpty()));
    }

    @Test
    void aNewConsumerStartsWithoutCommitsForTheDecisionAndForHealthAlike() {
        Duration warning = Duration.ofSeconds(60);
        offsets.processed(P0, 9, 0, false);
        offsets.confirmed(Map.of(P0, new OffsetAndMetadata(10)));
        offsets.newConsumer();
        assertAll(() -> assertNull(offsets.committed(P0)),
                () -> assertEquals(Set.of(P0), offsets.toCommit(Map.of(P0, 10L), false).keySet(),
                        "the new consumer commits its position"),
                () -> assertTrue(offsets.lagging(0, warning).isEmpty(), "behind from now on"),
                () -> assertEquals(Map.of(P0, 0L), offsets.behindSince(),
                        "health sees no commit of the new consumer either"));
        offsets.confirmed(Map.of(P0, new OffsetAndMetadata(10)));
        assertAll(() -> assertTrue(offsets.lagging(SECOND, warning).isEmpty()),
                () -> assertTrue(offsets.behindSince().isEmpty(), "caught up once the new consumer's commit is confirmed"));
    }

    @Test
    void aHaltedPollResumesEachPartitionAtItsFirstRecordNotDoneUnlessAlreadySoughtBack() {
        List<ConsumerRecord<String, String>> undone = List.of(record(P0, 12), record(P1, 30), record(P0, 13),
                record(P1, 31));
        assertAll(() -> assertEquals(Map.of(P0, 12L, P1, 30L), PollLoop.resumeAt(undone, Set.of())),
                () -> assertEquals(Map.of(P0, 12L), PollLoop.resumeAt(undone, Set.of(P1)),
                        "P1 went further back, to the database's row"));
    }

    private static ConsumerRecord<String, String> record(TopicPartition tp, long offset) {
        return new ConsumerRecord<>(tp.topic(), tp.partition(), offset, "key", "value");
    }
}
