package io.github.jakartainbox.faults;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/** The fault suite's table: one row per scenario, in Markdown. */
final class FaultReport {

    private final List<String> rows = new ArrayList<>();
    private final long startedAt = System.nanoTime();
    private final String settings;

    FaultReport(String settings) {
        this.settings = settings;
    }

    /** @param k the per-key order check, {@code null} for a scenario with one event per order */
    synchronized void add(Outcome o, ChainOutcome c, KeyOrder k) {
        rows.add(String.format(Locale.ROOT, "| %s | %,d | %,d | %s | %,d | %,d | %,d / %,d | %d / %d | %d / %d | %d → %d / %d%s "
                        + "| %,d: %d lost, %d twice%s | %,d / %d / %d / %d | %d%s | %s | %s | %s |",
                o.fault(), o.events(), o.records(),
                (o.lostBilling() > 0 ? "n/a" : o.extraDeliveries() < 0 ? "≥ 0 (undercounted by "
                        + String.format(Locale.ROOT, "%,d", -o.extraDeliveries()) + " or more)"
                        : String.format(Locale.ROOT, "%,d", o.extraDeliveries()))
                        + (o.rewound() >= 0 ? String.format(Locale.ROOT, " (rewind reset %,d)", o.rewound()) : ""),
                o.skipped(), o.invoices(), o.billingRows(), o.analyticsRows(), o.lostBilling(), o.lostAnalytics(),
                o.dupBilling() + o.unexpected(), o.dupAnalytics(), o.poison(), o.deadBilling(), o.deadAnalytics(),
                o.goodDeadLettered() > 0 ? " (+" + o.goodDeadLettered() + " good!)" : "",
                c.issuedRecords(), c.issuedMissing(), c.issuedExtra(),
                c.issuedWrongId() == 0 ? "" : ", " + c.issuedWrongId()
                        + (c.sideEffectsOfLostCommits() ? " of invoices the failover lost" : " with another id!"),
                c.mailed(), c.refused(), c.uncertain(), c.unmailed(), c.mailsDuplicated(),
                (c.ofLostCommits() > 0 ? " (" + c.ofLostCommits() + " of invoices the failover lost)" : "")
                        + (c.unexplained() > 0 ? " (" + c.unexplained() + " unexplained!)" : ""),
                o.canary() && o.lag() == 0 && c.mailerLag() == 0 ? "yes"
                        : o.canary() ? "lag " + o.lag() + " / mailer " + c.mailerLag() : "NO",
                k == null ? "–" : k.cell(), seconds(o.wall())));
    }

    /** A scenario that did not reach its checks. */
    synchronized void failed(String fault, Throwable error, Duration wall) {
        rows.add("| " + fault + " | did not finish: " + error.toString().replace('|', '/').replace('\n', ' ')
                + " | | | | | | | | | | | | | | " + seconds(wall) + " |");
    }

    /** @return the table in Markdown, with the suite's wall time and how to read the columns */
    synchronized String markdown() {
        StringBuilder md = new StringBuilder("# Fault-injection suite\n\n").append(settings).append("\n\n")
                .append("| fault | events | records produced | extra deliveries | duplicates skipped (billing) "
                        + "| invoices | inbox rows billing / analytics | lost billing / analytics "
                        + "| duplicated billing / analytics | poison → dead-lettered billing / analytics "
                        + "| invoices.issued records | invoices mailed / refused / uncertain / unmailed | mails duplicated "
                        + "| canary | per-key order violations billing / analytics | wall time |\n")
                .append("|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|---|--:|--:|\n");
        rows.forEach(r -> md.append(r).append('\n'));
        md.append("\nWhole suite: ").append(seconds(Duration.ofNanos(System.nanoTime() - startedAt))).append(".\n\n")
                .append("""
                        - *records produced*: good events delivered 1 to 4 times, poison messages, the canary.
                        - *extra deliveries*: good records consumed beyond one per record produced, \
                        = duplicates skipped + invoices − good records: the redeliveries the fault caused \
                        (a rewind also shows how many offsets it reset). A lower bound, as duplicates skipped is; \
                        when the undercount is larger than the redeliveries the result is below zero, and shown \
                        as "≥ 0".
                        - *duplicates skipped*: gauge `inbox_duplicates_skipped{consumer="billing"}`, in memory per \
                        server process, summed over the last value of each server lifetime. The service caches its \
                        gauges for 10 s, so each lifetime's value is read right before its stop or kill and at the \
                        end, at least 10 s after any earlier read (a fresh value). A lifetime ended by kill -9 misses \
                        only what was skipped between that read and the signal (milliseconds); one ended by a \
                        graceful stop also misses what the server skipped while it stopped, as it goes on with \
                        the records it had already polled. So the figure is a lower bound.
                        - *lost*: events without an invoice or inbox row at the end (not processed while the \
                        suite waited, up to 60 s without progress); *duplicated*: invoices beyond one per event \
                        (billing), orders counted twice in daily_revenue (analytics).
                        - *invoices.issued records*: records the outbox relay published on the run's topic; *lost*: \
                        invoices without one; *twice*: records beyond one per invoice (at least once: a relay that \
                        died between the broker's acknowledgement and its mark sends the row again, same event id).
                        - *invoices mailed*: invoices (canary included) whose mail, Message-ID derived from the \
                        invoices.issued event id, is at the suite's SMTP server and recorded as sent; *refused*: \
                        invoices whose customer the SMTP server refused with 550 (scenario 11): no mail, \
                        mail_status failed; *uncertain*: invoices whose mail got no reply to its end of data \
                        (scenario 11): exactly one copy at the server, not sent again, mail_status uncertain; \
                        *unmailed*: the others (must be 0).
                        - *mails duplicated*: mails beyond one per invoice, counted by Message-ID. Each must be \
                        explained by the window between the SMTP server's acceptance and the mailer's commit: same \
                        Message-ID as the recorded mail, and the mailer's inbox holds the event once (the extra copy \
                        came from an attempt that never committed: a kill, a stop, a lost database connection). \
                        Reported, not failed; an unexplained one fails the scenario.
                        - *canary*: a good event sent after the faults, processed by both consumers, and the two \
                        order groups and the mailer's group with no uncommitted record left.
                        - *per-key order violations* (scenarios whose orders have several events, 15 and 16): pairs \
                        of one order's consecutive events whose committed effects are out of sequence order (billing: \
                        invoice numbers across transactions, invoice ids within one; analytics: the start of the \
                        transactions); a skipped duplicate makes no effect and is not counted. "–": one event per order.
                        """);
        return md.toString();
    }

    /** Writes the table to {@code file}, as far as the suite got. */
    void write(Path file) throws IOException {
        Files.createDirectories(file.getParent());
        Files.writeString(file, markdown());
    }

    private static String seconds(Duration d) {
        return String.format(Locale.ROOT, "%.1f s", d.toMillis() / 1000.0);
    }
}
