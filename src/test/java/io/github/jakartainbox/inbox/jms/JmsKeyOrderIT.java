package io.github.jakartainbox.inbox.jms;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.jakartainbox.inbox.deadletter.InboxSequences;
import io.github.jakartainbox.testing.Db;
import io.github.jakartainbox.testing.Deployments;
import io.github.jakartainbox.testing.probes.JmsKeyOrderProbe;
import jakarta.enterprise.inject.spi.CDI;
import jakarta.jms.ConnectionFactory;
import jakarta.jms.JMSContext;
import jakarta.jms.Queue;
import jakarta.jms.TextMessage;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import javax.naming.InitialContext;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.shrinkwrap.api.spec.WebArchive;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Dead-letter order by key on a message-driven bean ({@link JmsKeyOrderProbe}, consumer {@code probe-jms-key} with
 * {@code dead-letter.order=key}, key in {@code JMSXGroupID}), in-container on Liberty's embedded engine and
 * PostgreSQL: group A's first message is poison and dead-lettered, A's four later messages are parked while group B's
 * five are processed; once the poison is fixed, a re-drive of A's sequence applies A's five in order, each once. A
 * message failing during a re-drive heads the sequence, and the next re-drive delivers the rest.
 */
@ExtendWith(ArquillianExtension.class)
class JmsKeyOrderIT {

    private static final String CONSUMER = "probe-jms-key";
    private static final String QUEUE = "jms/it.probe.jms.key";
    private static final Duration WAIT = Duration.ofSeconds(60);
    private static final String PARKED = "SELECT count(*) FROM inbox_parked p JOIN inbox_key_sequence s "
            + "ON s.id = p.sequence_id WHERE s.consumer = ? AND s.record_key = ? AND p.dead_letter_id IS NULL";

    private final Db db = Db.lazy();

    @Deployment
    static WebArchive deployment() {
        return Deployments.billingWithProbes();
    }

    private static String send(String key, String eventId, int seq) throws Exception {
        InitialContext naming = new InitialContext();
        ConnectionFactory factory = (ConnectionFactory) naming.lookup("jms/billing");
        try (JMSContext context = factory.createContext()) {
            TextMessage message = context.createTextMessage("{\"event_id\":\"" + eventId + "\",\"key\":\"" + key
                    + "\",\"seq\":" + seq + "}");
            message.setStringProperty("JMSXGroupID", key);
            context.createProducer().send((Queue) naming.lookup(QUEUE), message);
            return message.getJMSMessageID();
        }
    }

    private long effects(String key) {
        return db.number("SELECT count(*) FROM key_order_effect WHERE consumer = ? AND record_key = ?", CONSUMER, key);
    }

    @Test
    void aGroupsLaterMessagesWaitBehindItsDeadLetterAndARedriveAppliesThemInOrder() throws Exception {
        db.execute("CREATE TABLE IF NOT EXISTS key_order_effect (id bigint GENERATED ALWAYS AS IDENTITY, "
                + "consumer text NOT NULL, record_key text NOT NULL, seq integer NOT NULL, event_id text NOT NULL)");
        db.execute("CREATE TABLE IF NOT EXISTS key_order_poison (event_id text PRIMARY KEY)");
        String run = UUID.randomUUID().toString().substring(0, 8);
        String a = "A-" + run;
        String b = "B-" + run;
        List<String> aIds = new ArrayList<>();
        List<String> bIds = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            aIds.add(UUID.randomUUID().toString());
            bIds.add(UUID.randomUUID().toString());
        }
        db.number("INSERT INTO key_order_poison (event_id) VALUES (?) RETURNING 1", aIds.get(0));

        String poisonMessage = send(a, aIds.get(0), 1);
        assertEquals(1, db.await(WAIT, n -> n == 1, "SELECT count(*) FROM inbox_key_sequence WHERE consumer = ? "
                + "AND record_key = ?", CONSUMER, a), "A's first message, dead-lettered, opens A's sequence");
        long head = db.number("SELECT s.head_dead_letter_id FROM inbox_key_sequence s WHERE s.consumer = ? "
                + "AND s.record_key = ?", CONSUMER, a);
        assertEquals(head, db.number("SELECT id FROM inbox_dead_letter WHERE consumer = ? AND event_id = ?",
                CONSUMER, aIds.get(0)), "its dead letter heads the sequence");
        assertEquals(poisonMessage, db.text("SELECT topic FROM inbox_parked WHERE dead_letter_id = ?", head),
                "the head's place is its JMSMessageID");
        for (int seq = 2; seq <= 5; seq++) {
            send(a, aIds.get(seq - 1), seq);
            send(b, bIds.get(seq - 2), seq - 1);
        }
        send(b, bIds.get(4), 5);

        assertEquals(5, db.await(WAIT, n -> n == 5, "SELECT count(*) FROM key_order_effect WHERE consumer = ? "
                + "AND record_key = ?", CONSUMER, b), "B's five processed");
        assertEquals(4, db.await(WAIT, n -> n == 4, PARKED, CONSUMER, a), "A's later four parked");
        assertEquals(0, effects(a), "no message of A reached the method while its first is dead-lettered");
        assertEquals(0, db.number("SELECT count(*) FROM inbox WHERE consumer = ? AND event_id = ANY (?::text[])",
                CONSUMER, "{" + String.join(",", aIds) + "}"), "a parked message is not claimed");

