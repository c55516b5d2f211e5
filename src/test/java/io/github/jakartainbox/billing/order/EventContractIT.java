package io.github.jakartainbox.billing.order;

import io.github.jakartainbox.billing.SampleEvents;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.jakartainbox.billing.SampleEvents.Event;
import io.github.jakartainbox.testing.Db;
import io.github.jakartainbox.testing.Deployments;
import io.github.jakartainbox.testing.Mailbox;
import io.github.jakartainbox.testing.OrderRecords;
import java.math.BigDecimal;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.shrinkwrap.api.spec.WebArchive;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Issue 14, cases 3 and 4, on the real topic: the orders.confirmed contract is checked once, the same way, for
 * every consumer, before any work. An event one consumer cannot store is refused by both (dead-lettered at once
 * with a reason naming the field), and what the contract accepts the schema can hold, sums included.
 */
@ExtendWith(ArquillianExtension.class)
class EventContractIT {

    private static final List<String> CONSUMERS = List.of("billing", "analytics");
    private final Db db = Db.lazy();

    @Deployment
    static WebArchive deployment() {
        return Deployments.billingWithProbes();
    }

    private static String order(String eventId, String orderId, String email, String amount) {
        return "{\"event_id\":\"" + eventId + "\",\"order_id\":\"" + orderId + "\",\"customer_email\":\"" + email
                + "\",\"amount\":\"" + amount + "\",\"currency\":\"EUR\"}";
    }

    /** Asserts that neither consumer processed the event and both dead-lettered it at once with a reason. */
    private void refusedByBoth(String eventId, String... reasonParts) {
        assertEquals(0, db.number("SELECT count(*) FROM inbox WHERE event_id = ?", eventId),
                "event " + eventId + " processed by no consumer (no invoice, no revenue)");
        for (String consumer : CONSUMERS) {
            String error = db.text("SELECT error FROM inbox_dead_letter WHERE consumer = ? AND event_id = ?", consumer,
                    eventId);
            assertNotNull(error, consumer + " dead-lettered event " + eventId);
            for (String part : reasonParts) {
                assertTrue(error.contains(part), consumer + ": reason names '" + part + "': " + error);
            }
            assertEquals(1, db.number("SELECT attempts FROM inbox_dead_letter WHERE consumer = ? AND event_id = ?",
                    consumer, eventId), consumer + ": a permanent fault is not retried");
        }
    }

    @Test
    void anEventTheDatabaseCannotStoreIsRefusedByEveryConsumerWithItsReason() throws Exception {
        String run = "contract-" + UUID.randomUUID();
        SecureRandom random = new SecureRandom();
        String alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
        StringBuilder longOrder = new StringBuilder(run);
        while (longOrder.length() < 2800) {
            longOrder.append(alphabet.charAt(random.nextInt(alphabet.length())));
        }
        String longId = UUID.randomUUID().toString();
        String nulId = UUID.randomUUID().toString();
        OrderRecords.sendThenMarker(db, run, List.of(
                order(longId, longOrder.toString(), "a@example.test", "10.00"),
                order(nulId, run + "-nul", "a\\u0000b@example.test", "10.00")));
        refusedByBoth(longId, "order_id", "2800 characters");
        refusedByBoth(nulId, "customer_email", "U+0000");
    }

    /**
     * An address in group syntax would send the invoice to every member. Each form that is not one plain address is
     * dead-lettered by every consumer
     * with its message id, invoiced to no one and mailed to no one, while a good event after them is mailed.
     */
    @Test
    void anAddressThatIsNotOnePlainAddressIsRefusedAndMailedToNobody() throws Exception {
        String run = "address-" + UUID.randomUUID();
        // in every address the refused values name, and in no other: GreenMail's recipients are searched for it
        String tag = "t" + UUID.randomUUID().toString().substring(0, 8);
        String[][] forms = { // value, message id
            {"undisclosed:a-" + tag + "@example.net,b-" + tag + "@example.net;", "BILLING0112E"},
            {"Bob <bob-" + tag + "@example.org>", "BILLING0112E"},
            {"carol-" + tag + "@example.org (Carol)", "BILLING0112E"},
            {"dave-" + tag + "@example.net, erin-" + tag + "@example.org", "BILLING0112E"},
            {"j\u00f6rg-" + tag + "@example.com", "BILLING0113E"}, // a JSON escape: the value holds U+00F6
        };
        List<String> ids = new ArrayList<>();
        List<String> orderIds = new ArrayList<>();
        List<String> values = new ArrayList<>();
        for (String[] form : forms) {
            ids.add(UUID.randomUUID().toString());
            orderIds.add(run + "-" + orderIds.size());
            values.add(order(ids.get(ids.size() - 1), orderIds.get(orderIds.size() - 1), form[0], "10.00"));
        }
        OrderRecords.sendThenMarker(db, run, values);
        for (int i = 0; i < forms.length; i++) {
            refusedByBoth(ids.get(i), forms[i][1] + ": customer_email '", i < 4 ? "is not one plain address"
                    : "internationalized addresses are not supported");
            assertEquals(0, db.number("SELECT count(*) FROM invoice WHERE order_id = ?", orderIds.get(i)),
                    "no invoice for " + forms[i][0]);
        }
        // the marker (a good event after them on the same partition) is the canary: once its mail arrived, the
        // mailer has handled whatever came before it
        String canary = run + "-marker@example.com";
        assertEquals(1, Mailbox.await(canary, 1, Duration.ofSeconds(90)).size(), "the good event after them is mailed");
        List<String> recipients = Mailbox.recipients();
        assertTrue(recipients.contains(canary), "the server's recipient list is read: " + recipients.size());
        assertEquals(List.of(), recipients.stream().filter(r -> r.toLowerCase().contains(tag)).toList(),
                "no mail to any address the refused values name");
    }

