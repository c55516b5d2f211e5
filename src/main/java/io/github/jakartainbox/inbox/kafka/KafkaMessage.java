package io.github.jakartainbox.inbox.kafka;

import io.github.jakartainbox.inbox.logging.InboxLog;
import io.github.jakartainbox.inbox.text.CataloguedMessage;
import java.util.logging.Level;

/**
 * The {@code inbox-kafka} connector's catalogue: {@code INBOX0600} to {@code INBOX0699}.
 * docs/messages.md gives each id's cause and action.
 */
public enum KafkaMessage implements CataloguedMessage {

    INBOX0600E(Level.SEVERE, "Channel {0} uses connector inbox-kafka, which needs feature concurrent-3.0: "
            + "java:comp/DefaultManagedThreadFactory was not found ({1})."),
    INBOX0601E(Level.SEVERE, "Channel {0} (connector inbox-kafka): {1}"),
    INBOX0602I(Level.INFO, "Channel {0} (inbox-kafka) reads {1} as consumer group {2}: group.max-size {3}, "
            + "group.timeout {4}, isolation.level {5}."),
    INBOX0603W(Level.WARNING, "Channel {0}: a group of {1} deliveries rolled back ({2}); its messages are processed "
            + "one by one."),
    INBOX0604E(Level.SEVERE, "Channel {0}: the message at {1} was not acknowledged ({2}); it is delivered again in {3} "
            + "ms."),
    INBOX0605W(Level.WARNING, "Channel {0}: committing offsets {1} failed ({2}); tried again after the next poll."),
    INBOX0606E(Level.SEVERE, "Channel {0}: the Kafka consumer failed ({1}); it is closed and made anew in {2} ms."),
    INBOX0607I(Level.INFO, "Channel {0}: partitions {1} revoked; offsets {2} committed for them."),
    INBOX0608W(Level.WARNING, "Channel {0}: the committed offset of {1} has stayed behind the processed records for "
            + "{2} (committed {3}, processed up to {4})."),
    INBOX0609E(Level.SEVERE, "Channel {0} sets concurrency but no topic: its copies {0}$1, {0}$2... would each read "
            + "the topic of their own name."),
    INBOX0610W(Level.WARNING, "Consumer {0}: a delivery differs from the event read ahead for its group''s claim (read "
            + "ahead {1}, delivered {2}); it now claims one event per INSERT."),
    INBOX0611I(Level.INFO, "The application is stopping: inbox-kafka channels {0} committed their offsets and closed, "
            + "in {1} ms."),
    INBOX0612W(Level.WARNING, "Channel {0}: {1} resumes at the database''s offset {2}, behind Kafka''s {3}: the "
            + "database lost commits (a failover)."),
    INBOX0613W(Level.WARNING, "Channel {0}: the database lost the offsets this channel wrote ({1}), a failover; those "
            + "partitions are read again from {2}."),
    INBOX0614I(Level.INFO, "Channel {0}: {1} resumes at Kafka''s offset {3}, not the database''s {2}: {4}."),
    INBOX0615W(Level.WARNING, "Channel {0}: consumer group {1} has database offsets for {2}, which none of its topics "
            + "{3} has."),
    INBOX0616W(Level.WARNING, "Channel {0}: where {1} resume cannot be read ({2}); they are paused and tried again "
            + "every second."),
    INBOX0617W(Level.WARNING, "Channel {0}: database offsets {1} are not proven to be of topic id {2} (a topic "
            + "made again under the name); those partitions are read from their start."),
    INBOX0618W(Level.WARNING, "Channel {0}: topic {1} existed and the cluster no longer has it (deleted); "
            + "nothing of it is read until it exists again."),
    INBOX0619I(Level.INFO, "Channel {0}: topic {1} exists again (topic id {2}, {3} partitions)."),
    INBOX0620E(Level.SEVERE, "Channel {0}: the message at {1} failed {2} times in a row ({3}); it is delivered "
            + "again every {4} ms, and this is said again at {5}."),
    INBOX0621E(Level.SEVERE, "Channel {0} (inbox-kafka, group.max-size {1}): method lacks @Idempotent and "
            + "@Transactional: after a rollback it runs with no transaction. Add one or set group.max-size=1."),
    INBOX0622I(Level.INFO, "Channel {0} (inbox-kafka) reads {1} as share group {2}: up to {3} "
            + "records per transaction, each acknowledged after its commit."),
    INBOX0623W(Level.WARNING, "Channel {0}: acknowledgements of {1} failed ({2}); those records come back and meet "
            + "their inbox rows. Said once per consumer, counted always."),
    INBOX0624W(Level.WARNING, "Channel {0}: the delivery of {1} has run {2} ms, past the lock ({3} ms): its poll''s {4} "
            + "records go back to the share group."),
    INBOX0625W(Level.WARNING, "Channel {0}: share group {1}''s config {2} could not be set ({3}); nothing is read until "
            + "it is, tried again in {4} ms."),
    INBOX0626E(Level.SEVERE, "Consumer {0} sets dead-letter.order=key, but channel {1} is a share group "
            + "(group.type=share): no order holds across share consumers. Set dead-letter.order=none."),
    INBOX0627E(Level.SEVERE, "Consumer {0} sets dead-letter.order=key, which only inbox-kafka classic channels and "
            + "message-driven beans keep; {1}. Set dead-letter.order=none."),
    INBOX0628I(Level.INFO, "Channel {0}: topic {1} does not exist yet; it is read once it is made."),
    INBOX0629I(Level.INFO, "Channel {0}: topic {1} now exists (topic id {2}, {3} partitions)."),
    INBOX0635W(Level.WARNING, "Channel {0}: group.timeout {1} exceeds the unrenewed share lock ({2} ms): a group "
            + "whose transaction runs that long has its records handed out again meanwhile.");

    private final Text text;

    KafkaMessage(Level level, String pattern) { text = new Text(level, pattern, InboxLog.LOG); }

    @Override public Text text() { return text; }
}
