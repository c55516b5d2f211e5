package io.github.jakartainbox.inbox.delivery;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.jakartainbox.inbox.InboxStatistics;
import io.github.jakartainbox.inbox.claim.ClaimKey;
import io.github.jakartainbox.inbox.consumer.ConsumerSettings;
import io.github.jakartainbox.inbox.incoming.Delivery;
import io.github.jakartainbox.inbox.deadletter.InboxDeadLetters;
import io.github.jakartainbox.inbox.eventid.PayloadFieldEventIdSource;
import io.github.jakartainbox.inbox.failure.FailurePolicy;
import io.github.jakartainbox.inbox.failure.RetryPolicy;
import io.github.jakartainbox.inbox.kafka.KafkaRecordMessage;
import java.nio.charset.StandardCharsets;
import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.eclipse.microprofile.reactive.messaging.Message;
import org.junit.jupiter.api.Test;

/** Which aims at another consumer let a consumer skip a record: only those its dead letter confirms. */
class RedriveAimsTest {

    private static final String EVENT = "0190b7a0-1111-7222-8333-444455556666";
    private static final String ORDER = "{\"event_id\":\"" + EVENT + "\",\"order_id\":\"o-1\"}";

    /** The dead-letter table as the check asks it: answers in turn, each call recorded. */
    private static final class Table extends InboxDeadLetters {
        final List<Object> answers = new ArrayList<>();
        final List<String> calls = new ArrayList<>();
        final List<byte[]> digests = new ArrayList<>();
        final List<String> topics = new ArrayList<>();

        @Override
        public boolean confirmsRedriveAim(long id, String consumer, String eventId, byte[] payloadSha256,
                                          String topic) throws SQLException {
            calls.add(id + "/" + consumer + "/" + eventId);
            digests.add(payloadSha256);
            topics.add(topic);
            Object answer = answers.isEmpty() ? Boolean.FALSE : answers.remove(0);
            if (answer instanceof SQLException e) {
                throw e;
            }
            return (Boolean) answer;
        }
    }

    private final Table table = new Table();
    private final InboxStatistics statistics = new InboxStatistics();
    private final RedriveAims aims = new RedriveAims();
    private final ConsumerSettings billing = new ConsumerSettings("billing", new PayloadFieldEventIdSource("event_id"),
            200, new FailurePolicy("billing", new RetryPolicy(3, Duration.ofMillis(1), Duration.ofMillis(5)),
            Duration.ofSeconds(5), Clock.systemUTC()), null, true, null);

    RedriveAimsTest() {
        aims.deadLetters = table;
        aims.statistics = statistics;
    }

    private static Message<?> record(String payload, String aim, String deadLetter) {
        ConsumerRecord<Object, Object> record = new ConsumerRecord<>("orders.confirmed", 0, 7L, null, payload);
        record.headers().add(InboxDeadLetters.REDRIVE_CONSUMER_HEADER, aim.getBytes(StandardCharsets.UTF_8));
        if (deadLetter != null) {
            record.headers().add(InboxDeadLetters.REDRIVE_DEAD_LETTER_HEADER,
                    deadLetter.getBytes(StandardCharsets.UTF_8));
        }
        return new KafkaRecordMessage(record).message();
    }

    private boolean confirmed(Message<?> carrier, boolean inTransaction) throws Exception {
        Delivery delivery = new Delivery(carrier.getPayload(), carrier, 0);
        ClaimKey key = ClaimKey.of(billing, delivery, null);
        return aims.confirmed(billing, key, delivery.fingerprint(), carrier, "analytics", inTransaction);
    }

    @Test
    void anAimTheDatabaseConfirmsIsKept() throws Exception {
        table.answers.add(true);
        assertTrue(confirmed(record(ORDER, "analytics", "42"), false));
        assertEquals(List.of("42/analytics/" + EVENT), table.calls, "asked for the named row, consumer and event id");
        assertArrayEquals(java.security.MessageDigest.getInstance("SHA-256").digest(
                ORDER.getBytes(StandardCharsets.UTF_8)), table.digests.get(0),
                "and the record's payload digest: a record with the row's event id but other bytes is no re-drive");
        assertEquals(List.of("orders.confirmed"), table.topics,
                "and the record's topic: a copy of a re-drive sent to another topic is no re-drive to this one");
        assertEquals(0, statistics.redriveAimRejected("billing") - 1, "nothing counted as rejected");
    }

