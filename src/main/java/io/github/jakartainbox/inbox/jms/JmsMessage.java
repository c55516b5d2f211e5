package io.github.jakartainbox.inbox.jms;

import io.github.jakartainbox.inbox.logging.InboxLog;
import io.github.jakartainbox.inbox.text.CataloguedMessage;
import java.util.logging.Level;

/**
 * The message-driven beans' catalogue (Jakarta Messaging): {@code INBOX0700} to {@code INBOX0799}.
 * docs/messages.md gives each id's cause and action.
 */
public enum JmsMessage implements CataloguedMessage {

    INBOX0701E(Level.SEVERE, "Cannot read {0}: the method does not take a jakarta.jms.Message parameter."),
    INBOX0702E(Level.SEVERE, "JMS property ''{0}'' holds a {1}, not a string."),
    INBOX0703E(Level.SEVERE, "Cannot read {0} of the JMS message: {1}"),
    INBOX0704W(Level.WARNING, "Consumer {0}, event {1}, JMS message {2}: delivery {3} failed, attempt {4} of {5}; "
            + "redelivered in {6} ms. Cause: {7}"),
    INBOX0705W(Level.WARNING, "Consumer {0}, event {1}, JMS message {2}: the database is unavailable; waiting up to "
            + "{3}, no attempt used. Cause: {4}"),
    INBOX0706E(Level.SEVERE, "Consumer {0}: {1} received a JMS message without a JTA transaction; it needs "
            + "container-managed transactions, REQUIRED."),
    INBOX0707E(Level.SEVERE, "Consumer {0}, JMS message {1}: failed {2} time(s); dead-lettered at delivery {3} without "
            + "calling the method. Last failure: {4}"),
    INBOX0708E(Level.SEVERE, "Consumer {0}, JMS message {1}: dead-lettered; the message is consumed. Reason: {2}"),
    INBOX0709E(Level.SEVERE, "Consumer {0}, JMS message {1}: could not record the dead letter ({2}); rolled back, the "
            + "next delivery tries again."),
    INBOX0710E(Level.SEVERE, "Consumer {0}, JMS message {1}: the transaction did not commit after the method returned "
            + "(JTA status {2}); counted as a failed attempt."),
    INBOX0711E(Level.SEVERE, "Consumer {0}, JMS message {1}: its re-drive was neither processed nor dead-lettered in "
            + "{2} attempts; the re-drive stops and the message stays parked."),
    INBOX0712W(Level.WARNING, "Consumer {0}, JMS message {1}: could not check or park it behind its key''s dead "
            + "letter ({2}); rolled back, the next delivery tries again.");

    private final Text text;

    JmsMessage(Level level, String pattern) { text = new Text(level, pattern, InboxLog.LOG); }

    @Override public Text text() { return text; }
}
