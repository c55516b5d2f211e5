package io.github.jakartainbox.inbox.deadletter;

import io.github.jakartainbox.inbox.incoming.Delivery;
import io.github.jakartainbox.inbox.database.InboxTransactions;
import io.github.jakartainbox.inbox.incoming.RedriveAim;
import io.github.jakartainbox.inbox.kafka.KafkaRecordMessage;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.jakartainbox.inbox.deadletter.InboxDeadLetters.ClaimStatus;
import io.github.jakartainbox.inbox.deadletter.InboxDeadLetters.DeadLetter;
import io.github.jakartainbox.inbox.deadletter.InboxDeadLetters.RedriveClaim;
import io.github.jakartainbox.inbox.deadletter.InboxDeadLetters.SentRecord;
import io.github.jakartainbox.inbox.deadletter.InboxRedrives.Route;
import io.github.jakartainbox.inbox.deadletter.InboxRedrives.Status;
import java.nio.charset.StandardCharsets;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The library's re-drive rules ({@link InboxRedrives}), in the order they are checked, over a fake of the dead-letter
 * table: what is refused sends nothing and claims nothing; a claimed re-drive sends once, with the aim in its
 * headers, and marks the row, or gives the claim back. The SQL runs in the Arquillian tests (DeadLetterRedriveIT).
 */
class InboxRedrivesTest {

    private static final OffsetDateTime FIRST_FAILED = OffsetDateTime.parse("2026-12-01T10:00:00Z");
    private static final byte[] ORDER = "{\"event_id\":\"e1\"}".getBytes(StandardCharsets.UTF_8);

    /** The dead-letter table as the rules read it, and the calls that change it. */
    private static final class FakeDeadLetters extends InboxDeadLetters {
        final Map<Long, DeadLetter> rows = new HashMap<>();
        final Map<Long, byte[]> payloads = new HashMap<>();
        final Map<String, OffsetDateTime> processed = new HashMap<>();
        final Map<String, DeadLetter> discardedRows = new HashMap<>();
        ClaimStatus claim = ClaimStatus.CLAIMED;
        boolean markSucceeds = true;
        final List<String> calls = new ArrayList<>();
        String markedTarget;
        SentRecord markedSent;

        @Override
        public Optional<DeadLetter> find(long id) {
            return Optional.ofNullable(rows.get(id));
        }

        @Override
        public Optional<byte[]> payload(long id) {
            return Optional.ofNullable(payloads.get(id));
        }

        @Override
        public Optional<OffsetDateTime> processedAt(String consumer, String eventId) {
            return Optional.ofNullable(processed.get(consumer + "/" + eventId));
        }

        @Override
        public Optional<DeadLetter> discarded(String consumer, String eventId) {
            return Optional.ofNullable(discardedRows.get(consumer + "/" + eventId));
        }

        @Override
        public RedriveClaim claimRedrive(long id, String operator) {
            calls.add("claim " + id + " by " + operator);
            OffsetDateTime now = OffsetDateTime.now();
            return switch (claim) {
                case CLAIMED -> new RedriveClaim(ClaimStatus.CLAIMED, id, operator, now, now.plusMinutes(1), FIRST_FAILED);
                case TAKEN -> new RedriveClaim(ClaimStatus.TAKEN, id, "other", now, now.plusMinutes(1), FIRST_FAILED);
                default -> new RedriveClaim(claim, id, null, null, null, null);
            };
        }

        @Override
        public boolean markRedriven(RedriveClaim claim, String operator, String target, SentRecord sent) {
            calls.add("mark " + claim.id() + " by " + operator);
            markedTarget = target;
            markedSent = sent;
            return markSucceeds;
        }

        /** What a discard finds: {@code null} discards the row; else the row as the refused discard leaves it. */
        DeadLetter afterRefusedDiscard;

        @Override
        public boolean discard(long id, String operator) {
            calls.add("discard " + id + " by " + operator);
            if (afterRefusedDiscard != null) {
                rows.put(id, afterRefusedDiscard);
                return false;
            }
            return true;
        }

        @Override
        public java.time.Duration redriveLease() {
            return java.time.Duration.ofMinutes(1);
        }

        @Override
        public void recordRedriveSent(RedriveClaim claim, String operator, String target, SentRecord sent) {
            calls.add("history " + claim.id() + " sent to " + sent.destination());
        }

        @Override
        public boolean releaseRedrive(RedriveClaim claim) {
            calls.add("release " + claim.id());
            return true;
        }
    }

