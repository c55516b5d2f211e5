package io.github.jakartainbox.inbox.health;

import java.text.MessageFormat;
import java.util.Map;

/**
 * The health checks' messages, with ids {@code HEALTHnnnnS} (S = I/W/E): each says what is wrong and what to do.
 * They appear in the checks' data ({@code /health/ready}), where an operator reads them.
 */
final class Messages {

    private static final Map<String, String> TEXTS = Map.of(
            "HEALTH0001E", "The inbox datasource {0} does not answer: {1}. Check that PostgreSQL is up and reachable "
                    + "with the datasource''s settings; consumers wait (nothing is acknowledged) until it answers.",
            "HEALTH0002E", "The inbox schema in {0} is at version {1}, the application expects {2} (pending: {3}). "
                    + "Restart with inbox.schema.migrate=true, or apply those db/inbox migrations yourself.",
            "HEALTH0101E", "Channel {0} has no {1}: liberty-kafka cannot join a consumer group without one. Set "
                    + "mp.messaging.incoming.{0}.{1}.",
            "HEALTH0102E", "Channel {0} (consumer group {1}) has no Kafka consumer in this server: liberty-kafka did "
                    + "not start it or closed it. Look in the server log for CWMRX10nnE or SRMSG messages about {0}, "
                    + "fix the cause and restart the server.",
            "HEALTH0103E", "Channel {0} (consumer group {1}, client {2}) last heartbeated {3} ago, longer than its "
                    + "session timeout {4}: it is not consuming. liberty-kafka shut the channel down (log CWMRX1011E "
                    + "or CWMRX1002E, then SRMSG00201) or the broker is unreachable. Fix the cause and restart the "
                    + "server: liberty-kafka does not restart a channel.",
            "HEALTH0105E", "Channel {0} (consumer group {1}, client {2}) has not joined its group within "
                    + "inbox.health.start-grace {3} of the start: the broker is unreachable or the group''s rebalance "
                    + "does not end. Check bootstrap.servers and the group (kafka-consumer-groups --describe), or "
                    + "raise the grace if starts are that slow.",
            "HEALTH0104E", "Channel {0}: the committed offset of partition {1} has stayed behind the records processed "
                    + "from it for {2}, longer than commit-lag.alert {3}: offset commits fail (log INBOX0605W) or "
                    + "the consumer lost its group membership. After a restart or rebalance those records are "
                    + "delivered again (the inbox skips them). Check the broker and the consumer group.");

    private Messages() {
    }

    static String format(String id, Object... args) {
        return id + ": " + MessageFormat.format(TEXTS.get(id), args);
    }
}
