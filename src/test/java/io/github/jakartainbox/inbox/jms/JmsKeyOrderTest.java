package io.github.jakartainbox.inbox.jms;

import io.github.jakartainbox.inbox.deadletter.internal.DeadLetterWriter;
import static io.github.jakartainbox.inbox.delivery.DeliveryFakes.order;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.jakartainbox.inbox.InboxStatistics;
import io.github.jakartainbox.inbox.claim.ClaimKey;
import io.github.jakartainbox.inbox.claim.DeliveryStepsFixture;
import io.github.jakartainbox.inbox.consumer.ConsumerSettings;
import io.github.jakartainbox.inbox.deadletter.internal.ParkedEvents;
import io.github.jakartainbox.inbox.delivery.DeliveryCall;
import io.github.jakartainbox.inbox.delivery.DeliveryFakes;
import io.github.jakartainbox.inbox.incoming.Delivery;
import io.github.jakartainbox.inbox.incoming.KeyedRecord;
import io.github.jakartainbox.inbox.incoming.SequenceRedrive;
import io.github.jakartainbox.testing.FakeInvocation;
import io.github.jakartainbox.testing.FakeTransactions;
import jakarta.jms.BytesMessage;
import jakarta.jms.Message;
import jakarta.jms.MessageListener;
import jakarta.jms.TextMessage;
import jakarta.transaction.Status;
import java.lang.reflect.Proxy;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import org.junit.jupiter.api.Test;

/**
 * Dead-letter order by key for a message-driven bean, without a server: the key is a JMS property; a message of a key
 * with an open sequence is parked in the bean's transaction (not claimed, not passed to the method, consumed); a dead
 * letter of a keyed message opens its key's sequence; a sequence's own re-drive is not parked and reports how each
 * delivery ended; a parked message is made again with its body, typed properties and header fields.
 */
class JmsKeyOrderTest {

    /** A message-driven bean. */
    static class Bean implements MessageListener {
        @Override
        public void onMessage(Message message) {
        }
    }

    /** The intercepted {@code onMessage}. */
    private static final class OnMessage extends FakeInvocation {
        OnMessage(Message message, Callable<Object> body) {
            super(new Bean(), method(Bean.class, "onMessage", Message.class), new Object[] {message},
                    parameters -> body.call());
        }
    }

    /** The sequences in memory: keys with an open sequence, what was parked or opened, how many checks ran. */
    static final class Sequences extends ParkedEvents {
        final Set<String> open = new HashSet<>();
        final List<KeyedRecord> parkedRecords = new ArrayList<>();
        final List<String> opened = new ArrayList<>();
        int checks;

        @Override
        public boolean mayHaveOpen(String consumer) {
            return !open.isEmpty();
        }

        @Override
        public boolean parkIfOpen(String consumer, String eventId, KeyedRecord record, Delivery delivery,
                                  Long redriveOf) {
            checks++;
            if (!open.contains(record.key())) {
                return false;
            }
            parkedRecords.add(record);
            return true;
        }

        @Override
        public void open(String consumer, long deadLetterId, String eventId, KeyedRecord record, Delivery delivery) {
            opened.add(record.key() + "#" + deadLetterId + "@" + record.location());
            open.add(record.key());
        }
    }

    private static final String ID_1 = "0190b7a0-1111-7222-8333-000000000001";
    private static final String ID_2 = "0190b7a0-1111-7222-8333-000000000002";

    private final DeliveryFakes.Inbox inbox = new DeliveryFakes.Inbox();
    private final DeliveryFakes.Transactions transactions = new DeliveryFakes.Transactions(inbox);
    private final DeliveryFakes.DeadLetters deadLetters = new DeliveryFakes.DeadLetters();
    private final FakeTransactions registry = FakeTransactions.active();
    private final Sequences sequences = new Sequences();
    private final JmsDeliveries path = new JmsDeliveries();
    private final ConsumerSettings billing;

    JmsKeyOrderTest() {
        InboxStatistics statistics = new InboxStatistics();
        transactions.active = true;
        path.transactions = transactions;
        path.inbox = inbox;
        path.statistics = statistics;
        path.steps = DeliveryStepsFixture.steps(statistics);
        path.registry = registry;
        path.parked = sequences;
        path.deadLetters = new DeadLetterWriter(transactions, deadLetters, sequences);
        path.keyProperties.put(FakeInvocation.method(Bean.class, "onMessage", Message.class), "JMSXGroupID");
        ConsumerSettings plain = DeliveryFakes.billing(2);
        billing = new ConsumerSettings(plain.name(), plain.eventIdSource(), plain.maxLength(), plain.failurePolicy(),
                plain.eventTime(), plain.fingerprint(), plain.transactionTimeout(), true);
    }

