package io.github.jakartainbox.inbox.jms;

import io.github.jakartainbox.inbox.deadletter.internal.ParkedEvents;
import io.github.jakartainbox.inbox.deadletter.internal.DeadLetterWriter;
import static io.github.jakartainbox.inbox.delivery.DeliveryFakes.EVENT;
import static io.github.jakartainbox.inbox.delivery.DeliveryFakes.order;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.jakartainbox.inbox.InboxStatistics;
import io.github.jakartainbox.inbox.claim.ClaimKey;
import io.github.jakartainbox.inbox.claim.DeliveryStepsFixture;
import io.github.jakartainbox.inbox.consumer.ConsumerSettings;
import io.github.jakartainbox.inbox.delivery.DeliveryCall;
import io.github.jakartainbox.inbox.delivery.DeliveryFakes;
import io.github.jakartainbox.inbox.incoming.Delivery;
import io.github.jakartainbox.inbox.spi.DeliveryOutcome;
import io.github.jakartainbox.testing.FakeInvocation;
import io.github.jakartainbox.testing.FakeTransactions;
import jakarta.jms.Message;
import jakarta.jms.MessageListener;
import jakarta.jms.TextMessage;
import jakarta.transaction.Status;
import java.lang.reflect.Proxy;
import java.util.List;
import java.util.concurrent.Callable;
import org.junit.jupiter.api.Test;

/**
 * A message-driven bean's delivery, in the bean's transaction: a failure marks it rollback-only for the provider to
 * redeliver, and the delivery after the policy's verdict records the dead letter.
 */
class JmsDeliveriesTest {

    /** A message-driven bean. */
    static class Bean implements MessageListener {
        @Override
        public void onMessage(Message message) {
        }
    }

    /** The intercepted {@code onMessage}: counts its runs, which do what the test says. */
    private static final class OnMessage extends FakeInvocation {

        OnMessage(TextMessage message, Callable<Object> body) {
            super(new Bean(), method(Bean.class, "onMessage", Message.class), new Object[] {message},
                    parameters -> body.call());
        }
    }

    private final DeliveryFakes.Inbox inbox = new DeliveryFakes.Inbox();
    private final DeliveryFakes.Transactions transactions = new DeliveryFakes.Transactions(inbox);
    private final DeliveryFakes.DeadLetters deadLetters = new DeliveryFakes.DeadLetters();
    private final FakeTransactions registry = FakeTransactions.active();
    private final JmsDeliveries path = new JmsDeliveries();
    private final ConsumerSettings billing = DeliveryFakes.billing(2);

    JmsDeliveriesTest() {
        InboxStatistics statistics = new InboxStatistics();
        transactions.active = true;
        path.transactions = transactions;
        path.inbox = inbox;
        path.parked = new ParkedEvents();
        path.deadLetters = new DeadLetterWriter(transactions, deadLetters, path.parked);
        path.statistics = statistics;
        path.steps = DeliveryStepsFixture.steps(statistics);
        path.registry = registry;
    }

    /** A TextMessage stand-in: its body and message id; nothing else is set. */
    private static TextMessage text(String body, String messageId) {
        return (TextMessage) Proxy.newProxyInstance(JmsDeliveriesTest.class.getClassLoader(),
                new Class<?>[] {TextMessage.class}, (proxy, method, args) -> switch (method.getName()) {
                    case "getText" -> body;
                    case "getJMSMessageID" -> messageId;
                    case "getJMSRedelivered", "propertyExists" -> false;
                    case "hashCode" -> System.identityHashCode(proxy);
                    case "equals" -> proxy == args[0];
                    case "toString" -> "TextMessage " + messageId;
                    default -> throw new UnsupportedOperationException(method.getName());
                });
    }

    private Object deliver(OnMessage call, DeliveryFakes.Span span) throws Exception {
        Delivery delivery = Delivery.of(call.getMethod(), call.getParameters());
        return path.deliver(new DeliveryCall(call, billing, delivery, span, ClaimKey.of(billing, delivery, inbox)));
    }

