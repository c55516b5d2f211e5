package io.github.jakartainbox.inbox.delivery;

import static io.github.jakartainbox.inbox.delivery.DeliveryFakes.EVENT;
import static io.github.jakartainbox.inbox.delivery.DeliveryFakes.order;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.jakartainbox.inbox.InboxStatistics;
import io.github.jakartainbox.inbox.claim.DeliveryStepsFixture;
import io.github.jakartainbox.inbox.spi.DeliveryOutcome;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** A delivery inside its caller's transaction: the claim joins it, failures and acknowledgement are the caller's. */
class CallerTransactionPathTest {

    private final DeliveryFakes.Inbox inbox = new DeliveryFakes.Inbox();
    private final DeliveryFakes.Transactions transactions = new DeliveryFakes.Transactions(inbox);
    private final DeliveryFakes.RedriveTable table = new DeliveryFakes.RedriveTable();
    private final InboxStatistics statistics = new InboxStatistics();
    private final CallerTransactionPath path = new CallerTransactionPath();
    private final AtomicInteger acks = new AtomicInteger();

    CallerTransactionPathTest() {
        transactions.active = true;
        path.inbox = inbox;
        path.statistics = statistics;
        path.steps = DeliveryStepsFixture.steps(statistics);
        path.aims = DeliveryFakes.aims(table, statistics);
        path.own = new OwnTransactionPath();
    }

    private Object deliver(DeliveryFakes.Call call, DeliveryFakes.Span span) throws Exception {
        return path.deliver(DeliveryFakes.call(DeliveryFakes.billing(3), call, inbox, span));
    }

    @Test
    void aNewEventRunsTheMethodInTheCallersTransactionAndLeavesTheAcknowledgementToIt() throws Exception {
        DeliveryFakes.Span span = new DeliveryFakes.Span();
        DeliveryFakes.Call call = new DeliveryFakes.Call(DeliveryFakes.message(order(EVENT), acks), received -> "done");
        assertEquals("done", deliver(call, span));
        assertEquals(1, call.runs.get());
        assertEquals(List.of(EVENT), inbox.claims);
        assertEquals(0, transactions.begun, "no transaction of the inbox's own");
        assertEquals(0, acks.get());
        assertEquals(DeliveryOutcome.PROCESSED, span.outcome);
    }

    @Test
    void aDuplicateSkipsTheMethod() throws Exception {
        deliver(new DeliveryFakes.Call(DeliveryFakes.message(order(EVENT), acks), received -> null),
                new DeliveryFakes.Span());
        DeliveryFakes.Span span = new DeliveryFakes.Span();
        DeliveryFakes.Call again = new DeliveryFakes.Call(DeliveryFakes.message(order(EVENT), acks), received -> "x");
        assertNull(deliver(again, span));
        assertEquals(0, again.runs.get());
        assertEquals(DeliveryOutcome.DUPLICATE, span.outcome);
    }

    @Test
    void aFailureGoesToTheContainerUntouched() {
        IllegalStateException failure = new IllegalStateException("the method failed");
        DeliveryFakes.Call call = new DeliveryFakes.Call(DeliveryFakes.message(order(EVENT), acks), received -> {
            throw failure;
        });
        assertSame(failure, assertThrows(IllegalStateException.class, () -> deliver(call, new DeliveryFakes.Span())));
        assertEquals(1, call.runs.get(), "no retry: the caller's transaction rolls back");
        assertEquals(0, acks.get());
    }

    @Test
    void anUnusableEventIdGoesToTheContainerToo() {
        DeliveryFakes.Call call = new DeliveryFakes.Call(DeliveryFakes.message("{\"order_id\":\"o-2\"}", acks),
                received -> null);
        assertThrows(RuntimeException.class, () -> deliver(call, new DeliveryFakes.Span()));
        assertEquals(0, call.runs.get());
        assertTrue(inbox.claims.isEmpty());
    }

    @Test
    void aConfirmedRedriveForAnotherConsumerIsSkippedWithoutAClaim() throws Exception {
        table.confirms = true;
        DeliveryFakes.Span span = new DeliveryFakes.Span();
        DeliveryFakes.Call call = new DeliveryFakes.Call(DeliveryFakes.aimed(order(EVENT), "analytics", "42", acks),
                received -> null);
        assertNull(deliver(call, span));
        assertEquals(0, call.runs.get());
        assertTrue(inbox.claims.isEmpty());
        assertEquals(1, statistics.redrivesForOthersSkipped("billing"));
        assertEquals(0, acks.get(), "acknowledged by the transaction's owner");
        assertEquals(DeliveryOutcome.AIMED_ELSEWHERE, span.outcome);
    }

    @Test
    void anUnconfirmedRedriveAimIsProcessed() throws Exception {
        DeliveryFakes.Call call = new DeliveryFakes.Call(DeliveryFakes.aimed(order(EVENT), "analytics", "42", acks),
                received -> null);
        deliver(call, new DeliveryFakes.Span());
        assertEquals(1, call.runs.get());
        assertEquals(0, statistics.redrivesForOthersSkipped("billing"));
    }
}
