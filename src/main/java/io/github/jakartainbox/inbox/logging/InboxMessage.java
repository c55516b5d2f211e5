package io.github.jakartainbox.inbox.logging;

import io.github.jakartainbox.inbox.text.CataloguedMessage;
import java.util.logging.Level;

/**
 * The inbox's catalogue: every log line and error text of the inbox, {@code INBOX}, four digits and the severity.
 * An error that only travels as an exception or a dead-letter reason carries its id at the start of the text.
 * docs/messages.md gives each id's cause and action (MessagesDocsTest keeps it so).
 *
 * <p>Ranges: 00xx deployment and configuration, 01xx duplicates, 02xx delivery failures and dead letters, 03xx
 * purge and partitions, 04xx the operator API, 05xx tracing; the capabilities keep theirs (docs/messages.md,
 * "Catalogues").
 */
public enum InboxMessage implements CataloguedMessage {

    INBOX0001I(Level.INFO, "Inbox schema is up to date in datasource {0} (Flyway, history table "
            + "inbox_schema_history)."),
    INBOX0002E(Level.SEVERE, "The inbox datasource {0} was not found in JNDI ({1}); define it in server.xml, or set "
            + "inbox.datasource to its JNDI name."),
    INBOX0003E(Level.SEVERE, "The inbox tables are missing or out of date in datasource {0}: {1}. Set "
            + "inbox.schema.migrate=true or run the jar''s migrations."),
    INBOX0004E(Level.SEVERE, "Configuration key {0} has the value ''{1}''; it must be {2}."),
    INBOX0005E(Level.SEVERE, "@Idempotent method {0}: {1}"),
    INBOX0006W(Level.WARNING, "Key {1} names consumer ''{0}'', which no @Idempotent method uses; the key has no "
            + "effect."),
    INBOX0007E(Level.SEVERE, "@Idempotent consumers ''{0}'' ({1}) and ''{2}'' ({3}) are both stored as ''{4}'': they "
            + "would skip each other''s events."),
    INBOX0008E(Level.SEVERE, "The inbox is not ready: its tables were not made or checked at start (see INBOX0002E, "
            + "INBOX0003E); the message is redelivered."),
    INBOX0009E(Level.SEVERE, "The inbox claim needs an active JTA transaction: call it from an @Idempotent method or a "
            + "container-managed transaction."),
    INBOX0011W(Level.WARNING, "Configuration key {0} is not a key of the inbox, or not in the form it is read; it has "
            + "no effect."),
    INBOX0013W(Level.WARNING, "The inbox datasource {0} gives no connection at application start: {1}. The application "
            + "starts; deliveries wait until it answers."),
    INBOX0014W(Level.WARNING, "The application carries kafka-clients {0}, older than {1}: a broker restart can stop "
            + "its Kafka channels (KAFKA-20232)."),
    INBOX0012W(Level.WARNING, "@Idempotent method {0} reads Kafka channel {1} with isolation.level {2}: records of "
            + "aborted Kafka transactions are processed."),
    INBOX0010E(Level.SEVERE, "Table inbox is {0} but inbox.partitioning is {1}; set inbox.partitioning={2}."),

    INBOX0101I(Level.FINE, "Skipped duplicate event {1} for consumer {0}: it was already processed; the message is "
            + "acknowledged."),
    INBOX0102E(Level.SEVERE, "Consumer {0}: event {1} arrived again with a different payload; it is skipped and "
            + "dead-lettered."),
    INBOX0103E(Level.SEVERE, "Event id {0} was already processed by consumer {1} with a different payload (SHA-256); "
            + "this payload was not processed."),
    INBOX0104I(Level.FINE, "Consumer {0}: skipped {1}, re-driven from dead letter {2} for consumer {3} only; "
            + "acknowledged without effect."),
    INBOX0105W(Level.WARNING, "Consumer {0}: {1} is aimed at consumer {2} (dead letter {3}) without the "
            + "database''s confirmation; processed as any other record ({4} so far)."),

