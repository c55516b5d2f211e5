package io.github.jakartainbox.inbox.logging;

import java.util.logging.Logger;

/** The inbox's logger; what it logs, and at which level, is {@link InboxMessage}. */
public final class InboxLog {

    public static final Logger LOG = Logger.getLogger("io.github.jakartainbox.inbox");

    private InboxLog() {
    }

    /**
     * Logs a message at its own level.
     *
     * @param message the message
     * @param args    the values of its places
     */
    public static void log(InboxMessage message, Object... args) {
        if (LOG.isLoggable(message.level())) {
            LOG.log(message.level(), message.format(args));
        }
    }

    /**
     * @param message an error
     * @param args    the values of its places
     * @return the formatted text, for an exception or a dead-letter reason
     */
    public static String format(InboxMessage message, Object... args) {
        return message.format(args);
    }
}
