package io.github.jakartainbox.faults;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.jakartainbox.billing.SampleEvents.Event;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/** The traffic of the scenarios that check per-key order ({@link FaultRun#perKey}). */
class FaultRunTest {

    @Test
    void eachOrdersFirstDeliveriesComeInSequenceAndNothingIsLostOrAdded() {
        FaultRun keyed = new FaultRun("t", 500, 10, new Random(7), FaultRun.GROUPED, false, false, 5);

        assertEquals(100, keyed.events.stream().map(Event::orderId).distinct().count(), "orders of 5 events");
        Map<String, Long> count = keyed.records.stream().filter(e -> keyed.sequence.containsKey(e.eventId()))
                .collect(Collectors.groupingBy(Event::eventId, Collectors.counting()));
        assertEquals(500, count.size(), "every event delivered");
        assertTrue(count.values().stream().allMatch(n -> n >= 1 && n <= FaultRun.MAX_DELIVERIES),
                "1 to 4 deliveries each");
        assertEquals(10, keyed.records.stream().filter(e -> !keyed.sequence.containsKey(e.eventId()))
                .map(Event::orderId).distinct().count(), "every poison message delivered");

        Map<String, Integer> next = new HashMap<>();
        Set<String> seen = new HashSet<>();
        long outOfOrderRedeliveries = 0;
        for (Event e : keyed.records) {
            Integer s = keyed.sequence.get(e.eventId());
            if (s == null) {
                continue; // poison
            }
            assertTrue(e.json().contains("\"sequence\":" + s + ","), e.json());
            if (seen.add(e.eventId())) {
                assertEquals(next.getOrDefault(e.orderId(), 1), s, "first delivery of order " + e.orderId());
                next.put(e.orderId(), s + 1);
            } else if (s < next.get(e.orderId()) - 1) {
                outOfOrderRedeliveries++;
            }
        }
        assertTrue(outOfOrderRedeliveries > 0, "some redeliveries come after later events of their order");
    }
}
