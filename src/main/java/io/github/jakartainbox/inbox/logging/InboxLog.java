package io.github.jakartainbox.inbox.logging;

import java.util.logging.Logger;

/** The inbox's logger: {@link InboxMessage} logs to it, and so do the inbox's FINE diagnostics without an id. */
public final class InboxLog {

    public static final Logger LOG = Logger.getLogger("io.github.jakartainbox.inbox");

    private InboxLog() {
    }
}
