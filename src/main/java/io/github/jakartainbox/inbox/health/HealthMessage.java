package io.github.jakartainbox.inbox.health;

import io.github.jakartainbox.inbox.logging.InboxLog;
import io.github.jakartainbox.inbox.text.CataloguedMessage;
import java.util.logging.Level;

/**
 * The health checks' catalogue, {@code HEALTH}, four digits and the severity: the reasons in the checks' data
 * ({@code /health/ready}), where an operator reads them. docs/messages.md gives each id's cause and action.
 */
enum HealthMessage implements CataloguedMessage {

    HEALTH0001E(Level.SEVERE, "The inbox datasource {0} does not answer: {1}. Consumers wait until it does."),
    HEALTH0002E(Level.SEVERE, "The inbox schema in {0} is at version {1}, the application expects {2} (pending: {3})."),
    HEALTH0003E(Level.SEVERE, "The inbox datasource {0} takes no writes: {1}. Consumers wait until it does."),
    HEALTH0101E(Level.SEVERE, "Channel {0} has no {1}; set mp.messaging.incoming.{0}.{1}."),
    HEALTH0102E(Level.SEVERE, "Channel {0} (consumer group {1}) has no Kafka consumer in this server."),
    HEALTH0103E(Level.SEVERE, "Channel {0} (consumer group {1}, client {2}) last heartbeated {3} ago, longer than its "
            + "session timeout {4}."),
    HEALTH0104E(Level.SEVERE, "Channel {0}: the committed offset of partition {1} has stayed behind for {2}, longer "
            + "than commit-lag.alert {3}."),
    HEALTH0105E(Level.SEVERE, "Channel {0} (consumer group {1}, client {2}) has not joined its group within "
            + "inbox.health.start-grace {3}.");

    private final Text text;

    HealthMessage(Level level, String pattern) { text = new Text(level, pattern, InboxLog.LOG); }

    @Override public Text text() { return text; }
}
