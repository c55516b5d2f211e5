package io.github.jakartainbox.outbox;

import java.text.MessageFormat;
import java.util.logging.Level;

/**
 * Every log line and error text of the outbox, each with an id an operator can search for ({@code OUTBOX}, four
 * digits, the severity as last letter: I information, W warning, E error), bound here to the level it is logged at.
 * docs/messages.md lists them (MessagesDocsTest keeps it so).
 */
enum OutboxMessage {

    OUTBOX0001E(Level.SEVERE, "{0} was called without an active JTA transaction. The outbox row must commit with your business change: call it from a @Transactional method, an EJB business method, a @Idempotent consumer, or between UserTransaction.begin() and commit()."),
    OUTBOX0007E(Level.SEVERE, "{0} was called in a JTA transaction that is no longer active ({1}): it timed out, or something marked it for rollback, and it will roll back with your business change. Look for the cause before this call (a WTRN0006W timeout, an earlier failure); the delivery is tried again."),
    OUTBOX0002E(Level.SEVERE, "The outbox datasource {0} was not found in JNDI ({1}). The outbox writes through the inbox datasource: set inbox.datasource to the JNDI name of the datasource of your business tables."),
    OUTBOX0003E(Level.SEVERE, "Configuration key {0} has the value ''{1}''; it must be {2}."),
    OUTBOX0004I(Level.INFO, "Outbox relay started: Kafka {0}, poll every {1}, lease {2}, batch {3} rows."),
    OUTBOX0008I(Level.INFO, "Outbox schema is up to date in datasource {0} (Flyway, history table outbox_schema_history)."),
    OUTBOX0009E(Level.SEVERE, "The outbox tables cannot be made or are missing in datasource {0}: {1}."),
    OUTBOX0005W(Level.WARNING, "The outbox relay is off (outbox.relay.enabled=false): rows are recorded but not delivered by this server."),
    OUTBOX0006E(Level.SEVERE, "The {0} outbox row(s) recorded in this transaction (first topic {1}) could not be written before its commit, so the transaction rolls back and nothing of it is committed (the delivery of an @Idempotent consumer is retried). Cause: {2}"),
    OUTBOX0201W(Level.WARNING, "Outbox row {0} (event {1}, topic {2}): send attempt {3} failed, retried in {4} ms. Cause: {5}"),
    OUTBOX0202E(Level.SEVERE, "Outbox row {0} (event {1}, topic {2}) has failed {3} times and is now listed as failing; later rows of its key wait behind it. It is still retried every {4} at most. Fix the cause, or as an operator retry it now or give it up (OutboxOperations). Last cause: {5}"),
    OUTBOX0203W(Level.WARNING, "The outbox relay could not reach the database and tries again at its next poll: {0}"),
    OUTBOX0204W(Level.WARNING, "The outbox relay lease was taken over by another server (ours expired); this server stops relaying until it gets the lease again. Raise outbox.relay.lease if batches take longer than it."),
    OUTBOX0205I(Level.INFO, "Outbox row {0} (event {1}) {2} by {3}.");

    private final Level level;
    private final String pattern;

    OutboxMessage(Level level, String pattern) {
        this.level = level;
        this.pattern = pattern;
    }

    /** @return the level this message is logged at */
    Level level() {
        return level;
    }

    /**
     * @param args the values of the pattern's places
     * @return the id, a colon and the text
     */
    String format(Object... args) {
        return name() + ": " + MessageFormat.format(pattern, args);
    }
}