    /**
     * An order id of a character shown as nothing (U+200D alone), or with one inside (A, U+200D, B looks like AB), was
     * invoiced: the PDF printed [U+200D] where the mail subject showed nothing. Now refused by every consumer.
     */
    @Test
    void anOrderIdWithInvisibleCharactersIsRefusedByEveryConsumer() throws Exception {
        String run = "invisible-" + UUID.randomUUID();
        String[][] forms = { // order id as JSON text, what the reason says
            {"\\u200D", "holds invisible character U+200D at index 0"},
            {run + "A\\u200DB", "holds invisible character U+200D at index " + (run.length() + 1)},
            {"\\uFEFF" + run, "holds invisible character U+FEFF at index 0"},
            {"\\u00A0", "holds only blanks, the first U+00A0 at index 0"},
        };
        List<String> ids = new ArrayList<>();
        List<String> values = new ArrayList<>();
        for (String[] form : forms) {
            ids.add(UUID.randomUUID().toString());
            values.add(order(ids.get(ids.size() - 1), form[0], "a@example.test", "10.00"));
        }
        String goodId = UUID.randomUUID().toString();
        values.add(order(goodId, run + "-AB", "a@example.test", "10.00"));
        OrderRecords.sendThenMarker(db, run, values);
        for (int i = 0; i < forms.length; i++) {
            refusedByBoth(ids.get(i), "BILLING0301E: field 'order_id' " + forms[i][1]);
        }
        assertEquals(1, db.number("SELECT count(*) FROM invoice WHERE event_id = ?", goodId), "a visible id is invoiced");
    }

    @Test
    void anAmountIsAPlainAsciiDecimalOrRefusedByEveryConsumer() throws Exception {
        String run = "amount-" + UUID.randomUUID();
        List<String> refused = List.of("1e3", "+5.00", "\u0661\u0662.00", "\uff15.00", "5.", ".50", " 5.00", "5.00 ",
                "0x10", "1_000.00", "5,00", "NaN", "0.00");
        List<String> ids = new ArrayList<>();
        List<String> values = new ArrayList<>();
        for (String amount : refused) {
            String id = UUID.randomUUID().toString();
            ids.add(id);
            values.add(order(id, run + "-" + ids.size(), "a@example.test", amount));
        }
        String goodId = UUID.randomUUID().toString();
        values.add(order(goodId, run + "-good", "a@example.test", "0129.9"));
        OrderRecords.sendThenMarker(db, run, values);
        for (int i = 0; i < ids.size(); i++) {
            refusedByBoth(ids.get(i), "amount");
        }
        assertEquals(new BigDecimal("129.90"), new BigDecimal(db.text("SELECT amount FROM invoice WHERE event_id = ?",
                goodId)), "a plain decimal with one decimal digit is accepted");
    }

    @Test
    void anObjectWithAMemberTwiceIsRefusedByEveryConsumerNamingTheMember() throws Exception {
        String run = "dup-member-" + UUID.randomUUID();
        String id = UUID.randomUUID().toString();
        String twice = "{\"event_id\":\"" + id + "\",\"order_id\":\"" + run + "-twice\",\"customer_email\":"
                + "\"a@example.test\",\"amount\":\"1.00\",\"currency\":\"EUR\",\"amount\":\"1000.00\"}";
        OrderRecords.sendThenMarker(db, run, List.of(twice));
        assertEquals(0, db.number("SELECT count(*) FROM invoice WHERE order_id = ?", run + "-twice"),
                "neither the first nor the last amount was invoiced");
        assertEquals(0, db.number("SELECT count(*) FROM inbox WHERE event_id = ?", id), "nor counted");
        for (String consumer : CONSUMERS) {
            String error = db.text("SELECT error FROM " + Db.DEAD_LETTERS + " WHERE consumer = ? AND payload = ?", consumer,
                    twice);
            assertNotNull(error, consumer + " dead-lettered the ambiguous object");
            assertTrue(error.contains("'amount'") && error.contains("more than once"), error);
        }
    }

    @Test
    void theDaysRevenueHoldsTheSumOfAcceptedAmounts() throws Exception {
        // NOK is used by this test only. The day's sum starts where ten thousand orders of the largest accepted
        // amount would bring it: 99,999,999,999,999.00, the most that numeric(16,2) holds
        String today = "(now() AT TIME ZONE 'UTC')::date";
        db.text("INSERT INTO daily_revenue (day, currency, amount, orders) VALUES (" + today + ", 'NOK', "
                + "99999999999999.00, 10000) ON CONFLICT (day, currency) DO UPDATE SET amount = EXCLUDED.amount, "
                + "orders = EXCLUDED.orders RETURNING amount");
        String run = "sum-" + UUID.randomUUID();
        Event largest = SampleEvents.event(UUID.randomUUID().toString(), run, "9999999999.99", "NOK");
        OrderRecords.sendThenMarker(db, run, List.of(largest.json()));
        assertEquals(2, db.number("SELECT count(*) FROM inbox WHERE event_id = ?", largest.eventId()),
                "the largest accepted amount is invoiced and counted");
        assertEquals(new BigDecimal("100009999999998.99"), new BigDecimal(db.text(
                "SELECT amount FROM daily_revenue WHERE day = " + today + " AND currency = 'NOK'")));
    }
}
