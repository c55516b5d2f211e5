package io.github.jakartainbox.inbox.delivery;

import io.github.jakartainbox.inbox.deadletter.internal.DeadLetterWriter;
import static io.github.jakartainbox.inbox.delivery.DeliveryFakes.order;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.jakartainbox.inbox.InboxStatistics;
import io.github.jakartainbox.inbox.claim.DeliveryStepsFixture;
import io.github.jakartainbox.inbox.consumer.ConsumerSettings;
import io.github.jakartainbox.inbox.deadletter.internal.ParkedEvents;
import io.github.jakartainbox.inbox.incoming.Delivery;
import io.github.jakartainbox.inbox.incoming.KeyedRecord;
import io.github.jakartainbox.inbox.incoming.SequenceRedrive;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.eclipse.microprofile.reactive.messaging.Message;
import org.junit.jupiter.api.Test;

/**
 * Dead-letter order by key on the per-message path, without a server: a record of a key with an open sequence is
 * parked (not claimed, not passed to the method, acknowledged); a dead letter of a keyed record opens its key's
 * sequence; a sequence's own re-drive is not parked, and reports how each delivery ended.
 */
class KeyOrderPathTest {

    /** The sequences in memory: keys with an open sequence, and what was parked or opened. */
    static final class Sequences extends ParkedEvents {
        final Set<String> open = new HashSet<>();
        final List<String> parkedAt = new ArrayList<>();
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
            parkedAt.add(record.location());
            return true;
        }

        @Override
        public void open(String consumer, long deadLetterId, String eventId, KeyedRecord record, Delivery delivery) {
            opened.add(record.key() + "#" + deadLetterId);
            open.add(record.key());
        }
    }

    private final DeliveryFakes.Inbox inbox = new DeliveryFakes.Inbox();
    private final DeliveryFakes.DeadLetters deadLetters = new DeliveryFakes.DeadLetters();
    private final Sequences sequences = new Sequences();
    private final OwnTransactionPath path = new OwnTransactionPath();
    private final AtomicInteger acks = new AtomicInteger();
    private final ConsumerSettings billing;

    KeyOrderPathTest() {
        InboxStatistics statistics = new InboxStatistics();
        path.transactions = new DeliveryFakes.Transactions(inbox);
        path.inbox = inbox;
        path.deadLetters = new DeadLetterWriter(path.transactions, deadLetters, sequences);
        path.statistics = statistics;
        path.steps = DeliveryStepsFixture.steps(statistics);
        path.aims = DeliveryFakes.aims(new DeliveryFakes.RedriveTable(), statistics);
        path.parked = sequences;
        ConsumerSettings plain = DeliveryFakes.billing(2);
        billing = new ConsumerSettings(plain.name(), plain.eventIdSource(), plain.maxLength(), plain.failurePolicy(),
                plain.eventTime(), plain.fingerprint(), plain.transactionTimeout(), true);
    }

    private Message<String> keyed(String key, long offset, String payload) {
        ConsumerRecord<Object, Object> record = new ConsumerRecord<>("orders", 0, offset, key, payload);
        return new Message<>() {
            @Override
            public String getPayload() {
                return payload;
            }

            @Override
            public java.util.concurrent.CompletionStage<Void> ack() {
                acks.incrementAndGet();
                return CompletableFuture.completedFuture(null);
            }

            @Override
            public <C> C unwrap(Class<C> type) {
                return type.cast(record);
            }
        };
    }

    private DeliveryFakes.Call deliver(ConsumerSettings consumer, Message<String> message, DeliveryFakes.Body body)
            throws Exception {
        DeliveryFakes.Call call = new DeliveryFakes.Call(message, body);
        path.deliver(DeliveryFakes.call(consumer, call, inbox, new DeliveryFakes.Span()));
        return call;
    }

    private static String id(int n) {
        return "0190b7a0-1111-7222-8333-00000000000" + n;
    }

    @Test
    void aRecordOfAnOpenKeyIsParkedNotClaimedAndAcknowledged() throws Exception {
        sequences.open.add("order-7");
        DeliveryFakes.Call call = deliver(billing, keyed("order-7", 12, order(id(1))), m -> null);
        assertEquals(0, call.runs.get(), "the method does not see it");
        assertEquals(List.of("orders-0@12"), sequences.parkedAt);
        assertTrue(inbox.claims.isEmpty(), "not claimed: its re-drive claims it");
        assertEquals(1, acks.get(), "acknowledged: the partition flows on");
    }

    @Test
    void otherKeysAndRecordsWithoutKeyFlow() throws Exception {
        sequences.open.add("order-7");
        DeliveryFakes.Call other = deliver(billing, keyed("order-8", 13, order(id(2))), m -> null);
        DeliveryFakes.Call noKey = deliver(billing, keyed(null, 14, order(id(3))), m -> null);
        assertEquals(1, other.runs.get());
        assertEquals(1, noKey.runs.get());
        assertEquals(1, sequences.checks, "a record without a key is not even looked up");
    }

    @Test
    void noStatementWhileTheConsumerHasNoOpenSequenceOrKeepsNoOrder() throws Exception {
        DeliveryFakes.Call call = deliver(billing, keyed("order-7", 1, order(id(1))), m -> null);
        sequences.open.add("order-7");
        DeliveryFakes.Call plain = deliver(DeliveryFakes.billing(2), keyed("order-7", 2, order(id(2))), m -> null);
        assertEquals(1, call.runs.get());
        assertEquals(1, plain.runs.get(), "dead-letter.order=none: processed as it comes");
        assertEquals(0, sequences.checks);
    }

    @Test
    void aDeadLetterOpensItsKeysSequenceAndTheNextRecordOfTheKeyIsParked() throws Exception {
        deliver(billing, keyed("order-7", 20, order(id(1))), m -> {
            throw new IllegalStateException("poison");
        });
        assertEquals(1, deadLetters.rows.size());
        assertEquals(List.of("order-7#1"), sequences.opened, "headed by the dead letter just written");
        DeliveryFakes.Call next = deliver(billing, keyed("order-7", 21, order(id(2))), m -> null);
        assertEquals(0, next.runs.get());
        assertEquals(List.of("orders-0@21"), sequences.parkedAt);
    }

    @Test
    void theSequencesOwnRedriveIsNotParkedAndReportsItsOutcome() throws Exception {
        sequences.open.add("order-7");
        SequenceRedrive redrive = new SequenceRedrive("billing", "order-7");
        List<DeliveryFakes.Call> calls = new ArrayList<>();
        SequenceRedrive.Outcome processed = redrive.run(() -> calls.add(
                deliver(billing, keyed("order-7", 30, order(id(1))), m -> null)));
        assertEquals(SequenceRedrive.Outcome.PROCESSED, processed);
        assertEquals(1, calls.get(0).runs.get());
        SequenceRedrive.Outcome again = redrive.run(() -> deliver(billing, keyed("order-7", 30, order(id(1))),
                m -> null));
        assertEquals(SequenceRedrive.Outcome.DUPLICATE, again);
        SequenceRedrive.Outcome failed = redrive.run(() -> deliver(billing, keyed("order-7", 31, order(id(2))),
                m -> {
                    throw new IllegalStateException("still poison");
                }));
        assertEquals(SequenceRedrive.Outcome.DEAD_LETTERED, failed);
        assertEquals(1L, redrive.deadLetterId());
        assertTrue(sequences.parkedAt.isEmpty(), "nothing of the re-drive was parked");
        assertTrue(sequences.opened.isEmpty(), "its failure heads the same sequence, no other is opened");
    }
}
