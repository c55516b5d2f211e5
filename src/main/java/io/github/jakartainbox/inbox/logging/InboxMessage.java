package io.github.jakartainbox.inbox.logging;

import java.text.MessageFormat;
import java.util.logging.Level;

/**
 * Every log line and error text of the inbox, each with an id an operator can search for, in Open Liberty's style
 * ({@code CWWKZ0001I}): {@code INBOX}, four digits, and the severity as last letter (I information, W warning,
 * E error). Each id is bound here to the {@link Level} it is logged at; an error that only travels as an exception
 * or a dead-letter reason carries its id at the start of the text. docs/messages.md lists them all (MessagesDocsTest keeps it so).
 *
 * <p>Ranges: 00xx deployment and configuration, 01xx duplicates, 02xx delivery failures and dead letters, 03xx
 * purge and partitions, 04xx the operator API, 05xx tracing, 06xx the {@code inbox-kafka} connector, 07xx
 * message-driven beans (Jakarta Messaging), 08xx two-phase commit (XA).
 */
public enum InboxMessage {

    INBOX0001I(Level.INFO, "Inbox schema is up to date in datasource {0} (Flyway, history table inbox_schema_history)."),
    INBOX0002E(Level.SEVERE, "The inbox datasource {0} was not found in JNDI ({1}). Define a <dataSource jndiName=\"{0}\"> in server.xml, or set inbox.datasource to the JNDI name of the datasource that holds your business tables."),
    INBOX0003E(Level.SEVERE, "The inbox tables are missing or out of date in datasource {0}: {1}. Run the SQL files in io/github/jakartainbox/inbox/db/migration of the inbox jar (and migration-monthly in monthly mode), or set inbox.schema.migrate=true. A database made by a pre-release build (0.1.0-SNAPSHOT before the migrations were folded) must be made anew."),
    INBOX0004E(Level.SEVERE, "Configuration key {0} has the value ''{1}''; it must be {2}."),
    INBOX0005E(Level.SEVERE, "@Idempotent method {0}: {1}"),
    INBOX0006W(Level.WARNING, "Configuration names consumer ''{0}'' (key {1}), but no @Idempotent method uses that consumer name; the key has no effect. Check its spelling."),
    INBOX0007E(Level.SEVERE, "@Idempotent consumers ''{0}'' ({1}) and ''{2}'' ({3}) are both stored in the inbox as ''{4}'': they would skip each other''s events as duplicates. Give each consumer its own name (inbox.consumer.<consumer>.name)."),
    INBOX0008E(Level.SEVERE, "The inbox is not ready yet: its tables are made at application start, outside any transaction, and that has not succeeded (see INBOX0002E or INBOX0003E). The caller''s transaction rolls back; the message is redelivered."),
    INBOX0009E(Level.SEVERE, "The inbox claim needs an active JTA transaction, so that the inbox row commits or rolls back together with the business change. Call it from an @Idempotent method or inside a container-managed transaction."),
    INBOX0011W(Level.WARNING, "Configuration key {0} is not a key of the inbox (or not in the form it is read: some keys are per consumer only, inbox.consumer.<consumer>.<key>, some global only); it has no effect. docs/configuration.md lists the keys."),
    INBOX0013W(Level.WARNING, "The inbox database (datasource {0}) gives no connection at application start: {1}. The application starts anyway; the inbox tables are made or checked once it answers (at the first delivery or readiness probe), readiness check inbox-database is DOWN until then, and deliveries wait unacknowledged. If this is not an outage, check the datasource''s host, port, database name and credentials."),
    INBOX0014W(Level.WARNING, "The application carries kafka-clients {0}, older than {1}: a broker restart can stop its Kafka channels until the server restarts (KAFKA-20232). Put kafka-clients {1} or later in WEB-INF/lib."),
    INBOX0012W(Level.WARNING, "@Idempotent method {0} reads Kafka channel {1} with isolation.level {2}: records of Kafka transactions that their producer aborted are delivered and processed as if they had happened. Set mp.messaging.incoming.{1}.isolation.level=read_committed."),
    INBOX0010E(Level.SEVERE, "Table inbox is {0} but inbox.partitioning is {1}; set inbox.partitioning={2} (the switch to monthly is one-way and must stay set)."),

