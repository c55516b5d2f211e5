package io.github.jakartainbox.inbox.deadletter;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.jakartainbox.inbox.deadletter.internal.ParkedEvents;
import io.github.jakartainbox.inbox.delivery.DeliveryFakes;
import io.github.jakartainbox.inbox.incoming.KeyedRecord;
import io.github.jakartainbox.inbox.incoming.RecordRedelivery;
import io.github.jakartainbox.inbox.incoming.SequenceRedrive;
import jakarta.enterprise.inject.Instance;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The ordering rules of a sequence's re-drive, without a server: the head, then the parked records in order; a record
 * parked meanwhile before the close; a failure heads the sequence and keeps the rest; a discarded head releases the
 * rest; one re-drive at a time.
 */
class InboxSequencesTest {

    private static final String CONSUMER = "billing";
    private static final String KEY = "order-7";

    /** The sequence of {@link #KEY} in memory, as the tables would hold it. */
    static final class Table extends ParkedEvents {
        final List<Stored> records = new ArrayList<>();
        boolean open = true;
        String claimedBy;
        long head;
        long nextId = 1;
        int closeTries;

        void add(Long deadLetter, String eventId) {
            records.add(new Stored(nextId++, deadLetter, eventId, new KeyedRecord(KEY, "orders", 0, nextId, List.of()),
                    "{\"event_id\":\"" + eventId + "\"}", null, OffsetDateTime.now()));
        }

        @Override
        public OptionalLong claim(String consumer, String key, String operator, Duration lease) {
            if (!open || claimedBy != null) {
                return OptionalLong.empty();
            }
            claimedBy = operator;
            return OptionalLong.of(1);
        }

        @Override
        public void lease(long sequenceId, String operator, boolean keep) {
            if (!keep && operator.equals(claimedBy)) {
                claimedBy = null;
            }
        }

        @Override
        public List<Stored> records(long sequenceId, int limit) {
            return List.copyOf(records.subList(0, Math.min(limit, records.size())));
        }

        @Override
        public void remove(long parkedId) {
            records.removeIf(r -> r.id() == parkedId);
        }

        @Override
        public void newHead(long sequenceId, long parkedId, long deadLetterId) {
            head = deadLetterId;
            records.replaceAll(r -> r.id() == parkedId ? new Stored(r.id(), deadLetterId, r.eventId(), r.record(),
                    r.payload(), r.payloadBytes(), r.parkedAt()) : r);
        }

        @Override
        public boolean closeIfEmpty(long sequenceId) {
            closeTries++;
            if (records.isEmpty()) {
                open = false;
            }
            return !open;
        }

        @Override
        public Optional<Sequence> find(String consumer, String key) {
            return open ? Optional.of(new Sequence(1, consumer, key, head, "INBOX0228E: poison",
                    records.size() - 1, OffsetDateTime.now(), null, claimedBy, null)) : Optional.empty();
        }

        @Override
        public void forget() {
        }

        /** The parked records discarded with the whole sequence: id, then the kept reason, then the operator. */
        final List<List<String>> kept = new ArrayList<>();
        Runnable duringDiscard = () -> { };

        @Override
        public OptionalLong discardParked(long parkedId, String consumer, String error, String operator) {
            duringDiscard.run();
            kept.add(List.of(String.valueOf(parkedId), error, operator));
            remove(parkedId);
            return OptionalLong.of(1000 + parkedId);
        }

        @Override
        public java.util.Map<Long, Sequence> headedBy(java.util.Collection<Long> deadLetterIds) {
            return open && deadLetterIds.contains(head) ? java.util.Map.of(head, find(CONSUMER, KEY).orElseThrow())
                    : java.util.Map.of();
        }
    }

    /** The dead letters: discards are noted, none is found discarded. */
    static final class Letters extends InboxDeadLetters {
        final List<Long> discarded = new ArrayList<>();
        /** A dead letter whose own re-drive holds its claim: not discarded, found open. */
        Long busy;
        List<Long> group = List.of();

        @Override
        public Duration redriveLease() {
            return Duration.ofMinutes(1);
        }

        @Override
        public boolean discard(long id, String operator) {
            if (busy != null && busy == id) {
                return false;
            }
            discarded.add(id);
            return true;
        }

        @Override
        public Optional<DeadLetter> find(long id) {
            return busy != null && busy == id ? Optional.of(new DeadLetter(id, CONSUMER, "e0", "poison", 1, null, null,
                    null, null, null, 0, false, 1, OffsetDateTime.now(), "server-3")) : Optional.empty();
        }

        @Override
        public List<Long> openIds(String consumer, String failure, int limit) {
            return group;
        }
    }