        db.number("DELETE FROM key_order_poison WHERE event_id = ? RETURNING 1", aIds.get(0));
        InboxSequences sequences = CDI.current().select(InboxSequences.class).get();
        InboxSequences.Outcome outcome = sequences.redrive(CONSUMER, a, "it-operator");
        assertEquals(InboxSequences.Status.CLOSED, outcome.status(), outcome.toString());
        assertEquals(5, outcome.delivered(), outcome.toString());
        assertEquals(List.of("1", "2", "3", "4", "5"), db.texts("SELECT seq::text FROM key_order_effect "
                + "WHERE consumer = ? AND record_key = ? ORDER BY id", CONSUMER, a), "A's five in order, each once");
        assertEquals(5, db.number("SELECT count(*) FROM inbox WHERE consumer = ? AND event_id = ANY (?::text[])",
                CONSUMER, "{" + String.join(",", aIds) + "}"), "each claimed once");
        assertEquals(0, db.number("SELECT count(*) FROM inbox_key_sequence WHERE consumer = ?", CONSUMER));
        assertEquals(1, db.number("SELECT count(*) FROM inbox_dead_letter WHERE id = ? AND redriven_at IS NOT NULL",
                head), "the head's dead letter is resolved by its processing");

        // the sequence closed: A's next message is processed as it comes
        String sixth = UUID.randomUUID().toString();
        send(a, sixth, 6);
        assertEquals(6, db.await(WAIT, n -> n == 6, "SELECT count(*) FROM key_order_effect WHERE consumer = ? "
                + "AND record_key = ?", CONSUMER, a));
        assertTrue(db.texts("SELECT seq::text FROM key_order_effect WHERE consumer = ? AND record_key = ? "
                + "ORDER BY id", CONSUMER, a).equals(List.of("1", "2", "3", "4", "5", "6")));
    }

    /**
     * A message that fails during the re-drive is dead-lettered there (the re-drive's attempts roll back as the
     * queue's would) and heads the sequence; the rest stay parked, and the next re-drive delivers them in order.
     */
    @Test
    void aMessageFailingInTheRedriveHeadsTheSequenceAndTheRestWait() throws Exception {
        db.execute("CREATE TABLE IF NOT EXISTS key_order_effect (id bigint GENERATED ALWAYS AS IDENTITY, "
                + "consumer text NOT NULL, record_key text NOT NULL, seq integer NOT NULL, event_id text NOT NULL)");
        db.execute("CREATE TABLE IF NOT EXISTS key_order_poison (event_id text PRIMARY KEY)");
        String c = "C-" + UUID.randomUUID().toString().substring(0, 8);
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            ids.add(UUID.randomUUID().toString());
        }
        db.number("INSERT INTO key_order_poison (event_id) VALUES (?), (?) RETURNING 1", ids.get(0), ids.get(2));
        send(c, ids.get(0), 1);
        assertEquals(1, db.await(WAIT, n -> n == 1, "SELECT count(*) FROM inbox_key_sequence WHERE consumer = ? "
                + "AND record_key = ?", CONSUMER, c));
        for (int seq = 2; seq <= 4; seq++) {
            send(c, ids.get(seq - 1), seq);
        }
        assertEquals(3, db.await(WAIT, n -> n == 3, PARKED, CONSUMER, c));

        db.number("DELETE FROM key_order_poison WHERE event_id = ? RETURNING 1", ids.get(0));
        InboxSequences sequences = CDI.current().select(InboxSequences.class).get();
        InboxSequences.Outcome stopped = sequences.redrive(CONSUMER, c, "it-operator");
        assertEquals(InboxSequences.Status.STOPPED, stopped.status(), stopped.toString());
        assertEquals(2, stopped.delivered(), stopped.toString());
        assertEquals(db.number("SELECT id FROM inbox_dead_letter WHERE consumer = ? AND event_id = ?", CONSUMER,
                ids.get(2)), (long) stopped.newHead(), "the third message's dead letter heads the sequence now");
        assertEquals(1, db.number(PARKED, CONSUMER, c), "the fourth still waits");
        assertEquals(List.of("1", "2"), db.texts("SELECT seq::text FROM key_order_effect WHERE consumer = ? "
                + "AND record_key = ? ORDER BY id", CONSUMER, c));

        db.number("DELETE FROM key_order_poison WHERE event_id = ? RETURNING 1", ids.get(2));
        InboxSequences.Outcome closed = sequences.redrive(CONSUMER, c, "it-operator");
        assertEquals(InboxSequences.Status.CLOSED, closed.status(), closed.toString());
        assertEquals(2, closed.delivered(), closed.toString());
        assertEquals(List.of("1", "2", "3", "4"), db.texts("SELECT seq::text FROM key_order_effect "
                + "WHERE consumer = ? AND record_key = ? ORDER BY id", CONSUMER, c), "in order, each once");
    }
}
