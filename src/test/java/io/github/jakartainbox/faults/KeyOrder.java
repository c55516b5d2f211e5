package io.github.jakartainbox.faults;

import io.github.jakartainbox.testing.Db;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Per-key order of effects (issue 26): each order's events carry a sequence number and go to one partition, their
 * first deliveries in sequence order ({@link FaultRun#perKey}); the effects must have been made in that order.
 *
 * <p>What "order" means: the order in which each event's effect was made by the processing that committed it. A
 * redelivery the inbox skipped makes no effect, so it cannot be out of order, and an attempt rolled back (a kill, a
 * poison record in its group) leaves nothing; only the committed processing of each event counts. Per consumer:
 * <ul>
 *   <li>{@code billing}: two events of an order committed in different transactions (told apart by the {@code xmin}
 *       of their inbox rows, which are never updated) are in order when the earlier event's invoice number is the
 *       lower; the number is {@code nextval} of a database sequence taken by the invoice's INSERT, inside the
 *       consumer's transaction, across all servers. In one transaction (one group), when its invoice id is the
 *       lower: ids are taken at {@code persist()}, in the order the method was called, from the block the
 *       transaction reserved (EclipseLink may send a group's INSERTs in another order, so the number does not tell);</li>
 *   <li>{@code analytics} (its effect, a sum in {@code daily_revenue}, has no row per event): in different
 *       transactions, when the earlier event's inbox row has the earlier {@code processed_at}, the start of its
 *       transaction on PostgreSQL's clock; one transaction commits its events together, and is not ordered
 *       within.</li>
 * </ul>
 * Each pair of consecutive events of an order (sequence s and s + 1) is one check; where a poison record took the
 * place s + 1 (scenario 20, {@link FaultRun#poisonAt}), the pair s and s + 2 spans it and is checked instead.
 *
 * <p>Held (scenario 20): every effect of an event after its order's poison must have been made after the operator
 * discarded that poison, the sequence's head, which released it: its inbox row's {@code processed_at} (the start
 * of its transaction) later than the first {@code discarded} entry of the consumer's dead letter of that key.
 *
 * @param keys                orders checked (those with more than one event)
 * @param pairs               pairs of consecutive events checked per consumer
 * @param billingSameTx       of billing's pairs, those committed in one transaction
 * @param billingViolations   billing's pairs whose effects are out of sequence order
 * @param analyticsSameTx     of analytics' pairs, those committed in one transaction (not ordered)
 * @param analyticsViolations analytics' pairs whose transactions started out of sequence order
 * @param spanning            of the pairs, those that span a poison record (per consumer)
 * @param held                effects checked for being held behind their order's poison (both consumers)
 * @param billingNotHeld      billing's effects made before their order's poison was discarded
 * @param analyticsNotHeld    same for analytics
 * @param examples            a few violations, for the failure message
 */
record KeyOrder(long keys, long pairs, long billingSameTx, long billingViolations, long analyticsSameTx,
                long analyticsViolations, long spanning, long held, long billingNotHeld, long analyticsNotHeld,
                List<String> examples) {

    /**
     * An effect of one event: the transaction that committed it, its position in the order of effects, and the
     * start of its transaction (microseconds since the epoch, PostgreSQL's clock).
     */
    record Effect(String key, int sequence, String tx, long across, long within, long processedAt) {
    }

    private static final java.util.regex.Pattern ORDER_ID = java.util.regex.Pattern.compile("\"order_id\":\"([^\"]+)\"");

    /** Reads the effects of a finished scenario whose orders have several events each. */
    static KeyOrder measure(FaultRun run, Db db) {
        Map<String, String> keyOf = new HashMap<>();
        run.events.forEach(e -> keyOf.put(e.eventId().toLowerCase(java.util.Locale.ROOT), e.orderId()));
        Map<String, Integer> sequence = new HashMap<>();
        run.sequence.forEach((id, s) -> sequence.put(id.toLowerCase(java.util.Locale.ROOT), s));
        List<Effect> billing = effects(db.texts("SELECT concat_ws(' ', lower(v.event_id), i.xmin::text, "
                + "substring(v.invoice_number FROM 5)::bigint, v.id, (extract(epoch FROM i.processed_at) * 1000000)::bigint) "
                + "FROM invoice v JOIN inbox i "
                + "ON i.consumer = 'billing' AND i.event_id = lower(v.event_id)"), keyOf, sequence);
        List<Effect> analytics = effects(db.texts("SELECT concat_ws(' ', event_id, xmin::text, "
                + "(extract(epoch FROM processed_at) * 1000000)::bigint, 0, (extract(epoch FROM processed_at) * 1000000)"
                + "::bigint) FROM inbox WHERE consumer = 'analytics'"),
                keyOf, sequence);
        List<String> examples = new ArrayList<>();
        long[] b = check("billing", billing, run.poisonAt, true, examples);
        long[] a = check("analytics", analytics, run.poisonAt, false, examples);
        long keys = billing.stream().map(Effect::key).distinct().count();
        long[] heldB = held("billing", billing, run.poisonAt, released(db, "billing"), examples);
        long[] heldA = held("analytics", analytics, run.poisonAt, released(db, "analytics"), examples);
        return new KeyOrder(keys, b[0], b[1], b[2], a[1], a[2], b[3], heldB[0] + heldA[0], heldB[1], heldA[1],
                examples);
    }

    /**
     * @return per record key, when the consumer's first dead letter of that key was first discarded (microseconds
     *         since the epoch): the moment the operator released what waited behind it
     */
    private static Map<String, Long> released(Db db, String consumer) {
        Map<String, Long> released = new HashMap<>();
        for (String row : db.texts("SELECT concat_ws(' ', (extract(epoch FROM min(h.at)) * 1000000)::bigint, "
                + "coalesce(payload, '')) FROM inbox_dead_letter_history h JOIN " + Db.DEAD_LETTERS_D
                + " ON d.id = h.dead_letter_id WHERE h.kind = 'discarded' AND d.consumer = ? GROUP BY d.id, payload",
                consumer)) {
            String[] f = row.split(" ", 2);
            java.util.regex.Matcher m = ORDER_ID.matcher(f.length > 1 ? f[1] : "");
            if (m.find()) {
                released.merge(m.group(1), Long.parseLong(f[0]), Math::min);
            }
        }
        return released;
    }

    /**
     * @param poisonAt per record key, the place of its poison record (keys without one are not checked)
     * @param released per record key, when its poison was discarded ({@link #released})
     * @return effects checked, effects made before their key's poison was discarded (or never discarded)
     */
    static long[] held(String consumer, List<Effect> effects, Map<String, Integer> poisonAt,
                       Map<String, Long> released, List<String> examples) {
        long checked = 0;
        long early = 0;
        for (Effect e : effects) {
            Integer at = poisonAt.get(e.key());
            if (at == null || e.sequence() < at) {
                continue;
            }
            checked++;
            Long discarded = released.get(e.key());
            if (discarded == null || e.processedAt() <= discarded) {
                early++;
                if (examples.size() < 5) {
                    examples.add(String.format("%s: order %s, event %d (after the poison at %d) took effect %s",
                            consumer, e.key(), e.sequence(), at, discarded == null ? "but the poison was never "
                                    + "discarded" : (discarded - e.processedAt()) + " µs before the poison was discarded"));
                }
            }
        }
        return new long[] {checked, early};
    }

    private static List<Effect> effects(List<String> rows, Map<String, String> keyOf, Map<String, Integer> sequence) {
        List<Effect> effects = new ArrayList<>();
        for (String row : rows) {
            String[] f = row.split(" ");
            String key = keyOf.get(f[0]);
            if (key != null) { // the canary has no predecessor
                effects.add(new Effect(key, sequence.get(f[0]), f[1], Long.parseLong(f[2]), Long.parseLong(f[3]),
                        Long.parseLong(f[4])));
            }
        }
        return effects;
    }

    /**
     * @param poisonAt     per record key, the place of a poison record in its sequence: the pair around it is checked
     * @param ordersWithin whether effects of one transaction are ordered ({@link Effect#within})
     * @return pairs checked, pairs in one transaction, violations, pairs that span a poison record
     */
    static long[] check(String consumer, List<Effect> effects, Map<String, Integer> poisonAt, boolean ordersWithin,
                        List<String> examples) {
        Map<String, List<Effect>> byKey = new HashMap<>();
        effects.forEach(e -> byKey.computeIfAbsent(e.key(), k -> new ArrayList<>()).add(e));
        long pairs = 0;
        long sameTx = 0;
        long violations = 0;
        long spanning = 0;
        for (List<Effect> list : byKey.values()) {
            list.sort(Comparator.comparingInt(Effect::sequence));
            for (int i = 1; i < list.size(); i++) {
                Effect before = list.get(i - 1);
                Effect after = list.get(i);
                boolean spans = after.sequence() == before.sequence() + 2
                        && Integer.valueOf(before.sequence() + 1).equals(poisonAt.get(before.key()));
                if (after.sequence() != before.sequence() + 1 && !spans) {
                    continue; // an event without effect is counted as lost by Outcome
                }
                pairs++;
                if (spans) {
                    spanning++;
                }
                boolean oneTx = before.tx().equals(after.tx());
                if (oneTx) {
                    sameTx++;
                }
                boolean inOrder = oneTx ? !ordersWithin || before.within() < after.within()
                        : before.across() < after.across();
                if (!inOrder) {
                    violations++;
                    if (examples.size() < 5) {
                        examples.add(String.format("%s: order %s, event %d took effect before event %d (%s)",
                                consumer, before.key(), after.sequence(), before.sequence(),
                                oneTx ? "one transaction, ids " + before.within() + " > " + after.within()
                                        : "transactions " + before.tx() + " and " + after.tx()));
                    }
                }
            }
        }
        return new long[] {pairs, sameTx, violations, spanning};
    }

    /** @return the table cell: violations billing / analytics */
    String cell() {
        return billingViolations + " / " + analyticsViolations + (held == 0 ? ""
                : "; released early " + billingNotHeld + " / " + analyticsNotHeld + " of " + held);
    }

    /** @return one line for the scenario's log */
    String describe() {
        return String.format("per-key order: %,d orders, %,d pairs of consecutive events per consumer; billing %,d "
                        + "in one transaction, %d out of order; analytics %,d in one transaction (not ordered), %d out "
                        + "of order; %,d pairs span a poison record; %,d effects behind a poison, made before it was "
                        + "discarded: billing %d, analytics %d%s", keys, pairs, billingSameTx, billingViolations,
                analyticsSameTx, analyticsViolations, spanning, held, billingNotHeld, analyticsNotHeld, examples.isEmpty() ? "" : ": " + String.join("; ", examples));
    }
}