    /** The consumer's method: notes each event it got; those in {@code failing} are dead-lettered (ids from 100). */
    static final class Method implements RecordRedelivery {
        final List<String> delivered = new ArrayList<>();
        final Set<String> failing;
        final Set<String> processedBefore;
        Consumer<String> during = id -> { };
        long nextDeadLetter = 100;

        Method(Set<String> failing, Set<String> processedBefore) {
            this.failing = failing;
            this.processedBefore = processedBefore;
        }

        @Override
        public boolean delivers(String consumer) {
            return consumer.equals(CONSUMER);
        }

        @Override
        public void deliver(String consumer, KeyedRecord record, Object value) {
            String eventId = String.valueOf(value).replaceAll(".*\"event_id\":\"([^\"]*)\".*", "$1");
            assertTrue(SequenceRedrive.running(consumer, record.key()), "the paths see the re-drive: not parked again");
            during.accept(eventId);
            SequenceRedrive redrive = SequenceRedrive.current();
            if (failing.contains(eventId)) {
                redrive.deadLettered(nextDeadLetter++);
            } else if (processedBefore.contains(eventId)) {
                redrive.ended(SequenceRedrive.Outcome.DUPLICATE);
            } else {
                delivered.add(eventId);
                redrive.ended(SequenceRedrive.Outcome.PROCESSED);
            }
        }
    }

    private final Table table = new Table();
    private final Letters letters = new Letters();

    private InboxSequences sequences(RecordRedelivery... transports) {
        InboxSequences sequences = new InboxSequences();
        sequences.parked = table;
        sequences.deadLetters = letters;
        sequences.transactions = new DeliveryFakes.Transactions(new DeliveryFakes.Inbox());
        sequences.transports = instance(List.of(transports));
        return sequences;
    }

    @SuppressWarnings("unchecked")
    private static Instance<RecordRedelivery> instance(List<RecordRedelivery> beans) {
        return (Instance<RecordRedelivery>) Proxy.newProxyInstance(Instance.class.getClassLoader(),
                new Class<?>[] {Instance.class}, (proxy, method, args) -> switch (method.getName()) {
                    case "stream" -> beans.stream();
                    case "iterator" -> beans.iterator();
                    default -> throw new UnsupportedOperationException(method.getName());
                });
    }

    private void headAndParked(int parked) {
        table.head = 1;
        table.add(1L, "e0");
        for (int i = 1; i <= parked; i++) {
            table.add(null, "e" + i);
        }
    }

    @Test
    void theHeadThenTheParkedRecordsAreDeliveredInOrderAndTheSequenceCloses() throws Exception {
        headAndParked(4);
        Method method = new Method(Set.of(), Set.of());
        InboxSequences.Outcome outcome = sequences(method).redrive(CONSUMER, KEY, "operator");
        assertEquals(InboxSequences.Status.CLOSED, outcome.status());
        assertEquals(5, outcome.delivered());
        assertEquals(List.of("e0", "e1", "e2", "e3", "e4"), method.delivered);
        assertTrue(table.records.isEmpty());
        assertTrue(!table.open, "closed");
    }

    @Test
    void aRecordParkedWhileTheRedriveRunsIsDeliveredBeforeTheSequenceCloses() throws Exception {
        headAndParked(1);
        Method method = new Method(Set.of(), Set.of());
        method.during = id -> {
            if (id.equals("e1")) {
                table.add(null, "late"); // parked by the consumer's poll thread meanwhile
            }
        };
        InboxSequences.Outcome outcome = sequences(method).redrive(CONSUMER, KEY, "operator");
        assertEquals(InboxSequences.Status.CLOSED, outcome.status());
        assertEquals(List.of("e0", "e1", "late"), method.delivered);
    }

    @Test
    void aDuplicateCountsAsDeliveredAndIsRemoved() throws Exception {
        headAndParked(2);
        Method method = new Method(Set.of(), Set.of("e1"));
        InboxSequences.Outcome outcome = sequences(method).redrive(CONSUMER, KEY, "operator");
        assertEquals(InboxSequences.Status.CLOSED, outcome.status());
        assertEquals(3, outcome.delivered());
        assertEquals(List.of("e0", "e2"), method.delivered, "the duplicate skipped by the claim");
    }

    @Test
    void aRecordThatFailsHeadsTheSequenceAndTheRestStayParked() throws Exception {
        headAndParked(3);
        Method method = new Method(Set.of("e2"), Set.of());
        InboxSequences.Outcome outcome = sequences(method).redrive(CONSUMER, KEY, "operator");
        assertEquals(InboxSequences.Status.STOPPED, outcome.status());
        assertEquals(2, outcome.delivered());
        assertEquals(100L, outcome.newHead());
        assertEquals(List.of("e0", "e1"), method.delivered);
        assertEquals(List.of("e2", "e3"), table.records.stream().map(ParkedEvents.Stored::eventId).toList());
        assertEquals(100L, table.records.get(0).deadLetterId(), "the failed record heads the sequence");
        assertNull(table.records.get(1).deadLetterId());
        assertNull(table.claimedBy, "the lease is given back");
        assertTrue(table.open);
    }

