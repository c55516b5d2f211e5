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

    @Test
    void aPoisonInTheMiddleOfAnOrderTakesAnEventsPlaceWithTheOrdersKey() {
        FaultRun run = new FaultRun("t", 500, 50, new Random(11), FaultRun.GROUPED, false, false, 5, true);

        assertEquals(450, run.events.size(), "the poisoned orders' middle events replaced");
        assertEquals(50, run.poison.size());
        assertEquals(50, run.poisonAt.size(), "one poison per order");
        assertTrue(run.poisonAt.values().stream().allMatch(at -> at == 3), "in the middle of 5");
        Map<String, Integer> next = new HashMap<>();
        Set<Event> seen = new HashSet<>();
        long poisonRecords = 0;
        for (Event e : run.records) {
            boolean poison = run.poison.contains(e);
            if (poison) {
                poisonRecords++;
                assertTrue(e.json().contains(FaultRun.POISON) && run.poisonAt.containsKey(e.orderId()),
                        "keyed by its order: " + e);
            }
            if (!seen.add(e) || !run.poisonAt.containsKey(e.orderId())) {
                continue;
            }
            int place = poison ? run.poisonAt.get(e.orderId()) : run.sequence.get(e.eventId());
            int expected = next.getOrDefault(e.orderId(), 1);
            assertEquals(expected, place, "first delivery of order " + e.orderId());
            next.put(e.orderId(), place + 1);
        }
        assertTrue(poisonRecords > 50, "some poison records sent more than once");
        assertEquals(Math.toIntExact(run.records.stream().filter(r -> !run.poison.contains(r)).count() + 1),
                run.goodRecords(), "good records counted without the poison");
    }
}
