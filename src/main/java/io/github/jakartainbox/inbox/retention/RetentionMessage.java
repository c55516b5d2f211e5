package io.github.jakartainbox.inbox.retention;

import io.github.jakartainbox.inbox.text.CataloguedMessage;
import java.util.logging.Level;

/**
 * The retention check's catalogue, {@code RETAIN}, four digits and the severity. docs/messages.md gives each id's
 * cause and action.
 */
enum RetentionMessage implements CataloguedMessage {

    RETAIN0001W(Level.WARNING, "Consumer {0}: inbox retention {1} is not above topic {2}''s retention.ms {3} or the "
            + "broker''s offsets.retention.minutes {4} ({5})."),
    RETAIN0002W(Level.WARNING, "Consumer {0}: the retentions of topic {1} cannot be read ({2}) and no topic-retention "
            + "is set: inbox retention {3} is not checked."),
    RETAIN0003W(Level.WARNING, "The inbox retention check failed: {0}");

    private final Text text;

    RetentionMessage(Level level, String pattern) { text = new Text(level, pattern, RetentionCheck.LOG); }

    @Override public Text text() { return text; }
}