    @Test
    void theSameHeadFailingAgainKeepsEverythingParked() throws Exception {
        headAndParked(2);
        Method method = new Method(Set.of("e0"), Set.of());
        InboxSequences.Outcome outcome = sequences(method).redrive(CONSUMER, KEY, "operator");
        assertEquals(InboxSequences.Status.STOPPED, outcome.status());
        assertEquals(0, outcome.delivered());
        assertEquals(3, table.records.size());
        assertTrue(method.delivered.isEmpty());
    }

    @Test
    void discardingTheHeadReleasesTheRestInOrder() throws Exception {
        headAndParked(2);
        Method method = new Method(Set.of(), Set.of());
        InboxSequences.Outcome outcome = sequences(method).discardHead(CONSUMER, KEY, "operator");
        assertEquals(InboxSequences.Status.CLOSED, outcome.status());
        assertEquals(List.of(1L), letters.discarded);
        assertEquals(List.of("e1", "e2"), method.delivered, "the head not delivered");
    }

    @Test
    void aSecondRedriveIsRefusedWhileTheFirstHoldsTheLease() throws Exception {
        headAndParked(1);
        table.claimedBy = "server-2";
        Method method = new Method(Set.of(), Set.of());
        InboxSequences.Outcome outcome = sequences(method).redrive(CONSUMER, KEY, "operator");
        assertEquals(InboxSequences.Status.TAKEN, outcome.status());
        assertEquals("server-2", outcome.sequence().redrivenBy());
        assertTrue(method.delivered.isEmpty());
        assertEquals(2, table.records.size());
    }

    @Test
    void noOpenSequenceOrNoMethodDeliversNothing() throws Exception {
        table.open = false;
        assertEquals(InboxSequences.Status.NOT_FOUND,
                sequences(new Method(Set.of(), Set.of())).redrive(CONSUMER, KEY, "operator").status());
        table.open = true;
        headAndParked(0);
        assertEquals(InboxSequences.Status.UNKNOWN_CONSUMER, sequences().redrive(CONSUMER, KEY, "operator").status());
        assertEquals(1, table.records.size());
    }

    // ---- discarding a whole sequence ----

    @Test
    void discardingTheWholeSequenceDiscardsTheHeadAndKeepsEachParkedRecordAsADiscardedDeadLetter() throws Exception {
        headAndParked(3);
        Method method = new Method(Set.of(), Set.of());
        InboxSequences.Outcome outcome = sequences(method).discard(CONSUMER, KEY, "operator");
        assertEquals(InboxSequences.Status.CLOSED, outcome.status());
        assertEquals(4, outcome.discarded(), "the head and the three parked records");
        assertEquals(0, outcome.delivered());
        assertEquals(List.of(1L), letters.discarded, "the head's dead letter");
        assertEquals(List.of("2", "3", "4"), table.kept.stream().map(k -> k.get(0)).toList(), "in order");
        assertTrue(table.kept.stream().allMatch(k -> k.get(1).startsWith("INBOX0246W: Consumer billing: the record "
                + "at orders-0@") && k.get(1).contains("dead letter 1 (key order-7)") && k.get(2).equals("operator")),
                table.kept.toString());
        assertTrue(method.delivered.isEmpty(), "nothing reaches the method");
        assertTrue(table.records.isEmpty());
        assertTrue(!table.open, "closed");
    }

    @Test
    void aRecordParkedWhileTheWholeDiscardRunsIsDiscardedBeforeTheSequenceCloses() throws Exception {
        headAndParked(1);
        table.duringDiscard = () -> {
            table.duringDiscard = () -> { };
            table.add(null, "late");
        };
        InboxSequences.Outcome outcome = sequences().discard(CONSUMER, KEY, "operator");
        assertEquals(InboxSequences.Status.CLOSED, outcome.status());
        assertEquals(3, outcome.discarded());
        assertEquals(List.of("2", "3"), table.kept.stream().map(k -> k.get(0)).toList());
        assertTrue(!table.open);
    }

    @Test
    void theWholeDiscardIsRefusedWhileARedriveOfTheSequenceHoldsTheLease() throws Exception {
        headAndParked(2);
        table.claimedBy = "server-2";
        InboxSequences.Outcome outcome = sequences().discard(CONSUMER, KEY, "operator");
        assertEquals(InboxSequences.Status.TAKEN, outcome.status());
        assertEquals("server-2", outcome.sequence().redrivenBy());
        assertEquals(0, outcome.discarded());
        assertTrue(letters.discarded.isEmpty());
        assertEquals(3, table.records.size());
    }

