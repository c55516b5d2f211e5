package io.github.jakartainbox.faults;

import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.github.jakartainbox.testing.Db;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.function.Executable;

/**
 * What one scenario left in the database and on the topic, measured after the canary, and the assertions of the
 * guarantee: per consumer ({@code billing}, {@code analytics}) exactly one inbox row and one effect (an invoice,
 * one order in the daily revenue) per distinct good event, every poison message dead-lettered with a reason, no
 * good event dead-lettered, the canary processed and nothing left unconsumed.
 *
 * @param fault            the scenario
 * @param events           distinct good events sent (the canary not counted)
 * @param records          records produced, the canary included
 * @param extraDeliveries  good records delivered (processed or skipped) beyond one per record sent, read as
 *                         duplicates skipped + invoices - good records
 * @param rewound          offsets a rewind reset (group billing), -1 without a rewind
 * @param skipped          duplicates skipped by consumer billing, summed over the servers' lifetimes
 * @param invoices         invoice rows
 * @param billingRows      inbox rows of consumer billing
 * @param analyticsRows    inbox rows of consumer analytics
 * @param lostBilling      expected events without an invoice or without a billing inbox row
 * @param lostAnalytics    expected events without an analytics inbox row
 * @param dupBilling       invoices beyond one per event
 * @param dupAnalytics     orders counted in the daily revenue beyond one per analytics inbox row
 * @param unexpected       inbox rows or invoices of events that were never sent as good events
 * @param poison           poison messages sent
 * @param deadBilling      of those, how many consumer billing dead-lettered with a reason
 * @param deadAnalytics    same for analytics
 * @param goodDeadLettered dead letters whose payload is not a poison message
 * @param canary           whether both consumers processed the canary
 * @param lag              records not committed by the two groups at the end
 * @param wall             the scenario's wall time
 */
