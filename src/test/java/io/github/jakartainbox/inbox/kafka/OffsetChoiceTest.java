package io.github.jakartainbox.inbox.kafka;

import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.MockConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Where an assigned partition resumes with offset-store=database, on Kafka's {@link MockConsumer}: the rows of the
 * topic's own id by the database's and Kafka's offsets; a row of another topic id (the topic deleted and made again,
 * with fewer, as many or more partitions, records written before the assignment or not) and a row without an id
 * that Kafka's committed offset does not vouch for from the partition's start.
 */
class OffsetChoiceTest {

    private static final TopicPartition P0 = new TopicPartition("orders", 0);
    private static final TopicPartition P1 = new TopicPartition("orders", 1);
    private static final Duration WAIT = Duration.ofSeconds(1);
    /** The topic's id now. */
    private static final String ID = "Fxb1yBTRQ0i3h4bS2mXh0A";
    /** The id of the topic of the same name that was deleted. */
    private static final String OLD_ID = "q7Qe3VZ8S1iWbOoC0uVw3g";
    private static final Map<String, String> IDS = Map.of("orders", ID);

    private MockConsumer<String, String> consumer;

    @BeforeEach
    void assign() {
        consumer = new MockConsumer<>("earliest");
        consumer.assign(List.of(P0, P1));
        consumer.updateBeginningOffsets(Map.of(P0, 0L, P1, 0L));
        consumer.updateEndOffsets(Map.of(P0, 1_000L, P1, 1_000L));
    }

    @Test
    void databaseBehindKafkaIsReadAgainFromTheDatabase() {
        commit(P0, 700, OffsetChoice.DATABASE_MODE);
        OffsetChoice choice = OffsetChoice.resume(consumer, List.of(P0), rows(P0, 400L), IDS, WAIT).get(P0);
        assertAll(() -> assertEquals(OffsetChoice.Reason.DATABASE_BEHIND, choice.reason()),
                () -> assertEquals(400L, consumer.position(P0), "the records the failover lost are read again"),
                () -> assertEquals(400L, choice.known()),
                () -> assertEquals(700L, choice.kafkaOffset()));
    }

    @Test
    void databaseAheadOfKafkaSkipsWhatItCommitted() {
        commit(P0, 700, OffsetChoice.DATABASE_MODE);
        OffsetChoice choice = OffsetChoice.resume(consumer, List.of(P0), rows(P0, 750L), IDS, WAIT).get(P0);
        assertAll(() -> assertEquals(OffsetChoice.Reason.DATABASE_AHEAD, choice.reason()),
                () -> assertEquals(750L, consumer.position(P0)));
    }

    @Test
    void equalOffsetsSeekNothing() {
        commit(P0, 700, OffsetChoice.DATABASE_MODE);
        OffsetChoice choice = OffsetChoice.resume(consumer, List.of(P0), rows(P0, 700L), IDS, WAIT).get(P0);
        assertAll(() -> assertEquals(OffsetChoice.Reason.EQUAL, choice.reason()),
                () -> assertNull(choice.seekTo()),
                () -> assertEquals(700L, consumer.position(P0)));
    }

    @Test
    void partitionWithoutRowKeepsKafkasOffset() {
        commit(P0, 700, OffsetChoice.DATABASE_MODE);
        commit(P1, 300, OffsetChoice.DATABASE_MODE);
        Map<TopicPartition, OffsetChoice> choices = OffsetChoice.resume(consumer, List.of(P0, P1), rows(P0, 650L), IDS, WAIT);
        assertAll(() -> assertEquals(OffsetChoice.Reason.NO_ROW, choices.get(P1).reason()),
                () -> assertNull(choices.get(P1).known()),
                () -> assertEquals(300L, consumer.position(P1)),
                () -> assertEquals(650L, consumer.position(P0)));
    }