    @Test
    void theWholeDiscardIsRefusedWhileTheHeadsOwnRedriveHoldsItsClaim() throws Exception {
        headAndParked(2);
        letters.busy = 1L;
        InboxSequences.Outcome outcome = sequences().discard(CONSUMER, KEY, "operator");
        assertEquals(InboxSequences.Status.TAKEN, outcome.status());
        assertEquals("server-3", outcome.sequence().redrivenBy(), "the dead letter's claimer is named");
        assertEquals(3, table.records.size(), "nothing discarded");
        assertTrue(table.kept.isEmpty());
        assertNull(table.claimedBy, "the lease is given back");
    }

    @Test
    void theWholeDiscardOfNoOpenSequenceIsNotFound() throws Exception {
        table.open = false;
        assertEquals(InboxSequences.Status.NOT_FOUND, sequences().discard(CONSUMER, KEY, "operator").status());
    }

    // ---- bulk ----

    @Test
    void aBulkRedriveByIdsClosesTheSequenceAndCountsAnIdThatHeadsNone() throws Exception {
        headAndParked(2);
        Method method = new Method(Set.of(), Set.of());
        List<InboxSequences.Outcome> reported = new ArrayList<>();
        InboxSequences.BulkResult result = sequences(method).bulk(DeadLetterBulk.Action.REDRIVE,
                DeadLetterBulk.Selection.ofIds(List.of(99L, 1L)), "operator", o -> {
                    reported.add(o);
                    return null;
                });
        assertEquals(2, result.selected());
        assertEquals(1, result.closed());
        assertEquals(3, result.delivered());
        assertEquals(Set.of("INBOX0247E"), result.refused().keySet());
        assertTrue(result.refused().get("INBOX0247E").example().startsWith("INBOX0247E: Dead letter 99 "));
        assertEquals(1, reported.size(), "reported once per tried sequence");
        assertEquals(List.of("e0", "e1", "e2"), method.delivered);
    }

    @Test
    void aBulkByGroupSelectsOnlyTheSequencesItsDeadLettersHeadAndDiscardsThemWhole() throws Exception {
        headAndParked(2);
        letters.group = List.of(5L, 1L, 7L);
        InboxSequences.BulkResult result = sequences().bulk(DeadLetterBulk.Action.DISCARD,
                DeadLetterBulk.Selection.ofGroup(CONSUMER, "INBOX0228E"), "operator", o -> null);
        assertEquals(1, result.selected(), "dead letters 5 and 7 head no sequence");
        assertEquals(1, result.closed());
        assertEquals(3, result.discarded());
        assertEquals(0, result.refusedCount());
        assertTrue(!result.moreInGroup());
        assertTrue(!table.open);
    }

    @Test
    void aBulkStopsAfterASequenceThatFailsAndCountsTheRestNotTried() throws Exception {
        headAndParked(1);
        RecordRedelivery failing = new RecordRedelivery() {
            @Override
            public boolean delivers(String consumer) {
                return consumer.equals(CONSUMER);
            }

            @Override
            public void deliver(String consumer, KeyedRecord record, Object value) {
                throw new IllegalStateException("the database went away");
            }
        };
        InboxSequences.BulkResult result = sequences(failing).bulk(DeadLetterBulk.Action.REDRIVE,
                DeadLetterBulk.Selection.ofIds(List.of(1L, 99L)), "operator", o -> null);
        assertEquals(Set.of("INBOX0248W"), result.refused().keySet());
        assertTrue(result.refused().get("INBOX0248W").example().contains("the database went away"));
        assertEquals(1, result.notTried(), "dead letter 99 was not tried");
        assertEquals(0, result.closed());
        assertNull(table.claimedBy, "the lease is given back");
        assertEquals(2, table.records.size(), "the sequence stays as it was");
    }

    @Test
    void aBulkCountsASequenceAnotherRedriveHoldsAsAlreadyTaken() throws Exception {
        headAndParked(1);
        table.claimedBy = "server-2";
        InboxSequences.BulkResult result = sequences(new Method(Set.of(), Set.of())).bulk(
                DeadLetterBulk.Action.DISCARD, DeadLetterBulk.Selection.ofIds(List.of(1L)), "operator",
                o -> "BILLING0267E: taken");
        assertEquals(1, result.alreadyTaken());
        assertEquals(0, result.refusedCount(), "taken is no refusal");
        assertEquals(2, table.records.size());
    }
}