    /**
     * The aim and dead-letter headers are the producer's: INBOX0105W quotes them escaped and cut. A header holding a
     * newline and a whole forged log line was written as a line of its own, and a 20,000-character one in full.
     */
    @Test
    void theHeadersOfARejectedAimCannotForgeOrFloodLogLines() throws Exception {
        String forged = "x\n[12/7/26, 23:59:59:999 UTC] 00000001 io.github.jakartainbox.inbox E INBOX0999E: FORGED"
                + "\u2028\u202E" + "y".repeat(20_000);
        Message<?> carrier = record(ORDER, forged, "3\nFORGED");
        Delivery delivery = new Delivery(carrier.getPayload(), carrier, 0);
        List<String> lines = new ArrayList<>();
        java.util.logging.Handler handler = new java.util.logging.Handler() {
            @Override
            public void publish(java.util.logging.LogRecord r) {
                lines.add(new java.util.logging.SimpleFormatter().formatMessage(r));
            }

            @Override
            public void flush() {
            }

            @Override
            public void close() {
            }
        };
        java.util.logging.Logger logger = io.github.jakartainbox.inbox.logging.InboxMessage.INBOX0105W.logger();
        logger.addHandler(handler);
        try {
            assertFalse(aims.confirmed(billing, ClaimKey.of(billing, delivery, null), delivery.fingerprint(), carrier,
                    forged, false));
        } finally {
            logger.removeHandler(handler);
        }
        assertEquals(1, lines.size(), "one INBOX0105W line");
        String line = lines.get(0);
        assertTrue(line.startsWith("INBOX0105W: Consumer billing: "), line);
        assertFalse(line.contains("\n") || line.contains("\u2028") || line.contains("\u202E"), line);
        assertTrue(line.contains("x\\u000A[12/7/26") && line.contains("3\\u000AFORGED"), line);
        assertTrue(line.length() < 400, line.length() + " characters");
    }

    /**
     * An aim at a consumer this application runs on no channel of the record's topic (a message-driven bean whose
     * queue bears the topic's name) is rejected without asking the database: its re-drive went to the queue, and the
     * history records the queue's name only. Before, the database confirmed it and the topic's consumers skipped.
     */
    @Test
    void anAimAtAConsumerThatCannotReadTheTopicIsRejectedWithoutTheDatabase() throws Exception {
        aims.channels = new io.github.jakartainbox.inbox.consumer.IdempotentChannels() {
            @Override
            public boolean mayRead(String consumer, String topic, org.eclipse.microprofile.config.Config config) {
                return !consumer.equals("analytics") || !topic.equals("orders.confirmed");
            }
        };
        table.answers.add(true);
        assertFalse(confirmed(record(ORDER, "analytics", "42"), false));
        assertEquals(List.of(), table.calls, "the database was not asked");
        assertEquals(2, statistics.redriveAimRejected("billing"), "the rejection was counted before this one");
    }

    @Test
    void anAimTheDatabaseDoesNotConfirmIsRejectedAndCounted() throws Exception {
        table.answers.add(false);
        assertFalse(confirmed(record(ORDER, "analytics", "99999"), false));
        assertEquals(2, statistics.redriveAimRejected("billing"), "the rejection was counted before this one");
    }

    @Test
    void headersAloneAreNoRedriveWithoutAnIdOrAUsableEventId() throws Exception {
        assertFalse(confirmed(record(ORDER, "analytics", null), false), "no dead letter named");
        assertFalse(confirmed(record(ORDER, "analytics", "-3"), false), "no dead letter id");
        assertFalse(confirmed(record(ORDER, "analytics", "7 "), false), "padded");
        assertFalse(confirmed(record("{\"order_id\":\"o-2\"}", "analytics", "42"), false), "no event id");
        assertTrue(table.calls.isEmpty(), "the database was not asked: nothing could match");
        assertEquals(5, statistics.redriveAimRejected("billing"), "four rejections counted before this one");
    }

    @Test
    void anOutageOutsideATransactionWaitsForTheDatabasesAnswer() throws Exception {
        table.answers.add(new SQLTransientConnectionException("refused", "08001"));
        table.answers.add(true);
        assertTrue(confirmed(record(ORDER, "analytics", "42"), false));
        assertEquals(2, table.calls.size(), "asked again after the outage");
    }

    @Test
    void aDatabaseFailureInATransactionGoesToItsOwner() {
        table.answers.add(new SQLTransientConnectionException("refused", "08001"));
        assertThrows(SQLException.class, () -> confirmed(record(ORDER, "analytics", "42"), true));
    }

    @Test
    void aFailureThatIsNoOutageLeavesTheAimUnconfirmed() throws Exception {
        table.answers.add(new SQLException("relation does not exist", "42P01"));
        assertFalse(confirmed(record(ORDER, "analytics", "42"), false), "processed: its claim decides");
    }

    @Test
    void deadLetterIdsAreDecimalPositiveLongs() {
        assertEquals(42L, RedriveAims.deadLetterId("42"));
        assertNull(RedriveAims.deadLetterId("0"));
        assertNull(RedriveAims.deadLetterId("+4"));
        assertNull(RedriveAims.deadLetterId("99999999999999999999"));
        assertNull(RedriveAims.deadLetterId(""));
        assertNull(RedriveAims.deadLetterId(null));
    }
}