    /** A JTA transaction as the library runs a transactional send: commits when the work returns. */
    private static final class FakeTransactions extends InboxTransactions {
        final List<String> calls = new ArrayList<>();

        @Override
        public <T> T inOwnTransaction(Callable<T> work) throws Exception {
            calls.add("begin");
            try {
                T result = work.call();
                calls.add("commit");
                return result;
            } catch (Exception e) {
                calls.add("rollback");
                throw e;
            }
        }
    }

    /** A send that records what it was given. */
    private static final class RecordingSender implements InboxRedrives.Sender {
        final List<Map<String, String>> sent = new ArrayList<>();
        Exception failure;

        @Override
        public SentRecord send(DeadLetter letter, byte[] payload, Map<String, String> headers) throws Exception {
            if (failure != null) {
                throw failure;
            }
            sent.add(headers);
            return new SentRecord("orders.confirmed", 2, 41L);
        }
    }

    private FakeDeadLetters table;
    private FakeTransactions transactions;
    private RecordingSender sender;
    private InboxRedrives redrives;
    private Route orders;

    @BeforeEach
    void setUp() {
        table = new FakeDeadLetters();
        transactions = new FakeTransactions();
        sender = new RecordingSender();
        redrives = new InboxRedrives();
        redrives.deadLetters = table;
        redrives.transactions = transactions;
        orders = new Route("orders.confirmed", Set.of("billing", "analytics"), false, false, sender);
    }

    private DeadLetter row(long id, String consumer, String eventId) {
        DeadLetter letter = new DeadLetter(id, consumer, eventId, "BILLING0216E: bad amount", 3, FIRST_FAILED,
                FIRST_FAILED, null, null, null, ORDER.length, false, 1, null, null);
        table.rows.put(id, letter);
        table.payloads.put(id, ORDER);
        return letter;
    }

    private Optional<Route> routes(String consumer) {
        return orders.readers().contains(consumer) ? Optional.of(orders) : Optional.empty();
    }

    private InboxRedrives.Outcome redrive(long id, boolean aimed) throws Exception {
        return redrives.redrive(id, this::routes, aimed, "alice");
    }

    private void assertNothingSentOrClaimed(InboxRedrives.Outcome outcome, Status expected) {
        assertEquals(expected, outcome.status(), outcome.toString());
        assertTrue(table.calls.isEmpty(), "no claim, no mark: " + table.calls);
        assertTrue(sender.sent.isEmpty(), "nothing sent");
    }

    @Test
    void anAimedReDriveSendsOnceWithTheTargetInItsHeadersAndMarksTheRowWithWhereItWent() throws Exception {
        row(7, "analytics", "e1");
        InboxRedrives.Outcome outcome = redrive(7, true);
        assertEquals(Status.REDRIVEN, outcome.status(), outcome.toString());
        assertEquals(List.of(Map.of(InboxDeadLetters.REDRIVE_DEAD_LETTER_HEADER, "7",
                InboxDeadLetters.REDRIVE_CONSUMER_HEADER, "analytics")), sender.sent);
        assertEquals(List.of("claim 7 by alice", "mark 7 by alice"), table.calls);
        assertEquals("analytics", table.markedTarget, "the history names the consumer aimed at");
        assertEquals(new SentRecord("orders.confirmed", 2, 41L), table.markedSent);
        assertTrue(transactions.calls.isEmpty(), "a Kafka send runs in no transaction");
    }

    @Test
    void aMissingRowAnOpenOneAndAForeignConsumerAreRefusedFirst() throws Exception {
        assertNothingSentOrClaimed(redrive(1, true), Status.NOT_FOUND);
        DeadLetter discarded = new DeadLetter(2, "billing", "e2", "x", 1, FIRST_FAILED, FIRST_FAILED, null,
                FIRST_FAILED, "bob", 2, false, 1, null, null);
        table.rows.put(2L, discarded);
        InboxRedrives.Outcome notOpen = redrive(2, true);
        assertNothingSentOrClaimed(notOpen, Status.NOT_OPEN);
        assertEquals("bob", notOpen.letter().resolvedBy(), "the outcome says who resolved it");
        row(3, "shipping", "e3");
        assertNothingSentOrClaimed(redrive(3, true), Status.UNKNOWN_CONSUMER);
    }

    @Test
    void aRowWithoutEventIdOrPayloadIsRefused() throws Exception {
        row(4, "billing", null);
        assertNothingSentOrClaimed(redrive(4, true), Status.NO_EVENT_ID);
        row(5, "billing", "e5");
        table.payloads.remove(5L);
        assertNothingSentOrClaimed(redrive(5, true), Status.NO_PAYLOAD);
    }

