package io.github.jakartainbox.inbox;

import java.text.MessageFormat;
import java.util.Map;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The inbox's log and error messages, each with an id an operator can search for. The id's last letter is the
 * severity: I information, W warning, E error.
 */
final class InboxLog {

    static final Logger LOG = Logger.getLogger("io.github.jakartainbox.inbox");

    private static final Map<String, String> MESSAGES = Map.ofEntries(
            Map.entry("INBOX0001I", "Inbox schema is up to date in datasource {0} (Flyway, history table inbox_schema_history)."),
            Map.entry("INBOX0002E", "The inbox datasource {0} was not found in JNDI ({1}). Define a <dataSource jndiName=\"{0}\"> in server.xml, or set inbox.datasource to the JNDI name of the datasource that holds your business tables."),
            Map.entry("INBOX0003E", "The inbox tables are missing or out of date in datasource {0}: {1}. Run the SQL in db/inbox of the inbox jar, or set inbox.schema.migrate=true."),
            Map.entry("INBOX0004E", "Configuration key {0} has the value ''{1}''; it must be {2}."),
            Map.entry("INBOX0005E", "@Idempotent method {0}: {1}"),
            Map.entry("INBOX0006W", "Configuration names consumer ''{0}'' (key {1}), but no @Idempotent method uses that consumer name; the key has no effect. Check its spelling."),
            Map.entry("INBOX0007W", "@Idempotent method {0} reads Kafka channel {1} with isolation.level {2}: records of Kafka transactions that their producer aborted are delivered and processed as if they had happened. Set mp.messaging.incoming.{1}.isolation.level=read_committed."),
            Map.entry("INBOX0101I", "Skipped duplicate event {1} for consumer {0}: it was already processed; the message is acknowledged."),
            Map.entry("INBOX0102E", "Consumer {0}: event {1} arrived again with a different payload than the one processed; it is skipped and dead-lettered with the details."),
            Map.entry("INBOX0201W", "Consumer {0}, event {1}: attempt {2} of {3} failed (rolled back, or a commit of unknown outcome: the inbox row makes the retry safe either way); retrying in {4} ms. Cause: {5}"),
            Map.entry("INBOX0202E", "Consumer {0}, event {1}: dead-lettered after {2} attempt(s); the message is acknowledged and the channel goes on. Re-drive it from table inbox_dead_letter. Reason: {3}"),
            Map.entry("INBOX0203E", "Consumer {0}, event {1}: could not record the dead letter ({2}); the message is kept unacknowledged and recording is retried in {3} ms."),
            Map.entry("INBOX0301W", "Consumer {0}: inbox retention {1} is not longer than the topic retention {2}. A replay of records older than the inbox retention would apply their effects again. Raise inbox.consumer.{0}.retention (or inbox.retention)."),
            Map.entry("INBOX0302E", "The inbox purge failed and will be tried again at its next run: {0}"),
            Map.entry("INBOX0303I", "Inbox purge done: {0} rows deleted in {1} batches, partitions dropped {2} (about {3} rows), created {4}, in {5} ms."),
            Map.entry("INBOX0304W", "The inbox purge is overdue: the last successful run finished at {0} (inbox.purge.overdue-after is {1}). Check the log for INBOX0302E."),
            Map.entry("INBOX0306W", "inbox.purge.schedule is off while inbox.partitioning is monthly: partitions for the coming months are created only by the purge. Create them yourself (see README), or every event of a month without a partition is dead-lettered."),
            Map.entry("INBOX0305I", "Inbox purge scheduled: {0} (EJB calendar: second minute hour dayOfMonth month dayOfWeek)."),
            Map.entry("INBOX0204E", "Consumer {0}: the event id of a delivery is unusable; the delivery is dead-lettered and acknowledged. {1}"));

    private InboxLog() {
    }

    static String format(String id, Object... args) {
        return id + ": " + MessageFormat.format(MESSAGES.get(id), args);
    }

    static void log(Level level, String id, Object... args) {
        if (LOG.isLoggable(level)) {
            LOG.log(level, format(id, args));
        }
    }
}