    INBOX0101I(Level.FINE, "Skipped duplicate event {1} for consumer {0}: it was already processed; the message is acknowledged."),
    INBOX0102E(Level.SEVERE, "Consumer {0}: event {1} arrived again with a different payload than the one processed; it is skipped and dead-lettered with the details."),
    INBOX0103E(Level.SEVERE, "Event id {0} was already processed by consumer {1} with a different payload (its SHA-256 differs from the one stored in table inbox): the producer reused the event id, or changed the event''s bytes on a retry. This payload was NOT processed. Fix the producer; if its retries re-serialize events, set inbox.consumer.{1}.fingerprint=none."),

    INBOX0104I(Level.FINE, "Consumer {0}: skipped {1}, re-driven from dead letter {2} for consumer {3} only; acknowledged without effect."),

    INBOX0201W(Level.WARNING, "Consumer {0}, event {1}: attempt {2} of {3} failed (rolled back, or a commit of unknown outcome: the inbox row makes the retry safe either way); retrying in {4} ms. Cause: {5}"),
    INBOX0202E(Level.SEVERE, "Consumer {0}, event {1}: dead-lettered after {2} attempt(s); the message is acknowledged and the channel goes on. Re-drive it once the cause is fixed (InboxDeadLetters, table inbox_dead_letter), or discard it when the reason is INBOX0103E (a payload under an event id already processed: a re-drive would be skipped). Reason: {3}"),
    INBOX0203E(Level.SEVERE, "Consumer {0}, event {1}: could not record the dead letter ({2}); the message is kept unacknowledged and recording is retried in {3} ms."),
    INBOX0204E(Level.SEVERE, "Consumer {0}: the event id of a delivery is unusable; the delivery is dead-lettered and acknowledged. {1}"),
    INBOX0205W(Level.WARNING, "Consumer {0}, event {1}: transient database error (SQLState {2}); this delivery has waited {3} of its transient budget {4} (retry.transient-budget) and retries in {5} ms. The partition waits. Cause: {6}"),
    INBOX0206W(Level.WARNING, "Consumer {0}, event {1}: the database is unavailable; no attempt is used up, the delivery stays unacknowledged and retries in {2} ms. Cause: {3}"),
    INBOX0227W(Level.WARNING, "Consumer {0}, event {1}: a system the effect needs is unavailable; no attempt is used up, the delivery stays unacknowledged and retries in {2} ms. Cause: {3}"),
    INBOX0228E(Level.SEVERE, "{1} (on each of {0} attempt(s); the failure policy does not classify this error)"),
    INBOX0207E(Level.SEVERE, "Transient database errors (last SQLState {0}) went on for {1}, longer than the transient budget {2} (inbox.consumer.{3}.retry.transient-budget or inbox.retry.transient-budget): a statement of this event times out or deadlocks every time, or a lock was held longer than the budget. Last error: {4}"),
    INBOX0208E(Level.SEVERE, "The database refused this event''s data (SQLState {0}: {1}); the same statement would fail on every attempt, so it is dead-lettered at once. Fix the data or the schema, then re-drive. Error: {2}"),
    INBOX0209E(Level.SEVERE, "The method nacked the message: {0}"),
    INBOX0210E(Level.SEVERE, "No event id: {0} is missing. The producer must set a stable unique id (a UUID) on every event."),
    INBOX0211E(Level.SEVERE, "Blank event id in {0}. The producer must set a stable unique id (a UUID) on every event."),
    INBOX0212E(Level.SEVERE, "Event id in {0} is {1} characters long; at most {2} are accepted (inbox.consumer.<consumer>.event-id.max-length). Starts with: {3}"),
    INBOX0213E(Level.SEVERE, "Event id in {0} has leading or trailing whitespace: ''{1}''. Ids are not trimmed, so that two different ids never collapse into one."),
    INBOX0214E(Level.SEVERE, "Event id in {0} contains control or invisible format characters (such as U+200B or U+FEFF)."),
    INBOX0215E(Level.SEVERE, "Event id in {0} contains U+FFFD, the replacement character: the producer''s bytes were not valid UTF-8, and two such ids could not be told apart."),
    INBOX0216E(Level.SEVERE, "EventIdExtractor bean ''{0}'' failed: {1}"),
    INBOX0217E(Level.SEVERE, "Cannot read {0}: the method does not take a Message<T> parameter."),
    INBOX0218E(Level.SEVERE, "Cannot read {0}: the message is not a Kafka record ({1})."),
    INBOX0219E(Level.SEVERE, "{0} is not valid UTF-8."),
    INBOX0220E(Level.SEVERE, "Cannot read {0}: the payload is not valid UTF-8 (JSON text must be UTF-8, RFC 8259 section 8.1)."),
    INBOX0221E(Level.SEVERE, "Cannot read {0}: the payload is null (a tombstone record, or a value the deserializer could not read)."),
    INBOX0222E(Level.SEVERE, "Cannot read {0}: the payload is a {1}, not JSON text. Take the payload as String, byte[] or JsonObject, or set inbox.consumer.<consumer>.event-id.source to header or bean."),
    INBOX0223E(Level.SEVERE, "{0} must be a JSON string, but is a {1}. Send the event id as a string, for example a UUID."),
    INBOX0224E(Level.SEVERE, "Cannot read {0}: the payload is empty."),
    INBOX0225E(Level.SEVERE, "Cannot read {0}: the payload {1}."),
    INBOX0226E(Level.SEVERE, "Consumer {0}, a delivery without a usable event id: dead-lettered; the message is acknowledged and the channel goes on. It cannot be re-driven (nothing would tell its redelivery from another event): discard it, and have the producer send the event again, corrected, under its event id. Reason: {1}"),
    INBOX0230E(Level.SEVERE, "The partitioned inbox needs the event''s time: {0} is missing."),
    INBOX0231E(Level.SEVERE, "The partitioned inbox needs the event''s own time: event id {0} is not a UUIDv7. Send UUIDv7 event ids or set inbox.consumer.<consumer>.event-time.field."),
    INBOX0232E(Level.SEVERE, "No inbox partition holds event month {0}: the event is older than the inbox retention (its row may have been purged, so whether it was processed is unknown; re-drive it only if it was not) or further ahead than inbox.partition.months-ahead."),
    INBOX0233E(Level.SEVERE, "{0} is ''{1}'', not an ISO-8601 date-time with an offset (such as 2026-03-01T12:00:00Z)."),

