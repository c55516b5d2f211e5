package io.github.jakartainbox.outbox;

import java.util.logging.Logger;

/** The outbox's logger: {@link OutboxMessage} logs to it. */
final class OutboxLog {

    static final Logger LOG = Logger.getLogger("io.github.jakartainbox.outbox");

    private OutboxLog() {
    }
}
