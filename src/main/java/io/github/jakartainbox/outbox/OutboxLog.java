package io.github.jakartainbox.outbox;

import java.text.MessageFormat;
import java.util.Map;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The outbox's log and error messages, each with an id an operator can search for ({@code OUTBOXnnnnS}; the last
 * letter is the severity: I information, W warning, E error).
 */
final class OutboxLog {

    static final Logger LOG = Logger.getLogger("io.github.jakartainbox.outbox");

    private static final Map<String, String> MESSAGES = Map.ofEntries(
            Map.entry("OUTBOX0001E", "{0} was called without an active JTA transaction. The outbox row must commit "
                    + "with your business change: call it from a @Transactional method, an EJB business method, a "
                    + "@Idempotent consumer, or between UserTransaction.begin() and commit()."),
            Map.entry("OUTBOX0002E", "The outbox datasource {0} was not found in JNDI ({1}). The outbox writes through "
                    + "the inbox datasource: set inbox.datasource to the JNDI name of the datasource of your business "
                    + "tables."),
            Map.entry("OUTBOX0003E", "Configuration key {0} has the value ''{1}''; it must be {2}."),
            Map.entry("OUTBOX0004I", "Outbox relay started: Kafka {0}, poll every {1}, lease {2}, batch {3} rows."),
            Map.entry("OUTBOX0005W", "The outbox relay is off (outbox.relay.enabled=false): rows are recorded but not "
                    + "delivered by this server."),
            Map.entry("OUTBOX0201W", "Outbox row {0} (event {1}, topic {2}): send attempt {3} failed, retried in {4} ms. "
                    + "Cause: {5}"),
            Map.entry("OUTBOX0202E", "Outbox row {0} (event {1}, topic {2}) has failed {3} times and is now listed as "
                    + "failing; later rows of its key wait behind it. It is still retried every {4} at most. Fix the "
                    + "cause, or as an operator retry it now or give it up (OutboxOperations). Last cause: {5}"),
            Map.entry("OUTBOX0203W", "The outbox relay could not reach the database and tries again at its next poll: {0}"),
            Map.entry("OUTBOX0204W", "The outbox relay lease was taken over by another server (ours expired); this "
                    + "server stops relaying until it gets the lease again. Raise outbox.relay.lease if batches take "
                    + "longer than it."),
            Map.entry("OUTBOX0205I", "Outbox row {0} (event {1}) {2} by {3}."));

    private OutboxLog() {
    }

    static String format(String id, Object... args) {
        return id + ": " + MessageFormat.format(MESSAGES.get(id), args);
    }

    static void log(Level level, String id, Object... args) {
        if (LOG.isLoggable(level)) {
            LOG.log(level, format(id, args));
        }
    }
}