    INBOX0240E(Level.SEVERE, "InboxDeadLetters.{0} must not run inside a JTA transaction: a re-drive claim must commit on its own before the record is sent, or a second re-drive could not see it. Call it from a method without a transaction."),

    INBOX0301W(Level.WARNING, "Consumer {0}: inbox retention {1} is not longer than the topic retention {2}. A replay of records older than the inbox retention would apply their effects again. Raise inbox.consumer.{0}.retention (or inbox.retention)."),
    INBOX0302E(Level.SEVERE, "The inbox purge failed and will be tried again at its next run: {0}"),
    INBOX0303I(Level.INFO, "Inbox purge done: {0} rows deleted in {1} batches, partitions dropped {2} (about {3} rows), created {4}, in {5} ms."),
    INBOX0304W(Level.WARNING, "The inbox purge is overdue: the last successful run finished at {0} (inbox.purge.overdue-after is {1}). Check the log for INBOX0302E."),
    INBOX0305I(Level.INFO, "Inbox purge scheduled: {0} (EJB calendar: second minute hour dayOfMonth month dayOfWeek)."),
    INBOX0306W(Level.WARNING, "inbox.purge.schedule is off while inbox.partitioning is monthly: partitions for the coming months are created only by the purge. Create them yourself (see docs/retention.md, Partitioned mode), or every event of a month without a partition is dead-lettered."),
    INBOX0307E(Level.SEVERE, "InboxPurge.purgeExpired() must not run inside a transaction: each batch commits on its own. Call it from a method without a transaction (the timer does)."),
    INBOX0308E(Level.SEVERE, "Cannot read the purge state (table inbox_purge_state): {0}"),
    INBOX0309W(Level.WARNING, "The application stops while the lease of a purge run cut by a database outage could not be given back (the database still refuses connections): every server''s purge waits until it expires, within inbox.purge.lease ({0})."),

