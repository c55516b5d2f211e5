package io.github.jakartainbox.inbox.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class RepeatedNacksTest {

    @Test
    void aMessageFailingEverySecondForHalfAMinuteGivesTwoLinesNotThirty() {
        RepeatedNacks nacks = new RepeatedNacks();
        List<Long> logged = new ArrayList<>();
        for (int i = 0; i < 30; i++) {
            long times = nacks.failed("payments-0@7");
            if (RepeatedNacks.worthALine(times)) {
                logged.add(times);
            }
        }
        assertEquals(List.of(1L, 10L), logged, "INBOX0604E at the first failure, INBOX0620E at the tenth");
        assertEquals(100, RepeatedNacks.nextLine(30));
        assertEquals(100, RepeatedNacks.nextLine(10));
    }

    @Test
    void anotherMessageOrASuccessStartsTheCountAgain() {
        RepeatedNacks nacks = new RepeatedNacks();
        nacks.failed("payments-0@7");
        nacks.failed("payments-0@7");
        assertEquals(1, nacks.failed("payments-0@8"), "another message's failure is news");
        nacks.settled();
        assertEquals(1, nacks.failed("payments-0@8"), "so is a failure after a success");
    }
}
