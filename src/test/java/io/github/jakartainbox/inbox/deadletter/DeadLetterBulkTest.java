package io.github.jakartainbox.inbox.deadletter;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.jakartainbox.inbox.deadletter.DeadLetterBulk.Action;
import io.github.jakartainbox.inbox.deadletter.DeadLetterBulk.Refusal;
import io.github.jakartainbox.inbox.deadletter.DeadLetterBulk.Result;
import io.github.jakartainbox.inbox.deadletter.DeadLetterBulk.Selection;
import io.github.jakartainbox.inbox.deadletter.InboxRedrives.Outcome;
import io.github.jakartainbox.inbox.deadletter.InboxRedrives.Route;
import io.github.jakartainbox.inbox.deadletter.InboxRedrives.Status;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import java.util.stream.LongStream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The bulk call's rules ({@link DeadLetterBulk}) over fakes of the single re-drive and discard: which rows it takes,
 * that it stops after a failed send, and how it counts. The single calls' own rules are InboxRedrivesTest's; the
 * HTTP answer is DeadLetterBulkIT's.
 */
class DeadLetterBulkTest {

    private static final Function<String, Optional<Route>> NO_ROUTES = consumer -> Optional.empty();

    /** The open rows of each group, as {@link InboxDeadLetters#openIds} reads them. */
    private static final class FakeDeadLetters extends InboxDeadLetters {
        final Map<String, List<Long>> groups = new HashMap<>();
        final List<String> asked = new ArrayList<>();

        @Override
        public List<Long> openIds(String consumer, String failure, int limit) {
            asked.add(consumer + "/" + failure + "/" + limit);
            return groups.getOrDefault(consumer + "/" + failure, List.of()).stream().limit(limit).toList();
        }
    }

    /** Each row's status as set, and the calls made, in order. */
    private static final class FakeRedrives extends InboxRedrives {
        final Map<Long, Status> statuses = new HashMap<>();
        final List<String> calls = new ArrayList<>();
        long unreadable;

        @Override
        public Outcome redrive(long id, Function<String, Optional<Route>> routes, boolean aimed, String operator)
                throws SQLException {
            calls.add("redrive " + id + (aimed ? " aimed" : " unaimed") + " by " + operator);
            if (id == unreadable) {
                throw new SQLException("the database is gone");
            }
            return outcome(id, statuses.getOrDefault(id, Status.REDRIVEN));
        }

        @Override
        public Outcome discard(long id, String operator) {
            calls.add("discard " + id + " by " + operator);
            return outcome(id, statuses.getOrDefault(id, Status.DISCARDED));
        }

        private static Outcome outcome(long id, Status status) {
            return new Outcome(status, id, null, null, null, null, null, null, null, null);
        }
    }

    private final FakeDeadLetters deadLetters = new FakeDeadLetters();
    private final FakeRedrives redrives = new FakeRedrives();
    private final DeadLetterBulk bulk = new DeadLetterBulk();
    private final List<Outcome> reported = new ArrayList<>();

    @BeforeEach
    void wire() {
        bulk.deadLetters = deadLetters;
        bulk.redrives = redrives;
    }

    /** Words a refusal as the example does: its message id first. */
    private String report(Outcome outcome) {
        reported.add(outcome);
        return switch (outcome.status()) {
            case NOT_OPEN -> "BILLING0244E: Dead letter " + outcome.id() + " was already discarded by ann.";
            case NO_PAYLOAD -> "BILLING0248E: Dead letter " + outcome.id() + " cannot be re-driven from this service.";
            case SEND_FAILED -> "BILLING0203W: Re-drive of dead letter " + outcome.id() + " failed.";
            case TAKEN -> "BILLING0240E: Dead letter " + outcome.id() + " is being re-driven by bob.";
            case NOT_FOUND -> "no such row";
            default -> null;
        };
    }

    @Test
    void eachIdIsActedOnOnceInItsOrderEachReDriveAimedAtItsOwnConsumer() throws SQLException {
        Result result = bulk.apply(Action.REDRIVE, Selection.ofIds(List.of(3L, 1L, 3L, 2L)), NO_ROUTES, "ann",
                this::report);

        assertEquals(List.of("redrive 3 aimed by ann", "redrive 1 aimed by ann", "redrive 2 aimed by ann"),
                redrives.calls);
        assertEquals(new Result(Action.REDRIVE, 3, 3, 0, new java.util.TreeMap<>(), 0, false), result);
        assertEquals(3, reported.size(), "every outcome is reported once");
        assertEquals(List.of(), deadLetters.asked, "ids are not looked up as a group");
    }