    /** A TextMessage or BytesMessage stand-in with its body, message id and properties. */
    private static Message message(Object body, String messageId, Map<String, Object> properties) {
        Class<?> type = body instanceof byte[] ? BytesMessage.class : TextMessage.class;
        return (Message) Proxy.newProxyInstance(JmsKeyOrderTest.class.getClassLoader(), new Class<?>[] {type},
                (proxy, method, args) -> switch (method.getName()) {
                    case "getText", "getBody" -> body;
                    case "getJMSMessageID" -> messageId;
                    case "getJMSCorrelationID", "getJMSType" -> null;
                    case "getJMSTimestamp" -> 1_700_000_000_000L;
                    case "getJMSPriority" -> 4;
                    case "getJMSRedelivered" -> false;
                    case "propertyExists" -> properties.containsKey((String) args[0]);
                    case "getObjectProperty" -> properties.get((String) args[0]);
                    case "getPropertyNames" -> Collections.enumeration(properties.keySet());
                    case "hashCode" -> System.identityHashCode(proxy);
                    case "equals" -> proxy == args[0];
                    case "toString" -> "Message " + messageId;
                    default -> throw new UnsupportedOperationException(method.getName());
                });
    }

    private static Message grouped(String eventId, String messageId, String group) {
        Map<String, Object> properties = new LinkedHashMap<>();
        properties.put("JMSXGroupID", group);
        return message(order(eventId), messageId, properties);
    }

    private Object deliver(OnMessage call) throws Exception {
        registry.status = Status.STATUS_ACTIVE;
        Delivery delivery = Delivery.of(call.getMethod(), call.getParameters());
        return path.deliver(new DeliveryCall(call, billing, delivery, new DeliveryFakes.Span(),
                ClaimKey.of(billing, delivery, inbox)));
    }

    @Test
    void aMessageOfAnOpenKeyIsParkedInTheBeansTransactionNotClaimedAndConsumed() throws Exception {
        sequences.open.add("A");
        OnMessage call = new OnMessage(grouped(ID_1, "ID:5", "A"), () -> null);
        assertNull(deliver(call));
        assertEquals(0, call.runs.get(), "the method does not see a parked message");
        assertEquals(List.of(), inbox.claims, "a parked message is not claimed");
        assertFalse(registry.getRollbackOnly(), "consumed: the bean's transaction commits with the parked row");
        KeyedRecord record = sequences.parkedRecords.get(0);
        assertEquals("A", record.key());
        assertEquals("ID:5", record.location(), "JMSMessageID is where it came from");
        assertTrue(record.isMessage());
    }

    @Test
    void anotherKeyAndAMessageWithoutTheKeyPropertyFlowOn() throws Exception {
        sequences.open.add("A");
        OnMessage other = new OnMessage(grouped(ID_1, "ID:1", "B"), () -> null);
        deliver(other);
        OnMessage keyless = new OnMessage(message(order(ID_2), "ID:2", Map.of()), () -> null);
        deliver(keyless);
        assertEquals(1, other.runs.get());
        assertEquals(1, keyless.runs.get());
        assertEquals(1, sequences.checks, "a message without the key property makes no check");
        assertEquals(List.of(), sequences.parkedRecords);
    }

    @Test
    void whileTheConsumerHasNoOpenSequenceNoCheckIsMade() throws Exception {
        OnMessage call = new OnMessage(grouped(ID_1, "ID:1", "A"), () -> null);
        deliver(call);
        assertEquals(1, call.runs.get());
        assertEquals(0, sequences.checks, "the cheap check: no statement");
    }

    @Test
    void aConsumerThatKeepsNoOrderParksNothing() throws Exception {
        sequences.open.add("A");
        ConsumerSettings none = DeliveryFakes.billing(2);
        OnMessage call = new OnMessage(grouped(ID_1, "ID:1", "A"), () -> null);
        Delivery delivery = Delivery.of(call.getMethod(), call.getParameters());
        path.deliver(new DeliveryCall(call, none, delivery, new DeliveryFakes.Span(),
                ClaimKey.of(none, delivery, inbox)));
        assertEquals(1, call.runs.get());
        assertEquals(0, sequences.checks);
    }

    @Test
    void theDeadLetterOfAKeyedMessageOpensItsKeysSequence() throws Exception {
        Message poison = grouped(ID_1, "ID:9", "A");
        for (int attempt = 1; attempt <= 2; attempt++) {
            inbox.rows.clear(); // rolled back with the bean's transaction
            deliver(new OnMessage(poison, () -> {
                throw new IllegalStateException("poison");
            }));
            assertTrue(registry.getRollbackOnly());
        }
        inbox.rows.clear();
        deliver(new OnMessage(poison, () -> null));
        assertEquals(1, deadLetters.rows.size());
        assertEquals(List.of("A#1@ID:9"), sequences.opened);
        OnMessage later = new OnMessage(grouped(ID_2, "ID:10", "A"), () -> null);
        deliver(later);
        assertEquals(0, later.runs.get(), "A's next message waits behind its dead letter");
        assertEquals("ID:10", sequences.parkedRecords.get(0).location());
    }