    @Test
    void itTakesTheDeliveriesOfAMessageDrivenBean() {
        OnMessage call = new OnMessage(text(order(EVENT), "ID:1"), () -> null);
        assertTrue(path.takes(Delivery.of(call.getMethod(), call.getParameters())));
    }

    @Test
    void aNewEventRunsTheBeanInItsTransactionAndWatchesTheCommit() throws Exception {
        DeliveryFakes.Span span = new DeliveryFakes.Span();
        OnMessage call = new OnMessage(text(order(EVENT), "ID:1"), () -> null);
        deliver(call, span);
        assertEquals(1, call.runs.get());
        assertEquals(List.of(EVENT), inbox.claims);
        assertEquals(1, registry.synchronizations.size(), "a commit that fails after the method counts as an attempt");
        assertFalse(registry.getRollbackOnly());
        assertEquals(DeliveryOutcome.PROCESSED, span.outcome);
    }

    @Test
    void aDuplicateIsConsumedWithoutARun() throws Exception {
        deliver(new OnMessage(text(order(EVENT), "ID:1"), () -> null), new DeliveryFakes.Span());
        DeliveryFakes.Span span = new DeliveryFakes.Span();
        OnMessage again = new OnMessage(text(order(EVENT), "ID:2"), () -> null);
        assertNull(deliver(again, span));
        assertEquals(0, again.runs.get());
        assertFalse(registry.getRollbackOnly(), "consumed");
        assertEquals(DeliveryOutcome.DUPLICATE, span.outcome);
    }

    @Test
    void aFailureRollsTheBeanBackUntilThePolicyDecidesThenTheNextDeliveryDeadLetters() throws Exception {
        TextMessage message = text(order(EVENT), "ID:7");
        for (int attempt = 1; attempt <= 2; attempt++) {
            inbox.rows.clear(); // the container rolled the bean's transaction back, the claim with it
            registry.status = Status.STATUS_ACTIVE;
            DeliveryFakes.Span span = new DeliveryFakes.Span();
            OnMessage call = new OnMessage(message, () -> {
                throw new NumberFormatException("For input string: \"x\"");
            });
            assertNull(deliver(call, span), "not thrown: the container must not log it as a system exception");
            assertTrue(registry.getRollbackOnly(), "attempt " + attempt + " rolled back: the provider redelivers it");
            assertEquals(DeliveryOutcome.RETRIED, span.outcome);
        }
        inbox.rows.clear();
        registry.status = Status.STATUS_ACTIVE;
        DeliveryFakes.Span span = new DeliveryFakes.Span();
        OnMessage last = new OnMessage(message, () -> null);
        deliver(last, span);
        assertEquals(0, last.runs.get(), "the verdict was kept: no third run");
        assertEquals(1, deadLetters.rows.size());
        assertTrue(deadLetters.rows.get(0).startsWith("billing/" + EVENT + "/2/"), deadLetters.rows.get(0));
        assertTrue(deadLetters.rows.get(0).startsWith("billing/" + EVENT + "/2/INBOX0228E: "),
                "the reason starts with a message id, as a Kafka consumer's does: " + deadLetters.rows.get(0));
        assertFalse(registry.getRollbackOnly(), "consumed once recorded");
        assertEquals(DeliveryOutcome.DEAD_LETTERED, span.outcome);
    }

    @Test
    void withoutATransactionItRefusesTheDelivery() {
        transactions.active = false;
        OnMessage call = new OnMessage(text(order(EVENT), "ID:1"), () -> null);
        IllegalStateException refused = assertThrows(IllegalStateException.class,
                () -> deliver(call, new DeliveryFakes.Span()));
        assertTrue(refused.getMessage().startsWith("INBOX0706E"), refused.getMessage());
        assertEquals(0, call.runs.get());
    }
}
