package io.github.jakartainbox.inbox.kafka;

import io.github.jakartainbox.inbox.deadletter.internal.ParkedEvents;
import static io.github.jakartainbox.inbox.delivery.DeliveryFakes.EVENT;
import static io.github.jakartainbox.inbox.delivery.DeliveryFakes.order;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.jakartainbox.inbox.InboxStatistics;
import io.github.jakartainbox.inbox.delivery.DeliveryFakes;
import io.github.jakartainbox.inbox.delivery.RedriveAims;
import io.github.jakartainbox.inbox.spi.DeliveryOutcome;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.eclipse.microprofile.reactive.messaging.Message;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** A delivery of a group the connector runs in one transaction: never retried here, a failure fails the group. */
class GroupPathTest {

    private final DeliveryFakes.Inbox inbox = new DeliveryFakes.Inbox();
    private final DeliveryFakes.Transactions transactions = new DeliveryFakes.Transactions(inbox);
    private final InboxStatistics statistics = new InboxStatistics();
    private final GroupPath path = new GroupPath();
    private final AtomicInteger acks = new AtomicInteger();
    private final DeliveryGroup group = new DeliveryGroup();

    GroupPathTest() {
        path.transactions = transactions;
        path.inbox = inbox;
        path.statistics = statistics;
        path.aims = new RedriveAims();
        path.parked = new ParkedEvents();
        transactions.active = true;
        group.enter();
        group.at(0);
    }

    @AfterEach
    void leave() {
        group.leave();
    }

    private Object deliver(DeliveryFakes.Call call, DeliveryFakes.Span span) {
        return path.deliver(DeliveryFakes.call(DeliveryFakes.billing(3), call, inbox, span));
    }

    @Test
    void itEnclosesOnlyADeliveryInsideAGroupsActiveTransaction() {
        assertTrue(path.encloses());
        transactions.active = false;
        assertFalse(path.encloses(), "the group's transaction is rolling back: the caller's path");
        transactions.active = true;
        group.leave();
        assertFalse(path.encloses(), "no group on this thread");
    }

    @Test
    void aNewEventRunsTheMethodAndIsSettledForTheGroupsCommit() {
        DeliveryFakes.Span span = new DeliveryFakes.Span();
        DeliveryFakes.Call call = new DeliveryFakes.Call(DeliveryFakes.message(order(EVENT), acks), received -> null);
        assertNull(deliver(call, span));
        assertEquals(1, call.runs.get());
        assertEquals(List.of(EVENT), inbox.claims);
        assertEquals(0, transactions.begun, "the group's transaction, no other");
        assertEquals(1, acks.get(), "settled; the connector commits the offset with the group");
        assertNull(group.failure());
        assertEquals(DeliveryOutcome.PROCESSED, span.outcome);
    }

    @Test
    void aDuplicateIsSkippedSettledAndCountedOnlyOnceTheGroupCommitted() {
        inbox.rows.add("billing/" + EVENT);
        DeliveryFakes.Span span = new DeliveryFakes.Span();
        DeliveryFakes.Call call = new DeliveryFakes.Call(DeliveryFakes.message(order(EVENT), acks), received -> null);
        deliver(call, span);
        assertEquals(0, call.runs.get());
        assertEquals(1, acks.get());
        assertNull(group.failure());
        assertEquals(DeliveryOutcome.DUPLICATE, span.outcome);
    }

    @Test
    void aFailureIsReportedToTheGroupNotThrownNorRetried() {
        IllegalStateException failure = new IllegalStateException("the method failed");
        DeliveryFakes.Span span = new DeliveryFakes.Span();
        DeliveryFakes.Call call = new DeliveryFakes.Call(DeliveryFakes.message(order(EVENT), acks), received -> {
            throw failure;
        });
        deliver(call, span);
        assertEquals(1, call.runs.get(), "no retry: the group rolls back and is delivered again one by one");
        assertSame(failure, group.failure());
        assertEquals(DeliveryOutcome.RETRIED, span.outcome);
        assertEquals(1, acks.get(), "settled in the group, whose rollback leaves the offset where it was");
    }

    @Test
    void aDeliveryWithoutAUsableEventIdFailsTheGroupForTheOneByOnePathToDeadLetterIt() {
        DeliveryFakes.Call call = new DeliveryFakes.Call(DeliveryFakes.message("{\"order_id\":\"o-2\"}", acks),
                received -> null);
        deliver(call, new DeliveryFakes.Span());
        assertEquals(0, call.runs.get());
        assertTrue(group.failure() != null, "reported to the group");
        assertTrue(inbox.claims.isEmpty());
    }

    @Test
    void aGroupClaimedInOneStatementTakesEachDeliverysReadAheadResult() {
        AtomicInteger acked = new AtomicInteger();
        Message<String> first = DeliveryFakes.message(order(EVENT), acked);
        Message<String> second = DeliveryFakes.message(order("0190b7a0-2222-7222-8333-444455556666"), acked);
        inbox.rows.add("billing/0190b7a0-2222-7222-8333-444455556666");
        DeliveryGroup claimed = new DeliveryGroup(List.of(first, second), true);
        group.leave();
        claimed.enter();
        try {
            DeliveryFakes.Span[] spans = {new DeliveryFakes.Span(), new DeliveryFakes.Span()};
            List<Message<String>> messages = List.of(first, second);
            for (int i = 0; i < 2; i++) {
                claimed.at(i);
                DeliveryFakes.Call call = new DeliveryFakes.Call(messages.get(i), received -> null);
                path.deliver(DeliveryFakes.call(DeliveryFakes.billing(3), call, inbox, spans[i]));
            }
            assertEquals(2, inbox.claims.size(), "both claimed at the first delivery, once");
            assertEquals(DeliveryOutcome.PROCESSED, spans[0].outcome);
            assertEquals(DeliveryOutcome.DUPLICATE, spans[1].outcome);
            assertNull(claimed.failure());
        } finally {
            claimed.leave();
        }
    }
}
