package io.github.jakartainbox.faults;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.github.jakartainbox.faults.KeyOrder.Effect;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The per-key order rules around a poison record in the middle of a sequence ({@link KeyOrder}). */
class KeyOrderTest {

    /** One effect per transaction, made at {@code at} (also its place in the order of effects). */
    private static Effect effect(String key, int sequence, long at) {
        return new Effect(key, sequence, "tx" + at, at, 0, at);
    }

    @Test
    void thePairAroundAPoisonIsCheckedAndOtherGapsAreNot() {
        // order a: 1, 2, (poison at 3), 4, 5 with 4 before 2; order b: 1, 2, 4 with no poison (3 lost, not a pair)
        List<Effect> effects = List.of(effect("a", 1, 10), effect("a", 2, 30), effect("a", 4, 20),
                effect("a", 5, 40), effect("b", 1, 10), effect("b", 2, 20), effect("b", 4, 5));
        List<String> examples = new ArrayList<>();

        long[] checked = KeyOrder.check("billing", new ArrayList<>(effects), Map.of("a", 3), false, examples);

        assertArrayEquals(new long[] {4, 0, 1, 1}, checked, "pairs, in one transaction, violations, spanning");
        assertEquals(List.of("billing: order a, event 4 took effect before event 2 (transactions tx30 and tx20)"),
                examples);
    }

    @Test
    void theEventsBehindAPoisonMustTakeEffectAfterItWasDiscarded() {
        List<Effect> effects = List.of(effect("a", 2, 10), effect("a", 4, 50), effect("a", 5, 60),
                effect("b", 4, 15), effect("c", 4, 70), effect("d", 4, 1));
        List<String> examples = new ArrayList<>();

        // a released at 40 (both after), b at 20 (4 before it), c never discarded, d not poisoned
        long[] held = KeyOrder.held("analytics", effects, Map.of("a", 3, "b", 3, "c", 3),
                Map.of("a", 40L, "b", 20L), examples);

        assertArrayEquals(new long[] {4, 2}, held, "checked, made before the discard");
        assertEquals(2, examples.size(), String.join("; ", examples));
    }
}