    @Test
    void aSequencesOwnRedriveIsNotParkedAndReportsHowEachDeliveryEnded() throws Exception {
        sequences.open.add("A");
        SequenceRedrive redrive = new SequenceRedrive("billing", "A");
        OnMessage call = new OnMessage(grouped(ID_1, "ID:1", "A"), () -> null);
        assertEquals(SequenceRedrive.Outcome.PROCESSED, redrive.run(() -> deliver(call)));
        assertEquals(1, call.runs.get());
        assertEquals(SequenceRedrive.Outcome.DUPLICATE,
                redrive.run(() -> deliver(new OnMessage(grouped(ID_1, "ID:1", "A"), () -> null))));
        assertEquals(List.of(), sequences.parkedRecords);
        Message poison = grouped(ID_2, "ID:2", "A");
        SequenceRedrive.Outcome last = null;
        for (int round = 1; round <= 3; round++) {
            inbox.rows.remove("billing/" + ID_2);
            last = redrive.run(() -> deliver(new OnMessage(poison, () -> {
                throw new IllegalStateException("still poison");
            })));
        }
        assertEquals(SequenceRedrive.Outcome.DEAD_LETTERED, last, "the third round records the policy's verdict");
        assertEquals(1L, redrive.deadLetterId());
        assertEquals(List.of(), sequences.opened, "it becomes the new head there, it opens no sequence");
    }

    @Test
    void aParkedMessageIsMadeAgainWithItsBodyTypedPropertiesAndFields() {
        Map<String, Object> properties = new LinkedHashMap<>();
        properties.put("JMSXGroupID", "A");
        properties.put("event_id", ID_1);
        properties.put("attempt", 3);
        properties.put("amount", 12.5d);
        properties.put("urgent", true);
        properties.put("JMSXDeliveryCount", 2);
        KeyedRecord record = JmsMessages.keyed(message("{\"a\":1}", "ID:42", properties), "JMSXGroupID");
        assertEquals("A", record.key());
        Message again = JmsMessages.stored(record, "{\"a\":1}");
        TextMessage text = assertInstanceOf(TextMessage.class, again);
        assertEquals("{\"a\":1}", JmsMessages.body(text));
        assertEquals("ID:42", JmsMessages.messageId(again));
        assertEquals(ID_1, JmsMessages.stringProperty(again, "event_id"));
        assertEquals(3, (Integer) JmsMessages.values(record.headers()).get("attempt"));
        assertEquals(12.5d, (Double) JmsMessages.values(record.headers()).get("amount"));
        assertEquals(Boolean.TRUE, JmsMessages.values(record.headers()).get("urgent"));
        assertEquals(1_700_000_000_000L, JmsMessages.values(record.headers()).get("JMSTimestamp"));
        assertEquals(1, JmsMessages.deliveryCount(again), "a re-drive starts its own count");
        assertFalse(JmsMessages.values(record.headers()).containsKey("JMSXDeliveryCount"));
        assertThrows(UnsupportedOperationException.class, () -> again.acknowledge());

        byte[] bytes = "raw".getBytes(StandardCharsets.UTF_8);
        KeyedRecord binary = JmsMessages.keyed(message(bytes, "ID:43", Map.of("JMSXGroupID", "B")), "JMSXGroupID");
        assertInstanceOf(BytesMessage.class, JmsMessages.stored(binary, bytes));
        assertEquals("raw", new String((byte[]) JmsMessages.body(JmsMessages.stored(binary, bytes)),
                StandardCharsets.UTF_8));
    }

    @Test
    void aMessageWithoutAKeyOrWithoutAnIdKeepsNoOrderOrAPlaceOfItsOwn() {
        assertNull(JmsMessages.keyed(message("x", "ID:1", Map.of()), "JMSXGroupID"));
        assertNull(JmsMessages.keyed(message("x", "ID:1", Map.of("JMSXGroupID", "k".repeat(1001))), "JMSXGroupID"),
                "a key longer than " + KeyedRecord.MAX_KEY_CHARS + " characters keeps no order");
        assertEquals("7", JmsMessages.keyed(message("x", "ID:1", Map.of("order", 7L)), "order").key());
        KeyedRecord one = JmsMessages.keyed(message("x", null, Map.of("JMSXGroupID", "A")), "JMSXGroupID");
        KeyedRecord two = JmsMessages.keyed(message("x", null, Map.of("JMSXGroupID", "A")), "JMSXGroupID");
        assertFalse(one.location().equals(two.location()), "two messages without an id are not taken for one");
    }
}