    INBOX0401E(Level.SEVERE, "limit must be 1 to {0}, got {1}."),

    INBOX0500I(Level.INFO, "Inbox tracing is on: each delivery through @Idempotent gets an OpenTelemetry span (instrumentation scope {0}); spans are exported only while the OpenTelemetry SDK is enabled (otel.sdk.disabled=false)."),
    INBOX0501I(Level.INFO, "Inbox tracing is off: {0}."),

    INBOX0600E(Level.SEVERE, "Channel {0} uses connector inbox-kafka, which runs its Kafka consumer on a managed thread: java:comp/DefaultManagedThreadFactory was not found ({1}). Add the feature concurrent-3.0 to server.xml, or set mp.messaging.incoming.{0}.connector=liberty-kafka (one message per transaction)."),
    INBOX0601E(Level.SEVERE, "Channel {0} (connector inbox-kafka): {1}"),
    INBOX0602I(Level.INFO, "Channel {0} (connector inbox-kafka) consumes {1} as consumer group {2}: up to {3} deliveries per transaction (group.max-size), group transaction timeout {4} (group.timeout), isolation.level {5}."),
    INBOX0603W(Level.WARNING, "Channel {0}: a group of {1} deliveries rolled back ({2}); its messages are now processed one by one, each in its own transaction, with retries and dead letters."),
    INBOX0604E(Level.SEVERE, "Channel {0}: the message at {1} was not acknowledged ({2}); it and the records after it on its partition are delivered again in {3} ms."),
    INBOX0605W(Level.WARNING, "Channel {0}: committing offsets {1} failed ({2}); the commit is tried again after the next poll. Records processed since the last commit are delivered again after a restart or rebalance, and the inbox skips them."),
    INBOX0606E(Level.SEVERE, "Channel {0}: the Kafka consumer failed ({1}); it is closed and made anew in {2} ms."),
    INBOX0607I(Level.INFO, "Channel {0}: partitions {1} revoked; offsets {2} committed for them, nothing of theirs is left in flight."),
    INBOX0608W(Level.WARNING, "Channel {0}: the committed offset of {1} has stayed behind the processed records for {2} (committed {3}, processed up to {4}). After a restart or rebalance those records are delivered again (the inbox skips them); check the log for INBOX0605W."),
    INBOX0609E(Level.SEVERE, "Channel {0} sets concurrency but no topic: each copy of the channel is named {0}$1, {0}$2..., and the Kafka connectors read the topic named after the channel when topic is not set, so every copy would read a topic nobody writes to. Set mp.messaging.incoming.{0}.topic."),
    INBOX0610W(Level.WARNING, "Consumer {0}: a delivery''s event id or payload differs from the one read from its message before the group''s claim (read ahead {1}, delivered {2}); a converter between the Kafka value and the method''s parameter type does that. The group rolls back and is processed one by one; from now on this consumer''s groups claim one event per INSERT, as with group.claim=per-message (set it to silence this)."),
    INBOX0611I(Level.INFO, "The application is stopping: inbox-kafka channels {0} stopped polling, finished their groups in flight, committed their offsets and closed their consumers, in {1} ms."),
    INBOX0612W(Level.WARNING, "Channel {0}: {1} resumes at the database''s offset {2}, behind Kafka''s committed {3}: the database lost commits (a failover), and those records are read again."),
    INBOX0613W(Level.WARNING, "Channel {0}: the database no longer holds the offsets this channel wrote ({1}): it lost commits (a failover). Those partitions are read again from {2}."),
    INBOX0614I(Level.INFO, "Channel {0}: {1} resumes at Kafka''s offset {3}, not the database''s {2}: {4}. The database''s row is brought in line."),
    INBOX0615W(Level.WARNING, "Channel {0}: consumer group {1} has offsets in the database for {2}, which none of its topics {3} has; delete those rows if the topics are gone for good."),
    INBOX0616W(Level.WARNING, "Channel {0}: where {1} resume cannot be read ({2}); they are paused and tried again every second."),