    @Test
    void anEventItsConsumerProcessedIsRefusedSayingWhetherBeforeOrAfterTheFailure() throws Exception {
        row(6, "billing", "e6");
        table.processed.put("billing/e6", FIRST_FAILED.plusMinutes(5));
        InboxRedrives.Outcome since = redrive(6, true);
        assertNothingSentOrClaimed(since, Status.PROCESSED_SINCE);
        assertEquals(FIRST_FAILED.plusMinutes(5), since.processedAt());
        table.processed.put("billing/e6", FIRST_FAILED.minusMinutes(5));
        assertNothingSentOrClaimed(redrive(6, true), Status.PROCESSED_BEFORE);
    }

    @Test
    void anotherConsumersDiscardStopsOnlyAReDriveToEveryConsumer() throws Exception {
        row(8, "analytics", "e8");
        DeadLetter billings = new DeadLetter(9, "billing", "e8", "x", 1, FIRST_FAILED, FIRST_FAILED, null,
                FIRST_FAILED, "bob", 2, false, 1, null, null);
        table.discardedRows.put("billing/e8", billings);

        InboxRedrives.Outcome everyone = redrive(8, false);
        assertNothingSentOrClaimed(everyone, Status.DISCARDED_ELSEWHERE);
        assertSame(billings, everyone.otherDiscarded());

        table.processed.put("billing/e8", FIRST_FAILED);
        assertEquals(Status.REDRIVEN, redrive(8, false).status(), "billing processed it: it would skip it anyway");
        assertEquals(Map.of(InboxDeadLetters.REDRIVE_DEAD_LETTER_HEADER, "8"), sender.sent.get(0),
                "a re-drive to every consumer names none");
        assertNull(table.markedTarget);

        table.processed.clear();
        table.rows.put(8L, row(8, "analytics", "e8"));
        assertEquals(Status.REDRIVEN, redrive(8, true).status(),
                "aimed at analytics, billing skips it: its discard stays");
    }

    @Test
    void aTextRouteRefusesAPayloadThatIsNotUtf8() throws Exception {
        orders = new Route("queue", Set.of("billing"), true, false, sender);
        row(10, "billing", "e10");
        table.payloads.put(10L, new byte[] {(byte) 0xC3, 0x28});
        assertNothingSentOrClaimed(redrive(10, true), Status.NOT_TEXT);
        table.payloads.put(10L, "a\0b".getBytes(StandardCharsets.UTF_8));
        assertNothingSentOrClaimed(redrive(10, true), Status.NOT_TEXT);
    }

    @Test
    void aClaimHeldElsewhereSendsNothing() throws Exception {
        row(11, "billing", "e11");
        table.claim = ClaimStatus.TAKEN;
        InboxRedrives.Outcome taken = redrive(11, true);
        assertEquals(Status.TAKEN, taken.status());
        assertEquals("other", taken.claim().claimedBy());
        assertTrue(sender.sent.isEmpty());
        assertEquals(List.of("claim 11 by alice"), table.calls, "neither marked nor released: the claim is not ours");
    }

    @Test
    void aFailedSendGivesTheClaimBackAndLeavesTheRowOpen() throws Exception {
        row(12, "billing", "e12");
        sender.failure = new TimeoutException("broker away");
        InboxRedrives.Outcome failed = redrive(12, true);
        assertEquals(Status.SEND_FAILED, failed.status());
        assertSame(sender.failure, failed.failure());
        assertEquals(List.of("claim 12 by alice", "release 12"), table.calls);
    }

    @Test
    void aRowThatChangedBeforeTheMarkGivesTheClaimBack() throws Exception {
        row(13, "billing", "e13");
        table.markSucceeds = false;
        assertEquals(Status.CHANGED, redrive(13, true).status());
        assertEquals(List.of("claim 13 by alice", "mark 13 by alice", "release 13",
                "history 13 sent to orders.confirmed"), table.calls, "the record went out: its history says so");
    }