    @Test
    void aGroupActsOnItsOpenRowsAndSaysWhenItMayHoldMore() throws SQLException {
        deadLetters.groups.put("billing/BILLING0107E", List.of(7L, 8L));
        Result small = bulk.apply(Action.DISCARD, Selection.ofGroup("billing", "BILLING0107E"), NO_ROUTES, "ann",
                this::report);
        assertEquals(List.of("discard 7 by ann", "discard 8 by ann"), redrives.calls);
        assertEquals(2, small.selected());
        assertEquals(2, small.done());
        assertFalse(small.moreInGroup());
        assertEquals(List.of("billing/BILLING0107E/" + InboxDeadLetters.MAX_BULK), deadLetters.asked);

        deadLetters.groups.put("analytics/other",
                LongStream.rangeClosed(1, InboxDeadLetters.MAX_BULK + 5).boxed().toList());
        Result full = bulk.apply(Action.DISCARD, Selection.ofGroup("analytics", "other"), NO_ROUTES, "ann",
                this::report);
        assertEquals(InboxDeadLetters.MAX_BULK, full.selected());
        assertEquals(InboxDeadLetters.MAX_BULK, full.done());
        assertTrue(full.moreInGroup(), "a full page may have more behind it");
    }

    @Test
    void refusalsAreCountedByTheirMessageIdWithTheFirstAsExampleAndTakenRowsApart() throws SQLException {
        redrives.statuses.putAll(Map.of(1L, Status.NOT_OPEN, 2L, Status.TAKEN, 4L, Status.NOT_OPEN,
                5L, Status.NO_PAYLOAD, 6L, Status.NOT_FOUND));
        Result result = bulk.apply(Action.REDRIVE, Selection.ofIds(List.of(1L, 2L, 3L, 4L, 5L, 6L)), NO_ROUTES,
                "ann", this::report);

        assertEquals(1, result.done());
        assertEquals(1, result.alreadyTaken());
        assertEquals(Map.of(
                "BILLING0244E", new Refusal(2, "BILLING0244E: Dead letter 1 was already discarded by ann."),
                "BILLING0248E", new Refusal(1, "BILLING0248E: Dead letter 5 cannot be re-driven from this service."),
                "NOT_FOUND", new Refusal(1, "no such row")), result.refused());
        assertEquals(List.of("BILLING0244E", "BILLING0248E", "NOT_FOUND"), List.copyOf(result.refused().keySet()));
        assertEquals(4, result.refusedCount());
        assertEquals(0, result.notTried());
    }

    @Test
    void afterAFailedSendTheRestIsNotTried() throws SQLException {
        redrives.statuses.put(2L, Status.SEND_FAILED);
        Result result = bulk.apply(Action.REDRIVE, Selection.ofIds(List.of(1L, 2L, 3L, 4L)), NO_ROUTES, "ann",
                this::report);

        assertEquals(List.of("redrive 1 aimed by ann", "redrive 2 aimed by ann"), redrives.calls);
        assertEquals(1, result.done());
        assertEquals(Map.of("BILLING0203W", new Refusal(1, "BILLING0203W: Re-drive of dead letter 2 failed.")),
                result.refused());
        assertEquals(2, result.notTried());
        assertEquals(4, result.selected());
    }

    @Test
    void aRefusalWithoutTextIsCountedUnderItsStatus() throws SQLException {
        redrives.statuses.put(1L, Status.CHANGED);
        Result result = bulk.apply(Action.DISCARD, Selection.ofIds(List.of(1L)), NO_ROUTES, "ann", outcome -> null);

        assertEquals(Map.of("CHANGED", new Refusal(1, "CHANGED")), result.refused());
    }

    @Test
    void aSelectionOfIdsHoldsOneToTheMostDistinctIdsEachAboveZero() {
        assertEquals(List.of(5L, 2L), Selection.ofIds(List.of(5L, 2L, 5L)).ids());
        assertEquals(InboxDeadLetters.MAX_BULK, Selection.ofIds(LongStream.rangeClosed(1, InboxDeadLetters.MAX_BULK)
                .boxed().toList()).ids().size());
        assertThrows(IllegalArgumentException.class, () -> Selection.ofIds(List.of()));
        assertThrows(IllegalArgumentException.class, () -> Selection.ofIds(LongStream.rangeClosed(1,
                InboxDeadLetters.MAX_BULK + 1).boxed().toList()));
        assertThrows(IllegalArgumentException.class, () -> Selection.ofIds(List.of(1L, 0L)));
        assertThrows(NullPointerException.class, () -> Selection.ofIds(java.util.Arrays.asList(1L, null)));
        assertThrows(IllegalArgumentException.class, () -> Selection.ofGroup("billing", ""));
        assertThrows(IllegalArgumentException.class, () -> Selection.ofGroup(null, "other"));
        assertFalse(Selection.ofIds(List.of(1L)).byGroup());
        assertTrue(Selection.ofGroup("billing", "other").byGroup());
    }

    @Test
    void aDatabaseFailureEndsTheCallLeavingTheRestUntouched() {
        redrives.unreadable = 2;
        assertThrows(SQLException.class, () -> bulk.apply(Action.REDRIVE, Selection.ofIds(List.of(1L, 2L, 3L)),
                NO_ROUTES, "ann", this::report));
        assertEquals(List.of("redrive 1 aimed by ann", "redrive 2 aimed by ann"), redrives.calls);
    }
}