    INBOX0201W(Level.WARNING, "Consumer {0}, event {1}: attempt {2} of {3} failed; retrying in {4} ms. Cause: {5}"),
    INBOX0202E(Level.SEVERE, "Consumer {0}, event {1}: dead-lettered after {2} attempt(s); the message is "
            + "acknowledged. Reason: {3}"),
    INBOX0203E(Level.SEVERE, "Consumer {0}, event {1}: could not record the dead letter ({2}); the message stays "
            + "unacknowledged, retried in {3} ms."),
    INBOX0204E(Level.SEVERE, "Consumer {0}: a delivery''s event id is unusable; it is dead-lettered and acknowledged. "
            + "{1}"),
    INBOX0205W(Level.WARNING, "Consumer {0}, event {1}: transient database error (SQLState {2}); waited {3} of budget "
            + "{4}, retrying in {5} ms. Cause: {6}"),
    INBOX0206W(Level.WARNING, "Consumer {0}, event {1}: the database is unavailable; retrying in {2} ms, no attempt "
            + "used. Cause: {3}"),
    INBOX0227W(Level.WARNING, "Consumer {0}, event {1}: a system the effect needs is unavailable; retrying in {2} ms, "
            + "no attempt used. Cause: {3}"),
    INBOX0229E(Level.SEVERE, "{0} (the consumer''s method declared the event unprocessable: dead-lettered at once)"),
    INBOX0228E(Level.SEVERE, "{1} (on each of {0} attempt(s); the failure policy does not classify this error)"),
    INBOX0207E(Level.SEVERE, "Transient database errors (last SQLState {0}) went on for {1}, longer than consumer "
            + "{3}''s budget {2}. Last error: {4}"),
    INBOX0208E(Level.SEVERE, "The database refused this event''s data (SQLState {0}: {1}); dead-lettered at once. "
            + "Error: {2}"),
    INBOX0209E(Level.SEVERE, "The method nacked the message: {0}"),
    INBOX0210E(Level.SEVERE, "No event id: {0} is missing."),
    INBOX0211E(Level.SEVERE, "Blank event id in {0}."),
    INBOX0212E(Level.SEVERE, "Event id in {0} is {1} characters long, more than {2}. Starts with: {3}"),
    INBOX0213E(Level.SEVERE, "Event id in {0} has leading or trailing whitespace: ''{1}''."),
    INBOX0214E(Level.SEVERE, "Event id in {0} contains control or invisible format characters (such as U+200B or "
            + "U+FEFF)."),
    INBOX0215E(Level.SEVERE, "Event id in {0} contains U+FFFD, the replacement character: the producer''s bytes were "
            + "not valid UTF-8."),
    INBOX0216E(Level.SEVERE, "EventIdExtractor bean ''{0}'' failed: {1}"),
    INBOX0217E(Level.SEVERE, "Cannot read {0}: the method does not take a Message<T> parameter."),
    INBOX0218E(Level.SEVERE, "Cannot read {0}: the message is not a Kafka record ({1})."),
    INBOX0219E(Level.SEVERE, "{0} is not valid UTF-8."),
    INBOX0220E(Level.SEVERE, "Cannot read {0}: the payload is not valid UTF-8."),
    INBOX0221E(Level.SEVERE, "Cannot read {0}: the payload is null (a tombstone record, or a value the deserializer "
            + "could not read)."),
    INBOX0222E(Level.SEVERE, "Cannot read {0}: the payload is a {1}, not JSON text."),
    INBOX0223E(Level.SEVERE, "{0} must be a JSON string, but is a {1}."),
    INBOX0224E(Level.SEVERE, "Cannot read {0}: the payload is empty."),
    INBOX0234E(Level.SEVERE, "No event id: {0} is null; send the id as a JSON string."),
    INBOX0225E(Level.SEVERE, "Cannot read {0}: the payload {1}."),
    INBOX0226E(Level.SEVERE, "Consumer {0}: a delivery without a usable event id was dead-lettered and acknowledged; "
            + "it cannot be re-driven. Reason: {1}"),
    INBOX0230E(Level.SEVERE, "The partitioned inbox needs the event''s time: {0} is missing."),
    INBOX0231E(Level.SEVERE, "The partitioned inbox needs the event''s own time: event id {0} is not a UUIDv7."),
    INBOX0232E(Level.SEVERE, "No inbox partition holds event month {0}: it is older than the inbox retention or beyond "
            + "inbox.partition.months-ahead."),
    INBOX0233E(Level.SEVERE, "{0} is ''{1}'', not an ISO-8601 date-time with an offset (such as "
            + "2026-03-01T12:00:00Z)."),
    INBOX0240E(Level.SEVERE, "InboxDeadLetters.{0} must not run inside a JTA transaction: a re-drive claim commits on "
            + "its own."),
    INBOX0235I(Level.FINE, "Consumer {0}: the record at {1} is parked behind the dead letter of key {2}; it is "
            + "processed when that key''s sequence is re-driven."),
    INBOX0236W(Level.WARNING, "Consumer {0}: dead letter {2} heads the sequence of key {1}; the consumer''s later "
            + "records of that key are parked until the sequence is re-driven."),
    INBOX0237I(Level.INFO, "Consumer {0}: the sequence of key {1} was re-driven by {2}: {3} records delivered in "
            + "order; the sequence is closed."),
    INBOX0238W(Level.WARNING, "Consumer {0}: the re-drive of key {1} by {2} stopped at dead letter {3}, the "
            + "sequence''s new head; {4} records were delivered before it."),
    INBOX0239E(Level.SEVERE, "Consumer {0}: the sequence of key {1} is being re-driven by {2} since {3}; try again "
            + "when that re-drive has ended."),
    INBOX0241W(Level.WARNING, "Consumer {0}: retry.max-attempts {1} exceeds the share group''s delivery limit {2}; "
            + "a failing event is dead-lettered at attempt {2}."),
    INBOX0242W(Level.WARNING, "Consumer {0}: transaction timeout {1} ({3}) exceeds the unrenewed share lock {2}: a "
            + "slow transaction''s record is handed out again."),
    INBOX0245I(Level.INFO, "Consumer {0}: the sequence of key {1} was discarded by {2}: {3} records discarded "
            + "unprocessed, kept as discarded dead letters; the sequence is closed."),
    INBOX0246W(Level.WARNING, "Consumer {0}: the record at {1}, parked behind dead letter {2} (key {3}), was "
            + "discarded unprocessed with its sequence by {4}."),
    INBOX0247E(Level.SEVERE, "Dead letter {0} heads no open sequence: it is no dead letter of a keyed record with "
            + "order by key, or its sequence is closed."),
    INBOX0248W(Level.WARNING, "Consumer {0}: the bulk {1} stopped at the sequence of key {2}: {3}; the sequences "
            + "after it were not tried."),
    INBOX0249E(Level.SEVERE, "Event id in {0} is not in Unicode normalization form C (NFC): ''{1}''. Two spellings of "
            + "one text would be two events; the producer must send the id in NFC."),

