package io.github.jakartainbox.billing;

import java.text.MessageFormat;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The billing service's log lines and dead-letter reasons, each with an id in the library's style ({@code BILLING},
 * four digits, the severity), bound to its level. 01xx: the {@code orders.confirmed} contract (dead-letter reasons);
 * 02xx: operations.
 */
enum BillingMessage {

    BILLING0101E(Level.SEVERE, "orders.confirmed value is empty ({0})."),
    BILLING0102E(Level.SEVERE, "orders.confirmed value is {0} bytes, more than the {1} an order event may have; the producer sent something else."),
    BILLING0103E(Level.SEVERE, "orders.confirmed value is not valid UTF-8 text (JSON must be UTF-8, RFC 8259 section 8.1); it is kept byte for byte in inbox_dead_letter.payload_bytes."),
    BILLING0104E(Level.SEVERE, "orders.confirmed value {0}"),
    BILLING0106E(Level.SEVERE, "amount must be a decimal string of ASCII digits with at most 2 decimals after a point, such as \"129.90\" (no sign, exponent, spaces or other digits), got \"{0}\"."),
    BILLING0107E(Level.SEVERE, "amount {0} must be positive, with at most {1} integer digits and 2 decimals."),
    BILLING0108E(Level.SEVERE, "currency ''{0}'' is not an ISO 4217 currency code of money."),
    BILLING0216E(Level.SEVERE, "amount {0} has {1} decimal(s), but currency {2} has {3} (ISO 4217 minor units): it is no amount in that currency. The producer must send the amount in the currency''s units."),
    BILLING0109E(Level.SEVERE, "field ''{0}'' must be a non-empty JSON string, got {1}."),
    BILLING0110E(Level.SEVERE, "field ''{0}'' has {1} characters, more than the {2} it may have: ''{3}''."),
    BILLING0111E(Level.SEVERE, "field ''{0}'' holds control character U+{1} at index {2}{3}: ''{4}''."),
    BILLING0112E(Level.SEVERE, "{0} ''{1}'' is not one plain address: it holds {2}. Send exactly one local-part@domain, without names, comments, quotes or brackets (RFC 5322 section 3.4.1, dot-atom form)."),
    BILLING0113E(Level.SEVERE, "{0} ''{1}'' holds non-ASCII character U+{2} at index {3}: internationalized addresses are not supported (no SMTPUTF8, RFC 6531; no IDNA, RFC 5890), as the mailer would send them in a platform charset. Send an ASCII address."),
    BILLING0114E(Level.SEVERE, "{0} ''{1}'' is not one address local-part@domain: {2} (RFC 5322 section 3.4.1)."),
    BILLING0115E(Level.SEVERE, "{0} ''{1}'': the local part {2}; it must be a dot-atom, runs of letters, digits and the symbols RFC 5322 allows separated by single dots (RFC 5322 section 3.2.3)."),
    BILLING0116E(Level.SEVERE, "{0} ''{1}'': the local part has {2} octets, more than 64 (RFC 5321 section 4.5.3.1.1)."),
    BILLING0117E(Level.SEVERE, "{0} ''{1}'': the domain {2}; it must be two or more dot-separated labels of 1 to 63 letters, digits and hyphens, no hyphen first or last (RFC 5321 section 4.1.2, RFC 1035 section 2.3.1)."),
    BILLING0118E(Level.SEVERE, "{0} ''{1}'': the domain has {2} octets, more than 255 (RFC 5321 section 4.5.3.1.2)."),
    BILLING0119E(Level.SEVERE, "{0} ''{1}'' has {2} octets, more than 254: an SMTP path holds 256 with its angle brackets (RFC 5321 section 4.5.3.1.3)."),

    BILLING0121E(Level.SEVERE, "invoices.issued value is empty."),
    BILLING0122E(Level.SEVERE, "invoices.issued value is not a JSON object: {0}"),
    BILLING0123E(Level.SEVERE, "field ''invoice_id'' must be an integer."),
    BILLING0124E(Level.SEVERE, "invoices.issued value has a malformed field: {0}"),
    BILLING0125E(Level.SEVERE, "invoice {0} of event {1} does not exist in this database: the event belongs to another database, or its invoice was deleted."),
    BILLING0126E(Level.SEVERE, "customer_email of invoice {0} is not a mail address: {1}"),
    BILLING0127E(Level.SEVERE, "The SMTP server deferred the recipient of invoice mail {0} (retried up to the mailer''s attempt limit, then dead-lettered): {1}"),
    BILLING0130E(Level.SEVERE, "The SMTP server refused invoice mail {0} of invoice {1} for good: {2}. Nothing was sent; correct the address or the server''s setting, then re-drive this dead letter."),
    BILLING0131E(Level.SEVERE, "Invoice {0} is not mailed: its address ''{1}'' does not make exactly one plain recipient ({2} found); nothing was sent."),
    BILLING0132E(Level.SEVERE, "Delivery of invoice mail {0} of invoice {1} is uncertain: the message was sent but the SMTP server''s reply to its end did not come ({2}). Not sent again: look the Message-ID up at the server; re-drive this dead letter if the mail is not there, discard it if it is."),
    BILLING0133W(Level.WARNING, "The SMTP server is unavailable for invoice mail {0}: {1}"),
    BILLING0134W(Level.WARNING, "Mail status {1} of invoice {0} could not be recorded on the invoice ({2}); the dead letter still holds the reason."),
    BILLING0128E(Level.SEVERE, "invoice {0} of this database is for order {1}, but event {2} is for order {3} ({4}): the event comes from another database''s invoices (another service or a test publishing to the same topic); nothing is mailed. Give each database its own invoices.issued topic and mailer group."),

