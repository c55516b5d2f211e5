package io.github.jakartainbox.inbox.delivery;

import io.github.jakartainbox.inbox.deadletter.internal.ParkedEvents;
import io.github.jakartainbox.inbox.deadletter.internal.DeadLetterWriter;
import static io.github.jakartainbox.inbox.delivery.DeliveryFakes.EVENT;
import static io.github.jakartainbox.inbox.delivery.DeliveryFakes.order;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.jakartainbox.inbox.InboxStatistics;
import io.github.jakartainbox.inbox.claim.DeliveryStepsFixture;
import io.github.jakartainbox.inbox.spi.DeliveryOutcome;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.eclipse.microprofile.reactive.messaging.Message;
import org.junit.jupiter.api.Test;

/** A delivery outside any transaction: each attempt in a transaction of its own, retries, then a dead letter. */
class OwnTransactionPathTest {

    private final DeliveryFakes.Inbox inbox = new DeliveryFakes.Inbox();
    private final DeliveryFakes.Transactions transactions = new DeliveryFakes.Transactions(inbox);
    private final DeliveryFakes.DeadLetters deadLetters = new DeliveryFakes.DeadLetters();
    private final DeliveryFakes.RedriveTable table = new DeliveryFakes.RedriveTable();
    private final InboxStatistics statistics = new InboxStatistics();
    private final OwnTransactionPath path = new OwnTransactionPath();
    private final AtomicInteger acks = new AtomicInteger();

    OwnTransactionPathTest() {
        path.transactions = transactions;
        path.inbox = inbox;
        path.parked = new ParkedEvents();
        path.deadLetters = new DeadLetterWriter(transactions, deadLetters, path.parked);
        path.statistics = statistics;
        path.steps = DeliveryStepsFixture.steps(statistics);
        path.aims = DeliveryFakes.aims(table, statistics);
    }

    private Object deliver(DeliveryFakes.Call call, DeliveryFakes.Span span) throws Exception {
        return path.deliver(DeliveryFakes.call(DeliveryFakes.billing(3), call, inbox, span));
    }

    @Test
    void aNewEventRunsTheMethodInATransactionOfItsOwnAndIsAcknowledgedAfter() throws Exception {
        DeliveryFakes.Span span = new DeliveryFakes.Span();
        List<Boolean> inTransaction = new java.util.ArrayList<>();
        DeliveryFakes.Call call = new DeliveryFakes.Call(DeliveryFakes.message(order(EVENT), acks), received -> {
            inTransaction.add(transactions.isActive());
            received.ack(); // the inbox keeps the acknowledgement: this one does nothing
            return null;
        });
        deliver(call, span);
        assertEquals(1, call.runs.get());
        assertEquals(List.of(true), inTransaction, "the method ran in the inbox's transaction");
        assertEquals(1, acks.get(), "acknowledged once, after the commit");
        assertEquals(EVENT, span.eventId);
        assertEquals(DeliveryOutcome.PROCESSED, span.outcome);
    }

    @Test
    void aDuplicateSkipsTheMethodAndIsAcknowledged() throws Exception {
        deliver(new DeliveryFakes.Call(DeliveryFakes.message(order(EVENT), acks), received -> null),
                new DeliveryFakes.Span());
        DeliveryFakes.Span span = new DeliveryFakes.Span();
        DeliveryFakes.Call again = new DeliveryFakes.Call(DeliveryFakes.message(order(EVENT), acks), received -> null);
        deliver(again, span);
        assertEquals(0, again.runs.get(), "skipped");
        assertEquals(2, acks.get(), "both acknowledged");
        assertEquals(DeliveryOutcome.DUPLICATE, span.outcome);
        assertTrue(deadLetters.rows.isEmpty());
    }

    @Test
    void aFailureIsRetriedThenDeadLetteredAndAcknowledged() throws Exception {
        DeliveryFakes.Span span = new DeliveryFakes.Span();
        DeliveryFakes.Call call = new DeliveryFakes.Call(DeliveryFakes.message(order(EVENT), acks), received -> {
            throw new NumberFormatException("For input string: \"x\"");
        });
        deliver(call, span);
        assertEquals(3, call.runs.get(), "retry.max-attempts");
        assertEquals(2, span.retries);
        assertEquals(1, deadLetters.rows.size());
        assertTrue(deadLetters.rows.get(0).startsWith("billing/" + EVENT + "/3/INBOX0228E"), deadLetters.rows.get(0));
        assertTrue(inbox.rows.isEmpty(), "every attempt's claim rolled back with it");
        assertEquals(1, acks.get(), "acknowledged once the dead letter was recorded");
        assertEquals(DeliveryOutcome.DEAD_LETTERED, span.outcome);
    }

    @Test
    void aDeliveryWithoutAUsableEventIdIsDeadLetteredWithoutARun() throws Exception {
        DeliveryFakes.Span span = new DeliveryFakes.Span();
        DeliveryFakes.Call call = new DeliveryFakes.Call(DeliveryFakes.message("{\"order_id\":\"o-2\"}", acks),
                received -> null);
        deliver(call, span);
        assertEquals(0, call.runs.get());
        assertEquals(1, deadLetters.rows.size());
        assertTrue(deadLetters.rows.get(0).startsWith("billing/null/0/"), deadLetters.rows.get(0));
        assertTrue(inbox.claims.isEmpty(), "nothing claimed");
        assertEquals(1, acks.get());
        assertEquals(DeliveryOutcome.DEAD_LETTERED, span.outcome);
    }

    @Test
    void aRedriveAimedAtAnotherConsumerThatTheDatabaseConfirmsIsSkippedAndAcknowledged() throws Exception {
        table.confirms = true;
        DeliveryFakes.Span span = new DeliveryFakes.Span();
        Message<String> aimed = DeliveryFakes.aimed(order(EVENT), "analytics", "42", acks);
        DeliveryFakes.Call call = new DeliveryFakes.Call(aimed, received -> null);
        deliver(call, span);
        assertEquals(0, call.runs.get());
        assertTrue(inbox.claims.isEmpty(), "no claim");
        assertEquals(1, acks.get());
        assertEquals(1, statistics.redrivesForOthersSkipped("billing"));
        assertEquals(DeliveryOutcome.AIMED_ELSEWHERE, span.outcome);
    }

    @Test
    void aRedriveAimTheDatabaseDoesNotConfirmIsProcessedAsAnyOther() throws Exception {
        table.confirms = false;
        DeliveryFakes.Span span = new DeliveryFakes.Span();
        DeliveryFakes.Call call = new DeliveryFakes.Call(DeliveryFakes.aimed(order(EVENT), "analytics", "42", acks),
                received -> null);
        deliver(call, span);
        assertEquals(1, call.runs.get());
        assertEquals(List.of(EVENT), inbox.claims);
        assertEquals(0, statistics.redrivesForOthersSkipped("billing"));
        assertEquals(1, statistics.redriveAimRejected("billing") - 1, "its rejection was counted");
        assertEquals(DeliveryOutcome.PROCESSED, span.outcome);
    }
}
