package io.github.jakartainbox.inbox.deadletter;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.github.jakartainbox.testing.Db;
import io.github.jakartainbox.testing.Deployments;
import io.github.jakartainbox.testing.OrderRecords;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.shrinkwrap.api.spec.WebArchive;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Issue 14, case 6: a record without a usable event id is one dead letter per consumer however often it is
 * delivered again (a rewind, a rebalance, a restart), with the count of deliveries on the row; a discarded one
 * stays discarded.
 */
@ExtendWith(ArquillianExtension.class)
class IdlessDeadLetterReplayIT {

    private final Db db = Db.lazy();

    @Deployment
    static WebArchive deployment() {
        return Deployments.billingWithProbes();
    }

    @Test
    void aRecordWithoutUsableIdReplayedThreeTimesIsOneDeadLetterPerConsumerWithThreeDeliveries() throws Exception {
        String run = "idless-" + UUID.randomUUID();
        String missing = "{\"order_id\":\"" + run + "-missing\",\"customer_email\":\"a@example.test\","
                + "\"amount\":\"1.00\",\"currency\":\"EUR\"}";
        String numeric = "{\"event_id\":42,\"order_id\":\"" + run + "-numeric\",\"customer_email\":\"a@example.test\","
                + "\"amount\":\"1.00\",\"currency\":\"EUR\"}";
        String notJson = "not json " + run;
        OrderRecords.sendThenMarker(db, run, List.of(missing, numeric, notJson));
        OrderRecords.sendThenMarker(db, run, List.of(missing, numeric, notJson)); // as after a rewind
        OrderRecords.sendThenMarker(db, run, List.of(missing, numeric, notJson)); // and after a restart

        for (String consumer : List.of("billing", "analytics")) {
            for (String payload : List.of(missing, numeric, notJson)) {
                String row = "FROM " + Db.DEAD_LETTERS + " WHERE consumer = ? AND event_id IS NULL AND payload = ?";
                assertEquals(1, db.number("SELECT count(*) " + row, consumer, payload),
                        consumer + ": one dead letter for the bad record " + payload);
                assertEquals(3, db.number("SELECT deliveries " + row, consumer, payload),
                        consumer + ": its three deliveries are counted on the row");
                assertEquals(1, db.number("SELECT count(*) " + row + " AND redriven_at IS NULL AND discarded_at IS NULL",
                        consumer, payload), consumer + ": and it is open");
            }
        }

        // an operator discards one; it comes again: still one row, still discarded
        long id = db.number("SELECT id FROM " + Db.DEAD_LETTERS + " WHERE consumer = 'billing' AND payload = ?", missing);
        db.text("UPDATE inbox_dead_letter SET discarded_at = now(), resolved_by = 'it' WHERE id = ? RETURNING id", id);
        OrderRecords.sendThenMarker(db, run, List.of(missing));
        assertEquals(1, db.number("SELECT count(*) FROM " + Db.DEAD_LETTERS + " WHERE consumer = 'billing' AND payload = ?",
                missing));
        assertEquals(4, db.number("SELECT deliveries FROM inbox_dead_letter WHERE id = ? AND discarded_at IS NOT NULL",
                id), "the discarded row counts the fourth delivery and stays discarded");
    }
}