    BILLING0201I(Level.INFO, "Dead letter {0} (consumer {1}, event {2}) re-driven by {3} to {4}, for {5}."),
    BILLING0202I(Level.INFO, "Dead letter {0} (consumer {1}, event {2}) discarded by {3}."),
    BILLING0203W(Level.WARNING, "Re-drive of dead letter {0} failed: the broker did not acknowledge ({1}); the row stays open. Try again once the broker is back."),
    BILLING0217W(Level.WARNING, "Re-drive of dead letter {0} through the outbox failed: its transaction did not commit ({1}); nothing is sent and the row stays open. Try again once the database answers."),
    BILLING0204E(Level.SEVERE, "Variable {0} is not set, so user {1} cannot use the REST API. Set environment variable {2}, or a file {0} in the server''s variables directory."),
    BILLING0205E(Level.SEVERE, "The billing tables are not migrated yet (the application is still starting, or the database gave no connection); the attempt is retried."),
    BILLING0207W(Level.WARNING, "order-status: skipped an orders.confirmed record that breaks the contract (no dead letter: this consumer keeps no inbox): {0}"),
    BILLING0206E(Level.SEVERE, "Configuration key {0} has the value ''{1}''; it must be an ISO-8601 duration such as PT10M."),
    BILLING0208I(Level.INFO, "Order event {0} sent to JMS queue {1} by {2} (JMSMessageID {3})."),
    BILLING0209E(Level.SEVERE, "The JMS message is a {0}, not a TextMessage: consumer billing-jms reads an order event''s JSON text (UTF-8)."),
    BILLING0210W(Level.WARNING, "Could not send to JMS queue {0}: {1}. Nothing was sent; try again once the messaging engine is up."),
    BILLING0211W(Level.WARNING, "Forbidden: {0} may not call {1}; it needs role {2} (dead letters, failing outbox rows and every change). Ask an administrator for that role, or read the figures only."),
    BILLING0212W(Level.WARNING, "The billing database gives no connection at application start: {0}. The application starts anyway; the billing tables are migrated when a consumer first needs them."),
    BILLING0213W(Level.WARNING, "{0} answered 503 (incident {1}): {2}. Try again in a few seconds."),
    BILLING0214E(Level.SEVERE, "{0} failed (incident {1}); the server log has the details under this incident number."),
    BILLING0219W(Level.WARNING, "Topic {0} has {1} partition(s), fewer than the {2} of {3}: fewer consumer threads and servers can share it. Add partitions with kafka-topics.sh --alter --partitions {2} (one key''s records may then go out of order once, at the change)."),
    BILLING0220W(Level.WARNING, "Topic {0} could not be created or checked with {1} partitions: {2}. The first producer or consumer may create it with the broker''s default partition count."),
    BILLING0215W(Level.WARNING, "Consumer group order-status, order {0}: the database is unavailable; the delivery stays unacknowledged and is tried again in {1} ms. Cause: {2}"),