    @Test
    void aTransactionalSendAndItsMarkCommitOrRollBackTogether() throws Exception {
        orders = new Route("invoices.issued", Set.of("billing"), true, true, sender);
        row(14, "billing", "e14");
        assertEquals(Status.REDRIVEN, redrive(14, true).status());
        assertEquals(List.of("begin", "commit"), transactions.calls);

        row(15, "billing", "e15");
        table.markSucceeds = false;
        transactions.calls.clear();
        table.calls.clear();
        assertEquals(Status.CHANGED, redrive(15, true).status());
        assertEquals(List.of("begin", "rollback"), transactions.calls, "the send rolls back with the failed mark");
        assertEquals(List.of("claim 15 by alice", "mark 15 by alice", "release 15"), table.calls);
    }

    @Test
    void aDiscardSaysWhetherTheRowWasMissingResolvedOrUnderAReDrive() throws Exception {
        assertEquals(Status.NOT_FOUND, redrives.discard(20, "alice").status());
        DeadLetter open = row(21, "billing", "e21");
        assertEquals(Status.DISCARDED, redrives.discard(21, "alice").status());
        assertEquals(List.of("discard 21 by alice"), table.calls);

        table.calls.clear();
        OffsetDateTime claimedAt = OffsetDateTime.parse("2026-12-01T11:00:00Z");
        table.afterRefusedDiscard = new DeadLetter(21, "billing", "e21", open.error(), 3, FIRST_FAILED, FIRST_FAILED,
                null, null, null, 2, false, 1, claimedAt, "carol");
        InboxRedrives.Outcome taken = redrives.discard(21, "alice");
        assertEquals(Status.TAKEN, taken.status(), "a live re-drive claim: its record may be on its way");
        assertEquals("carol", taken.claim().claimedBy());
        assertEquals(claimedAt.plusMinutes(1), taken.claim().expiresAt(), "the claim expires after the lease");

        table.afterRefusedDiscard = new DeadLetter(21, "billing", "e21", open.error(), 3, FIRST_FAILED, FIRST_FAILED,
                FIRST_FAILED, null, "dave", 2, false, 1, null, null);
        table.rows.put(21L, open);
        InboxRedrives.Outcome resolved = redrives.discard(21, "alice");
        assertEquals(Status.NOT_OPEN, resolved.status(), "re-driven meanwhile");
        assertEquals("dave", resolved.letter().resolvedBy());
        table.calls.clear();
        assertEquals(Status.NOT_OPEN, redrives.discard(21, "alice").status());
        assertTrue(table.calls.isEmpty(), "a resolved row is not tried");
    }

    @Test
    void aPayloadOnlyDeliveryIsAimedThroughTheRecordTheConnectorIsDelivering() {
        ConsumerRecord<Object, Object> record = new ConsumerRecord<>("orders.confirmed", 1, 9L, null, ORDER);
        record.headers().add(InboxDeadLetters.REDRIVE_CONSUMER_HEADER, "analytics".getBytes(StandardCharsets.UTF_8));
        Delivery payloadOnly = new Delivery(ORDER, null, -1);
        assertNull(InboxRedrives.aimedAt(InboxRedrives.carrier(payloadOnly)), "no message, no connector: not aimed");
        RedriveAim.delivering(new KafkaRecordMessage(record).message(), () ->
            assertEquals("analytics", InboxRedrives.aimedAt(InboxRedrives.carrier(payloadOnly)),
                    "inbox-kafka's record on this thread carries the aim"));
    }

    @Test
    void theAimIsReadFromTheRecordsHeader() {
        ConsumerRecord<Object, Object> record = new ConsumerRecord<>("orders.confirmed", 0, 5L, null, ORDER);
        assertNull(InboxRedrives.aimedAt(new KafkaRecordMessage(record).message()), "no header: not aimed");
        record.headers().add(InboxDeadLetters.REDRIVE_CONSUMER_HEADER, "billing".getBytes(StandardCharsets.UTF_8));
        record.headers().add(InboxDeadLetters.REDRIVE_DEAD_LETTER_HEADER, "77".getBytes(StandardCharsets.UTF_8));
        assertEquals("billing", InboxRedrives.aimedAt(new KafkaRecordMessage(record).message()));
        assertEquals("77", InboxRedrives.deadLetterOf(new KafkaRecordMessage(record).message()));
        assertNull(InboxRedrives.aimedAt(org.eclipse.microprofile.reactive.messaging.Message.of("x")),
                "a message that is no Kafka record is not aimed");
        assertNull(InboxRedrives.aimedAt(null));
        assertFalse(InboxRedrives.headers(new DeadLetter(1, "billing", "e", "x", 1, FIRST_FAILED, FIRST_FAILED, null,
                null, null, 1, false, 1, null, null), null).containsKey(InboxDeadLetters.REDRIVE_CONSUMER_HEADER));
    }
}
