package io.github.jakartainbox.inbox.database;

import io.github.jakartainbox.inbox.logging.InboxLog;
import io.github.jakartainbox.inbox.text.CataloguedMessage;
import java.util.logging.Level;

/**
 * The two-phase commit (XA) checks' catalogue: {@code INBOX0800} to {@code INBOX0899}.
 * docs/messages.md gives each id's cause and action.
 */
public enum TwoPhaseMessage implements CataloguedMessage {

    INBOX0800E(Level.SEVERE, "The inbox datasource {0} is XA, but its PostgreSQL has max_prepared_transactions = {1}: "
            + "every two-phase commit would fail."),
    INBOX0801E(Level.SEVERE, "Constraint {0} of table inbox (datasource {1}) is DEFERRABLE, which ON CONFLICT cannot "
            + "use; make it anew: {2}"),
    INBOX0802I(Level.INFO, "The inbox datasource {0} is an XA datasource; its PostgreSQL server allows {1} prepared "
            + "transactions (max_prepared_transactions).");

    private final Text text;

    TwoPhaseMessage(Level level, String pattern) { text = new Text(level, pattern, InboxLog.LOG); }

    @Override public Text text() { return text; }
}