record Outcome(String fault, int events, long records, long extraDeliveries, long rewound, long skipped,
               long invoices, long billingRows, long analyticsRows, long lostBilling, long lostAnalytics,
               long dupBilling, long dupAnalytics, long unexpected, int poison, long deadBilling, long deadAnalytics,
               long goodDeadLettered, boolean canary, long lag, Duration wall) {

    /** Reads the outcome of a finished scenario. */
    static Outcome measure(FaultRun run, Db db, long records, long skipped, long lag) {
        Set<String> expected = new HashSet<>(run.expectedIds());
        List<String> invoiceIds = db.texts("SELECT lower(event_id) FROM invoice");
        Set<String> invoiced = new HashSet<>(invoiceIds);
        Set<String> billing = new HashSet<>(db.texts("SELECT event_id FROM inbox WHERE consumer = 'billing'"));
        Set<String> analytics = new HashSet<>(db.texts("SELECT event_id FROM inbox WHERE consumer = 'analytics'"));
        long revenueOrders = db.number("SELECT coalesce(sum(orders), 0) FROM daily_revenue");
        long lostBilling = expected.stream().filter(id -> !invoiced.contains(id) || !billing.contains(id)).count();
        long lostAnalytics = expected.stream().filter(id -> !analytics.contains(id)).count();
        Set<String> seen = new HashSet<>(invoiced);
        seen.addAll(billing);
        seen.addAll(analytics);
        seen.removeAll(expected);
        List<String> deadBilling = deadLetters(db, "billing");
        List<String> deadAnalytics = deadLetters(db, "analytics");
        // the mails scenario 11's SMTP server refuses or leaves without a final reply are dead-lettered by design; the
        // chain's checks tell whether each such invoice ended as its customer's fault calls for
        long goodDead = db.number("SELECT count(*) FROM " + Db.DEAD_LETTERS + " WHERE coalesce(payload, '') NOT LIKE ? "
                + "AND NOT (consumer = 'mailer' AND (error LIKE 'BILLING0130E%' OR error LIKE 'BILLING0132E%') "
                + "AND payload ~ '\"customer_email\":\"(refused|stalled|dropped|cut)-')", "%" + FaultRun.POISON + "%");
        if (run.sideEffectsOfLostCommits) {
            // invoices.issued records of invoices the failover lost: the mailer finds no such invoice (BILLING0125E),
            // another order's under a reused id (BILLING0128E) or the same order's new invoice, issued under another
            // event (BILLING0303E), and mails nothing
            long gone = db.number("SELECT count(*) FROM inbox_dead_letter WHERE consumer = 'mailer' "
                    + "AND error LIKE 'BILLING0125E%'");
            long reused = db.number("SELECT count(*) FROM inbox_dead_letter WHERE consumer = 'mailer' "
                    + "AND error LIKE 'BILLING0128E%'");
            long reissued = db.number("SELECT count(*) FROM inbox_dead_letter WHERE consumer = 'mailer' "
                    + "AND error LIKE 'BILLING0303E%'");
            long stale = gone + reused + reissued;
            System.out.printf("  invoices.issued records of invoices the failover lost, dead-lettered by the mailer: "
                    + "%,d (%,d whose invoice id no longer exists, %,d whose id now belongs to another order's "
                    + "invoice, %,d whose id the same order's new invoice took)%n", stale, gone, reused, reissued);
            goodDead -= stale;
        }
        String canary = run.canary.eventId();
        return new Outcome(run.fault, run.events.size(), records,
                skipped + invoiceIds.size() - run.goodRecords(), run.rewound, skipped,
                invoiceIds.size(), billing.size(), analytics.size(), lostBilling, lostAnalytics,
                invoiceIds.size() - invoiced.size(), revenueOrders - analytics.size(), seen.size(),
                run.poison.size(), dead(run, deadBilling), dead(run, deadAnalytics), goodDead,
                billing.contains(canary) && analytics.contains(canary), lag,
                Duration.ofNanos(System.nanoTime() - run.startedAt));
    }

    /** @return the payloads the consumer dead-lettered with a non-empty reason */
    private static List<String> deadLetters(Db db, String consumer) {
        return db.texts("SELECT coalesce(payload, '') FROM " + Db.DEAD_LETTERS + " WHERE consumer = ? "
                + "AND btrim(coalesce(error, '')) <> ''", consumer);
    }

    /** @return how many of the run's poison messages appear among the dead-lettered payloads */
    private static long dead(FaultRun run, List<String> payloads) {
        return run.poison.stream()
                .filter(p -> payloads.stream().anyMatch(d -> d.contains("\"" + p.orderId() + "\""))).count();
    }

    /** @return the prefix of every failure message: the scenario and its counts */
    String where() {
        return fault + " (" + events + " events, " + records + " records): ";
    }

    /**
     * Fails, naming the scenario and the counts, unless the guarantee held.
     *
     * @param more further checks of the scenario (the mail chain's), reported together with these
     */
    void assertGuarantees(List<Executable> more) {
        String where = where();
        List<Executable> checks = new ArrayList<>(List.of(
                () -> assertEquals(0, lostBilling, where + "events never processed by billing (no invoice or no inbox row)"),
                () -> assertEquals(0, lostAnalytics, where + "events never processed by analytics (no inbox row)"),
                () -> assertEquals(0, dupBilling, where + "duplicated invoices"),
                () -> assertEquals(0, dupAnalytics, where + "orders counted twice in the daily revenue"),
                () -> assertEquals(0, unexpected, where + "inbox rows or invoices of events never sent as good ones"),
                () -> assertEquals(events + 1L, invoices, where + "invoices (events + canary)"),
                () -> assertEquals(events + 1L, billingRows, where + "billing inbox rows (events + canary)"),
                () -> assertEquals(events + 1L, analyticsRows, where + "analytics inbox rows (events + canary)"),
                () -> assertEquals(poison, deadBilling, where + "poison messages dead-lettered by billing with a reason"),
                () -> assertEquals(poison, deadAnalytics,
                        where + "poison messages dead-lettered by analytics with a reason"),
                () -> assertEquals(0, goodDeadLettered, where + "dead letters that are not poison messages"),
                () -> assertEquals(true, canary, where + "canary sent after the faults processed by both consumers"),
                () -> assertEquals(0, lag, where + "records left unconsumed (uncommitted) by the two groups")));
        checks.addAll(more);
        assertAll(checks);
    }
}
