package io.github.jakartainbox.outbox;

import java.util.logging.Logger;

/** The outbox's logger; what it logs, and at which level, is {@link OutboxMessage}. */
final class OutboxLog {

    static final Logger LOG = Logger.getLogger("io.github.jakartainbox.outbox");

    private OutboxLog() {
    }

    static String format(OutboxMessage message, Object... args) {
        return message.format(args);
    }

    static void log(OutboxMessage message, Object... args) {
        if (LOG.isLoggable(message.level())) {
            LOG.log(message.level(), message.format(args));
        }
    }
}