    @Test
    void partitionWithoutKafkaOffsetTakesTheDatabases() {
        OffsetChoice choice = OffsetChoice.resume(consumer, List.of(P0), rows(P0, 123L), IDS, WAIT).get(P0);
        assertAll(() -> assertEquals(OffsetChoice.Reason.NO_KAFKA_OFFSET, choice.reason()),
                () -> assertEquals(123L, consumer.position(P0)));
    }

    @Test
    void anOperatorsResetIsFollowedAndTheRowSetToIt() {
        commit(P0, 900, ""); // kafka-consumer-groups --reset-offsets commits without metadata
        OffsetChoice choice = OffsetChoice.resume(consumer, List.of(P0), rows(P0, 400L), IDS, WAIT).get(P0);
        assertAll(() -> assertEquals(OffsetChoice.Reason.KAFKA_SET_ELSEWHERE, choice.reason()),
                () -> assertEquals(900L, consumer.position(P0), "the operator skipped 400..899"),
                () -> assertEquals(900L, choice.rowSetTo()),
                () -> assertEquals(900L, choice.known()));
    }

    @Test
    void offsetsOfKafkaModeAreNotTakenForThisModes() {
        commit(P0, 900, OffsetChoice.KAFKA_MODE);
        OffsetChoice choice = OffsetChoice.resume(consumer, List.of(P0), rows(P0, 100L), IDS, WAIT).get(P0);
        assertAll(() -> assertEquals(OffsetChoice.Reason.KAFKA_SET_ELSEWHERE, choice.reason()),
                () -> assertEquals(900L, consumer.position(P0), "a row left from before the switch is stale"));
    }

    @Test
    void aRowBeyondThePartitionsEndIsDropped() {
        commit(P0, 10, "");
        OffsetChoice choice = OffsetChoice.resume(consumer, List.of(P0), rows(P0, 5_000L), IDS, WAIT).get(P0);
        assertAll(() -> assertEquals(OffsetChoice.Reason.DATABASE_BEYOND_END, choice.reason()),
                () -> assertTrue(choice.dropRow()),
                () -> assertNull(choice.known()),
                () -> assertEquals(10L, consumer.position(P0)));
    }

    @Test
    void aRowAtThePartitionsEndIsKept() {
        commit(P0, 900, OffsetChoice.DATABASE_MODE);
        OffsetChoice choice = OffsetChoice.resume(consumer, List.of(P0), rows(P0, 1_000L), IDS, WAIT).get(P0);
        assertAll(() -> assertFalse(choice.dropRow()),
                () -> assertEquals(1_000L, consumer.position(P0)));
    }

    @Test
    void aRowOfAnEarlierTopicBelowTheNewEndIsNoPositionInIt() {
        // the reported loss: the topic made again with 8 partitions, 40 records written before the assignment, the
        // old topic's row at 12 and no committed offset in Kafka (deleting the topic deleted the group's)
        consumer.updateEndOffsets(Map.of(P0, 40L));
        OffsetChoice choice = OffsetChoice.resume(consumer, List.of(P0), rows(P0, 12L, OLD_ID), IDS, WAIT).get(P0);
        assertAll(() -> assertEquals(OffsetChoice.Reason.OTHER_TOPIC, choice.reason()),
                () -> assertEquals(0L, consumer.position(P0), "offsets 0..11 of the new topic are read"),
                () -> assertEquals(0L, choice.rowSetTo(), "the row is set to the start, with the new id"),
                () -> assertEquals(0L, choice.known()),
                () -> assertFalse(choice.stamp()));
    }

    @Test
    void aRowOfAnEarlierTopicIsDroppedWhateverTheNewTopicHolds() {
        // fewer, as many or more records than the row: every one of them is new
        for (long end : new long[] {0, 5, 12, 13, 514, 100_000}) {
            consumer.updateEndOffsets(Map.of(P0, end));
            OffsetChoice choice = OffsetChoice.choose(new KafkaOffsets.Row(12, OLD_ID), null, 0, end, ID);
            assertAll("end " + end, () -> assertEquals(OffsetChoice.Reason.OTHER_TOPIC, choice.reason()),
                    () -> assertEquals(0L, choice.seekTo()));
        }
    }