    // 023x: requests the REST API refuses (RequestGuard, QueryParams, JmsOrderResource): the answer's body starts with the id
    BILLING0230E(Level.SEVERE, "Refused {0} {1} from another site (Origin {2}, Sec-Fetch-Site {3}); this service''s origin is {4}. The API takes changes only from its own page or from origins in billing.api.allowed-origins, so that a page elsewhere cannot act with an operator''s browser login. A script or tool sends no Origin header and is not refused; behind a reverse proxy that changes the host or scheme, add the public origin to billing.api.allowed-origins."),
    BILLING0231E(Level.SEVERE, "Refused {0} {1}: a read of the API by a page of another site (Sec-Fetch-Site {2}, Sec-Fetch-Mode {3}, Origin {4}); its data is for this service''s own page. Open the URL directly, call it from a tool (no Origin header), or add the page''s origin to billing.api.allowed-origins."),
    BILLING0232E(Level.SEVERE, "{0} {1} takes a body of type application/json only, got Content-Type {2}. Send the event as UTF-8 JSON with the header Content-Type: application/json."),
    BILLING0233E(Level.SEVERE, "The body of {0} {1} cannot be used: {2}. Send it uncompressed (no Content-Encoding header), as plain UTF-8 JSON of at most {3} bytes."),
    BILLING0234E(Level.SEVERE, "The body of {0} {1} is {2}, more than the {3} bytes an order event may have; nothing was sent. Send one orders.confirmed event (a few hundred bytes of JSON)."),
    BILLING0235E(Level.SEVERE, "The body of {0} {1} is not UTF-8 text; a JMS TextMessage carries text only, so it cannot be sent as it is. Send the event as UTF-8 JSON."),
    BILLING0236E(Level.SEVERE, "{0} must be a number from {1} to {2}, got {3}."),
    BILLING0237E(Level.SEVERE, "{0} must be an ISO-8601 duration from PT0S to {1} (e.g. PT10M, P2D), got {2}."),
    BILLING0238E(Level.SEVERE, "{0} {1}, got {2}."),
    BILLING0240E(Level.SEVERE, "Dead letter {0} is being re-driven by {1} (claimed at {2}); this call sent nothing. Look at the row in a few seconds. If that re-drive never finishes (its server stopped), its claim expires at {3} (inbox.dead-letter.redrive-lease) and the row can be re-driven again."),
    BILLING0241E(Level.SEVERE, "The body of POST {0} {1}. Send one JSON object with \"action\" (\"redrive\" or \"discard\") and either \"consumer\" and \"failure\" (a group, as GET /dead-letters/groups lists it) or \"ids\" (an array of 1 to {2} dead-letter ids)."),
    BILLING0242E(Level.SEVERE, "POST {0} acts on at most {1} dead letters per call, got {2}; send the rest in further calls."),
    BILLING0243I(Level.INFO, "Bulk {0} of {1} dead letter(s) by {2} ({3}): {4} done, {5} under way elsewhere, {6} refused {7}."),
    BILLING0244E(Level.SEVERE, "Dead letter {0} was already {1} by {2}."),
    BILLING0245E(Level.SEVERE, "Dead letter {0} has no usable event id (none could be read from the delivery: its reason says why, e.g. a payload that is not UTF-8 JSON, or an id missing or malformed), so it would fail again; the producer must send a corrected event. Discard it."),
    BILLING0246E(Level.SEVERE, "Dead letter {0}: consumer {1} {2}, so a re-drive would be skipped as a duplicate. Discard it{3}."),
    BILLING0247E(Level.SEVERE, "Dead letter {0}: a re-drive with consumer=all sends event {1} to every consumer of orders.confirmed, and consumer {2} would process it, although its dead letter {3} for this event was discarded by {4}. Re-drive it without consumer=all, so that only its own consumer processes it; or have the producer send the event again if {2} should process it after all."),
    BILLING0250E(Level.SEVERE, "Dead letter {0} belongs to consumer {1}, but the re-drive names consumer={2}. A re-drive reaches the dead letter''s own consumer (leave consumer out) or, with consumer=all, every consumer of its topic; to have {2} process the event, re-drive {2}''s own dead letter for it."),
    BILLING0251E(Level.WARNING, "{0} refused (400): the URL''s {1} has a malformed percent-escape at index {2} (''{3}''). Encode ''%'' itself as %25, and other characters as % and two hexadecimal digits (RFC 3986 section 2.1)."),
    BILLING0252W(Level.WARNING, "The count of unmailed invoices cannot be read: {0}. The inbox-database check says whether the database answers; the details are in the log at level FINE."),
    BILLING0253E(Level.INFO, "{0} {1} answered {2} ({3}): check the method and the path against docs/operator-api.md."),
    BILLING0254E(Level.INFO, "No dead letter {0}."),
    BILLING0255E(Level.INFO, "Dead letter {0} kept no payload (the record had none, or it was not stored); its error says why."),
    BILLING0256E(Level.INFO, "No outbox row {0}."),
    BILLING0257E(Level.INFO, "Outbox row {0} was delivered or given up already: there is nothing to retry or give up."),
    BILLING0258E(Level.INFO, "{0} {1} refused (400): the body {2}. Send one JSON object, the order event."),
    BILLING0248E(Level.SEVERE, "Dead letter {0} cannot be re-driven from this service: {1}."),
    BILLING0249E(Level.SEVERE, "Dead letter {0} {1} meanwhile: the event failed again, or someone resolved it. Look at the row before doing more."),
    BILLING0239E(Level.SEVERE, "Configuration key billing.api.allowed-origins holds ''{0}'', which is not an origin (scheme://host or scheme://host:port, e.g. https://ops.example.com, without a path); it is ignored, so requests from it are refused as cross-site.");

    private static final Logger LOG = Logger.getLogger("io.github.jakartainbox.billing");

    private final Level level;
    private final String pattern;

    BillingMessage(Level level, String pattern) {
        this.level = level;
        this.pattern = pattern;
    }

    /** @return the id, a colon and the text */
    String format(Object... args) {
        return name() + ": " + MessageFormat.format(pattern, args);
    }

    /**
     * Logs this message at its level with the failure's stack trace.
     *
     * @param thrown the failure
     * @param args   the message's arguments
     */
    void log(Throwable thrown, Object... args) {
        if (LOG.isLoggable(level)) {
            LOG.log(level, format(args), thrown);
        }
    }

    /** Logs this message at its level. */
    void log(Object... args) {
        if (LOG.isLoggable(level)) {
            LOG.log(level, format(args));
        }
    }
}
