package io.github.jakartainbox.inbox.health;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** How readiness tells a channel that is starting from one that stopped (issue 26). */
class InboxChannelsCheckTest {

    private static final Duration SESSION = Duration.ofSeconds(45);
    private static final Duration GRACE = Duration.ofMinutes(2);

    private static InboxChannelsCheck.Judgement judge(Duration sinceStart, KafkaConsumers.Consumer... consumers) {
        return InboxChannelsCheck.judge("orders", "billing", List.of(consumers), SESSION, sinceStart, GRACE, false);
    }

    private static KafkaConsumers.Consumer consumer(Duration lastHeartbeat) {
        return new KafkaConsumers.Consumer("consumer-billing-1", lastHeartbeat, lastHeartbeat == null ? 0 : 1);
    }

    @Test
    void aConsumerNotYetInItsGroupWithinTheGraceIsStartingNotDown() {
        InboxChannelsCheck.Judgement j = judge(Duration.ofSeconds(60), consumer(null));
        assertNull(j.problem(), "a start is not a fault");
        assertTrue(j.starting().startsWith("starting: client consumer-billing-1 has not joined group billing"),
                j.starting());
    }

    @Test
    void noConsumerYetWithinTheGraceIsStarting() {
        InboxChannelsCheck.Judgement j = judge(Duration.ofSeconds(5));
        assertNull(j.problem());
        assertTrue(j.starting().startsWith("starting: no Kafka consumer yet"), j.starting());
    }

    @Test
    void afterTheGraceAConsumerThatNeverJoinedIsDown() {
        InboxChannelsCheck.Judgement j = judge(GRACE.plusSeconds(1), consumer(null));
        assertTrue(j.problem().startsWith("HEALTH0105E"), j.problem());
        assertNull(j.starting());
        assertTrue(judge(GRACE.plusSeconds(1)).problem().startsWith("HEALTH0102E"));
    }

    @Test
    void aConsumerThatStoppedAfterConsumingIsDownEvenWithinTheGrace() {
        InboxChannelsCheck.Judgement j = judge(Duration.ofSeconds(50), consumer(Duration.ofSeconds(46)));
        assertTrue(j.problem().startsWith("HEALTH0103E"), j.problem());
    }

    @Test
    void aHeartbeatingConsumerIsConsumingAndOneStoppedCopyOfSeveralMakesItDown() {
        InboxChannelsCheck.Judgement ok = judge(Duration.ofHours(1), consumer(Duration.ofSeconds(2)));
        assertNull(ok.problem());
        assertNull(ok.starting());
        InboxChannelsCheck.Judgement mixed = judge(Duration.ofSeconds(10), consumer(Duration.ofSeconds(2)),
                consumer(null), new KafkaConsumers.Consumer("consumer-billing-3", Duration.ofMinutes(6), 0));
        assertTrue(mixed.problem().startsWith("HEALTH0103E"), "a stopped copy wins over a starting one");
        assertEquals(null, mixed.starting());
    }

    /** liberty-kafka shut the channel down within the grace: its consumer is gone, and it was no start. */
    @org.junit.jupiter.api.Test
    void aConsumerThatWentAwayWithinTheGraceIsDown() {
        InboxChannelsCheck.Judgement j = InboxChannelsCheck.judge("orders", "billing", List.of(), SESSION,
                Duration.ofSeconds(30), GRACE, true);
        assertTrue(j.problem() != null && j.problem().startsWith("HEALTH0102E"), String.valueOf(j));
    }
}