    @Test
    void kafkasOffsetDoesNotVouchForARowOfAnEarlierTopic() {
        // a consumer that kept its position across the re-creation committed the old topic's offset in the new one
        commit(P0, 514, OffsetChoice.DATABASE_MODE);
        OffsetChoice choice = OffsetChoice.resume(consumer, List.of(P0), rows(P0, 514L, OLD_ID), IDS, WAIT).get(P0);
        assertAll(() -> assertEquals(OffsetChoice.Reason.OTHER_TOPIC, choice.reason()),
                () -> assertEquals(0L, consumer.position(P0)));
    }

    @Test
    void theNewTopicIsReadFromItsLogStart() {
        consumer.updateBeginningOffsets(Map.of(P0, 30L));
        OffsetChoice choice = OffsetChoice.resume(consumer, List.of(P0), rows(P0, 12L, OLD_ID), IDS, WAIT).get(P0);
        assertEquals(30L, consumer.position(P0), "retention removed 0..29 already");
        assertEquals(30L, choice.rowSetTo());
    }

    @Test
    void aRowWithoutTopicIdAndNoKafkaOffsetIsReadFromTheStart() {
        OffsetChoice choice = OffsetChoice.resume(consumer, List.of(P0), rows(P0, 514L, null), IDS, WAIT).get(P0);
        assertAll(() -> assertEquals(OffsetChoice.Reason.UNPROVEN_ROW, choice.reason()),
                () -> assertEquals(0L, consumer.position(P0), "replayed (the inbox skips them), never skipped"),
                () -> assertEquals(0L, choice.rowSetTo()));
    }

    @Test
    void aRowWithoutTopicIdThatKafkaVouchesForIsKeptAndGetsTheId() {
        commit(P0, 700, OffsetChoice.DATABASE_MODE);
        OffsetChoice choice = OffsetChoice.resume(consumer, List.of(P0), rows(P0, 750L, null), IDS, WAIT).get(P0);
        assertAll(() -> assertEquals(OffsetChoice.Reason.DATABASE_AHEAD, choice.reason()),
                () -> assertEquals(750L, consumer.position(P0)),
                () -> assertTrue(choice.stamp(), "the row is given the topic's id"));
    }

    @Test
    void aRowOfTheTopicsOwnIdNeedsNoStamp() {
        OffsetChoice choice = OffsetChoice.choose(new KafkaOffsets.Row(5, ID), null, 0, 10, ID);
        assertAll(() -> assertEquals(OffsetChoice.Reason.NO_KAFKA_OFFSET, choice.reason()),
                () -> assertFalse(choice.stamp()), () -> assertEquals(5L, choice.seekTo()));
    }

    @Test
    void aTopicWithoutIdIsNotResolved() {
        IllegalStateException e = assertThrows(IllegalStateException.class,
                () -> OffsetChoice.resume(consumer, List.of(P0), rows(P0, 5L), Map.of(), WAIT));
        assertTrue(e.getMessage().contains("orders"), e.getMessage());
    }

    private static Map<TopicPartition, KafkaOffsets.Row> rows(TopicPartition tp, long next) {
        return rows(tp, next, ID);
    }

    private static Map<TopicPartition, KafkaOffsets.Row> rows(TopicPartition tp, long next, String id) {
        return Map.of(tp, new KafkaOffsets.Row(next, id));
    }

    private void commit(TopicPartition tp, long offset, String metadata) {
        Map<TopicPartition, OffsetAndMetadata> offsets = new HashMap<>();
        offsets.put(tp, new OffsetAndMetadata(offset, metadata));
        consumer.commitSync(offsets);
        consumer.seek(tp, offset);
    }
}
