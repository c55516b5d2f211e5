package io.github.jakartainbox.inbox.kafka;

import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
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

/** Where an assigned partition resumes with offset-store=database, on Kafka's {@link MockConsumer}. */
class OffsetChoiceTest {

    private static final TopicPartition P0 = new TopicPartition("orders", 0);
    private static final TopicPartition P1 = new TopicPartition("orders", 1);
    private static final Duration WAIT = Duration.ofSeconds(1);

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
        OffsetChoice choice = OffsetChoice.resume(consumer, List.of(P0), Map.of(P0, 400L), WAIT).get(P0);
        assertAll(() -> assertEquals(OffsetChoice.Reason.DATABASE_BEHIND, choice.reason()),
                () -> assertEquals(400L, consumer.position(P0), "the records the failover lost are read again"),
                () -> assertEquals(400L, choice.known()),
                () -> assertEquals(700L, choice.kafkaOffset()));
    }

    @Test
    void databaseAheadOfKafkaSkipsWhatItCommitted() {
        commit(P0, 700, OffsetChoice.DATABASE_MODE);
        OffsetChoice choice = OffsetChoice.resume(consumer, List.of(P0), Map.of(P0, 750L), WAIT).get(P0);
        assertAll(() -> assertEquals(OffsetChoice.Reason.DATABASE_AHEAD, choice.reason()),
                () -> assertEquals(750L, consumer.position(P0)));
    }

    @Test
    void equalOffsetsSeekNothing() {
        commit(P0, 700, OffsetChoice.DATABASE_MODE);
        OffsetChoice choice = OffsetChoice.resume(consumer, List.of(P0), Map.of(P0, 700L), WAIT).get(P0);
        assertAll(() -> assertEquals(OffsetChoice.Reason.EQUAL, choice.reason()),
                () -> assertNull(choice.seekTo()),
                () -> assertEquals(700L, consumer.position(P0)));
    }

    @Test
    void partitionWithoutRowKeepsKafkasOffset() {
        commit(P0, 700, OffsetChoice.DATABASE_MODE);
        commit(P1, 300, OffsetChoice.DATABASE_MODE);
        Map<TopicPartition, OffsetChoice> choices = OffsetChoice.resume(consumer, List.of(P0, P1),
                Map.of(P0, 650L), WAIT);
        assertAll(() -> assertEquals(OffsetChoice.Reason.NO_ROW, choices.get(P1).reason()),
                () -> assertNull(choices.get(P1).known()),
                () -> assertEquals(300L, consumer.position(P1)),
                () -> assertEquals(650L, consumer.position(P0)));
    }

    @Test
    void partitionWithoutKafkaOffsetTakesTheDatabases() {
        OffsetChoice choice = OffsetChoice.resume(consumer, List.of(P0), Map.of(P0, 123L), WAIT).get(P0);
        assertAll(() -> assertEquals(OffsetChoice.Reason.NO_KAFKA_OFFSET, choice.reason()),
                () -> assertEquals(123L, consumer.position(P0)));
    }

    @Test
    void anOperatorsResetIsFollowedAndTheRowSetToIt() {
        commit(P0, 900, ""); // kafka-consumer-groups --reset-offsets commits without metadata
        OffsetChoice choice = OffsetChoice.resume(consumer, List.of(P0), Map.of(P0, 400L), WAIT).get(P0);
        assertAll(() -> assertEquals(OffsetChoice.Reason.KAFKA_SET_ELSEWHERE, choice.reason()),
                () -> assertEquals(900L, consumer.position(P0), "the operator skipped 400..899"),
                () -> assertEquals(900L, choice.rowSetTo()),
                () -> assertEquals(900L, choice.known()));
    }

    @Test
    void offsetsOfKafkaModeAreNotTakenForThisModes() {
        commit(P0, 900, OffsetChoice.KAFKA_MODE);
        OffsetChoice choice = OffsetChoice.resume(consumer, List.of(P0), Map.of(P0, 100L), WAIT).get(P0);
        assertAll(() -> assertEquals(OffsetChoice.Reason.KAFKA_SET_ELSEWHERE, choice.reason()),
                () -> assertEquals(900L, consumer.position(P0), "a row left from before the switch is stale"));
    }

    @Test
    void aRowBeyondThePartitionsEndIsDropped() {
        commit(P0, 10, "");
        OffsetChoice choice = OffsetChoice.resume(consumer, List.of(P0), Map.of(P0, 5_000L), WAIT).get(P0);
        assertAll(() -> assertEquals(OffsetChoice.Reason.DATABASE_BEYOND_END, choice.reason()),
                () -> assertTrue(choice.dropRow()),
                () -> assertNull(choice.known()),
                () -> assertEquals(10L, consumer.position(P0)));
    }

    @Test
    void aRowAtThePartitionsEndIsKept() {
        commit(P0, 900, OffsetChoice.DATABASE_MODE);
        OffsetChoice choice = OffsetChoice.resume(consumer, List.of(P0), Map.of(P0, 1_000L), WAIT).get(P0);
        assertAll(() -> assertFalse(choice.dropRow()),
                () -> assertEquals(1_000L, consumer.position(P0)));
    }

    private void commit(TopicPartition tp, long offset, String metadata) {
        Map<TopicPartition, OffsetAndMetadata> offsets = new HashMap<>();
        offsets.put(tp, new OffsetAndMetadata(offset, metadata));
        consumer.commitSync(offsets);
        consumer.seek(tp, offset);
    }
}