    INBOX0701E(Level.SEVERE, "Cannot read {0}: the method does not take a jakarta.jms.Message parameter (the jms-property and jms-message-id sources are for a message-driven bean''s onMessage(Message))."),
    INBOX0702E(Level.SEVERE, "JMS property ''{0}'' holds a {1}, not a string. Send the event id as a string property (message.setStringProperty), for example a UUID."),
    INBOX0703E(Level.SEVERE, "Cannot read {0} of the JMS message: {1}"),
    INBOX0704W(Level.WARNING, "Consumer {0}, event {1}, JMS message {2}: delivery {3} failed (attempt {4} of {5}, retry.max-attempts); the transaction rolls back and the provider redelivers the message in about {6} ms. Cause: {7}"),
    INBOX0705W(Level.WARNING, "Consumer {0}, event {1}, JMS message {2}: the database is unavailable; the delivery waits in place up to {3} (inbox.jms.outage-wait) for it, then rolls back, and the redelivery uses no attempt. Cause: {4}"),
    INBOX0706E(Level.SEVERE, "Consumer {0}: {1} received a JMS message without a JTA transaction. An @Idempotent message-driven bean needs container-managed transactions with attribute REQUIRED (the default), so that the inbox claim, the work and the message''s consumption commit together."),
    INBOX0707E(Level.SEVERE, "Consumer {0}, JMS message {1}: failed {2} time(s) for the event''s own reason; dead-lettered at this delivery ({3}, JMSXDeliveryCount) without calling the method. Last failure: {4}"),
    INBOX0708E(Level.SEVERE, "Consumer {0}, JMS message {1}: dead-lettered; the message is consumed (the message-driven bean''s transaction commits its consumption, nothing else). Reason: {2}"),
    INBOX0709E(Level.SEVERE, "Consumer {0}, JMS message {1}: could not record the dead letter ({2}); the transaction rolls back, the message stays on its queue and the next delivery tries again."),
    INBOX0710E(Level.SEVERE, "Consumer {0}, JMS message {1}: the message-driven bean''s transaction did not commit after the method returned (JTA status {2}): a deferred constraint, a flush at commit or the commit itself failed. Counted as a failed attempt; the message is redelivered."),

    INBOX0800E(Level.SEVERE, "The inbox datasource {0} is an XA datasource (type=\"javax.sql.XADataSource\"), but its PostgreSQL server has max_prepared_transactions = {1}: every two-phase commit would fail at PREPARE TRANSACTION. Set max_prepared_transactions in postgresql.conf to at least max_connections (or at least the XA pools'' maxPoolSize summed over every server using this database) and restart PostgreSQL; or, when the inbox and the business data share this one database and no other resource joins the transaction, use type=\"javax.sql.ConnectionPoolDataSource\" (one-phase commit, docs/xa.md)."),
    INBOX0801E(Level.SEVERE, "Constraint {0} of table inbox (datasource {1}) is DEFERRABLE: INSERT ... ON CONFLICT cannot use a deferrable constraint as its arbiter, and a violation checked at commit would fail the prepare phase of a two-phase commit (a rollback or a heuristic outcome) instead of being skipped as a duplicate. Make it anew without DEFERRABLE (PostgreSQL cannot alter a key''s deferrability), in a quiet moment: {2}"),
    INBOX0802I(Level.INFO, "The inbox datasource {0} is an XA datasource; its PostgreSQL server allows {1} prepared transactions (max_prepared_transactions).");

    private final Level level;
    private final String pattern;

    InboxMessage(Level level, String pattern) {
        this.level = level;
        this.pattern = pattern;
    }

    /** @return the level this message is logged at */
    public Level level() {
        return level;
    }

    /**
     * @param args the values of the pattern's {@code {n}} places
     * @return the id, a colon and the text, e.g. {@code INBOX0004E: Configuration key ...}
     */
    public String format(Object... args) {
        return name() + ": " + MessageFormat.format(pattern, args);
    }
}