    INBOX0301W(Level.WARNING, "Consumer {0}: inbox retention {1} is not longer than the topic retention {2}: a replay "
            + "of older records would apply them again."),
    INBOX0302E(Level.SEVERE, "The inbox purge failed and will be tried again at its next run: {0}"),
    INBOX0303I(Level.INFO, "Inbox purge done: {0} rows deleted in {1} batches, partitions dropped {2} (about {3} "
            + "rows), created {4}, in {5} ms."),
    INBOX0304W(Level.WARNING, "The inbox purge is overdue: its last successful run finished at {0} "
            + "(inbox.purge.overdue-after {1})."),
    INBOX0305I(Level.INFO, "Inbox purge scheduled: {0} (EJB calendar: second minute hour dayOfMonth month dayOfWeek)."),
    INBOX0306W(Level.WARNING, "inbox.purge.schedule is off while inbox.partitioning is monthly: nothing creates the "
            + "coming months'' partitions."),
    INBOX0307E(Level.SEVERE, "InboxPurge.purgeExpired() must not run inside a transaction: each batch commits on its "
            + "own."),
    INBOX0308E(Level.SEVERE, "Cannot read the purge state (table inbox_purge_state): {0}"),
    INBOX0310I(Level.INFO, "The inbox purge kept {0} records parked behind the dead letters of {1} key sequences "
            + "(the oldest parked {2} ago) until their sequences are re-driven."),
    INBOX0309W(Level.WARNING, "A purge lease cut by a database outage could not be given back at stop; the purge waits "
            + "at most inbox.purge.lease ({0})."),

    INBOX0401E(Level.SEVERE, "limit must be 1 to {0}, got {1}."),

    INBOX0500I(Level.INFO, "Inbox tracing is on: an OpenTelemetry span per @Idempotent delivery (instrumentation scope "
            + "{0})."),
    INBOX0501I(Level.INFO, "Inbox tracing is off: {0}.");

    private final Text text;

    InboxMessage(Level level, String pattern) { text = new Text(level, pattern, InboxLog.LOG); }

    @Override public Text text() { return text; }
}
