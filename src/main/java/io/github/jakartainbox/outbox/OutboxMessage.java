package io.github.jakartainbox.outbox;

import io.github.jakartainbox.inbox.text.CataloguedMessage;
import java.util.logging.Level;

/**
 * The outbox's catalogue: every log line and error text of the outbox, {@code OUTBOX}, four digits and the severity.
 * docs/messages.md gives each id's cause and action (MessagesDocsTest keeps it so).
 */
enum OutboxMessage implements CataloguedMessage {

    OUTBOX0001E(Level.SEVERE, "{0} was called without an active JTA transaction: the outbox row must commit with your "
            + "business change."),
    OUTBOX0007E(Level.SEVERE, "{0} was called in a JTA transaction that is no longer active ({1}): it timed out or was "
            + "marked for rollback."),
    OUTBOX0002E(Level.SEVERE, "The outbox datasource {0} was not found in JNDI ({1}); the outbox writes through "
            + "inbox.datasource."),
    OUTBOX0003E(Level.SEVERE, "Configuration key {0} has the value ''{1}''; it must be {2}."),
    OUTBOX0004I(Level.INFO, "Outbox relay started: Kafka {0}, poll every {1}, lease {2}, batch {3} rows."),
    OUTBOX0008I(Level.INFO, "Outbox schema is up to date in datasource {0} (Flyway, history table "
            + "outbox_schema_history)."),
    OUTBOX0009E(Level.SEVERE, "The outbox tables cannot be made or are missing in datasource {0}: {1}."),
    OUTBOX0005W(Level.WARNING, "The outbox relay is off (outbox.relay.enabled=false): this server records rows but "
            + "does not deliver them."),
    OUTBOX0006E(Level.SEVERE, "The {0} outbox row(s) of this transaction (first topic {1}) could not be written before "
            + "its commit; it rolls back. Cause: {2}"),
    OUTBOX0201W(Level.WARNING, "Outbox row {0} (event {1}, topic {2}): send attempt {3} failed, retried in {4} ms. "
            + "Cause: {5}"),
    OUTBOX0202E(Level.SEVERE, "Outbox row {0} (event {1}, topic {2}) failed {3} times and is listed as failing; later "
            + "rows of its key wait. Last cause: {4}"),
    OUTBOX0203W(Level.WARNING, "The outbox relay could not reach the database and tries again at its next poll: {0}"),
    OUTBOX0204W(Level.WARNING, "The outbox relay lease was taken over by another server; this server stops relaying "
            + "until it gets the lease again."),
    OUTBOX0205I(Level.INFO, "Outbox row {0} (event {1}) {2} by {3}.");

    private final Text text;

    OutboxMessage(Level level, String pattern) { text = new Text(level, pattern, OutboxLog.LOG); }

    @Override public Text text() { return text; }
}
