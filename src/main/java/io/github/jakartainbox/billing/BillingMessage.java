package io.github.jakartainbox.billing;

import io.github.jakartainbox.inbox.text.CataloguedMessage;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The billing service's catalogue: its log lines, dead-letter reasons and HTTP error texts, in the library's shape
 * ({@code BILLING}, four digits, the severity). 01xx: the event contracts and the mailer (dead-letter reasons); 02xx:
 * operations; 023x-025x: the operator API. docs/messages.md gives each id's cause and action.
 */
public enum BillingMessage implements CataloguedMessage {

    BILLING0101E(Level.SEVERE, "orders.confirmed value is empty ({0})."),
    BILLING0102E(Level.SEVERE, "orders.confirmed value is {0} bytes, more than the {1} an order event may have."),
    BILLING0103E(Level.SEVERE, "orders.confirmed value is not valid UTF-8 text; it is kept byte for byte in "
            + "inbox_dead_letter_payload.payload_bytes."),
    BILLING0104E(Level.SEVERE, "orders.confirmed value {0}"),
    BILLING0106E(Level.SEVERE, "amount must be a decimal string of ASCII digits with at most 2 decimals, such as "
            + "\"129.90\", got \"{0}\"."),
    BILLING0107E(Level.SEVERE, "amount {0} must be positive, with at most {1} integer digits and 2 decimals."),
    BILLING0108E(Level.SEVERE, "currency ''{0}'' is not an ISO 4217 currency code of money."),
    BILLING0305E(Level.SEVERE, "currency {0} was withdrawn from ISO 4217 in {1} (List Three, historic codes): no "
            + "money to invoice in. Send the currency that replaced it."),
    BILLING0216E(Level.SEVERE, "amount {0} has {1} decimal(s), but currency {2} has {3} (ISO 4217 minor units)."),
    BILLING0109E(Level.SEVERE, "field ''{0}'' must be a non-empty JSON string, got {1}."),
    BILLING0110E(Level.SEVERE, "field ''{0}'' has {1} characters, more than the {2} it may have: ''{3}''."),
    BILLING0111E(Level.SEVERE, "field ''{0}'' holds control character U+{1} at index {2}{3}: ''{4}''."),
    BILLING0120E(Level.SEVERE, "field ''{0}'' holds {1} U+{2} at index {3}, which would reorder or break the text of "
            + "the invoice mail and PDF: ''{4}''."),
    BILLING0112E(Level.SEVERE, "{0} ''{1}'' is not one plain address: it holds {2}. Send exactly one "
            + "local-part@domain."),
    BILLING0113E(Level.SEVERE, "{0} ''{1}'' holds non-ASCII character U+{2} at index {3}: internationalized addresses "
            + "are not supported."),
    BILLING0114E(Level.SEVERE, "{0} ''{1}'' is not one address local-part@domain: {2} (RFC 5322 section 3.4.1)."),
    BILLING0115E(Level.SEVERE, "{0} ''{1}'': the local part {2}; it must be a dot-atom (RFC 5322 section 3.2.3)."),
    BILLING0116E(Level.SEVERE, "{0} ''{1}'': the local part has {2} octets, more than 64 (RFC 5321 section "
            + "4.5.3.1.1)."),
    BILLING0117E(Level.SEVERE, "{0} ''{1}'': the domain {2}; it must be two or more labels of letters, digits and "
            + "hyphens (RFC 5321 section 4.1.2)."),
    BILLING0118E(Level.SEVERE, "{0} ''{1}'': the domain has {2} octets, more than 255 (RFC 5321 section 4.5.3.1.2)."),
    BILLING0119E(Level.SEVERE, "{0} ''{1}'' has {2} octets, more than 254 (RFC 5321 section 4.5.3.1.3)."),

    BILLING0121E(Level.SEVERE, "invoices.issued value is empty."),
    BILLING0122E(Level.SEVERE, "invoices.issued value is not a JSON object: {0}"),
    BILLING0123E(Level.SEVERE, "field ''invoice_id'' must be an integer."),
    BILLING0124E(Level.SEVERE, "invoices.issued value has a malformed field: {0}"),
    BILLING0125E(Level.SEVERE, "invoice {0} of event {1} does not exist in this database."),
    BILLING0126E(Level.SEVERE, "customer_email of invoice {0} is not a mail address: {1}"),
    BILLING0127E(Level.SEVERE, "The SMTP server deferred the recipient of invoice mail {0} past the mailer''s "
            + "attempts: {1}"),
    BILLING0130E(Level.SEVERE, "The SMTP server refused invoice mail {0} of invoice {1} for good: {2}. Nothing was "
            + "sent."),
    BILLING0131E(Level.SEVERE, "Invoice {0} is not mailed: its address ''{1}'' does not make exactly one plain "
            + "recipient ({2} found)."),
    BILLING0132E(Level.SEVERE, "Delivery of invoice mail {0} of invoice {1} is uncertain: the SMTP server''s reply to "
            + "its end did not come ({2}). Not sent again."),
    BILLING0133W(Level.WARNING, "The SMTP server is unavailable for invoice mail {0}: {1}"),
    BILLING0134W(Level.WARNING, "Mail status {1} of invoice {0} could not be recorded on the invoice ({2}); the dead "
            + "letter still holds the reason."),
    BILLING0128E(Level.SEVERE, "Event {0} does not describe invoice {1} of this database: its {2} differ(s). "
            + "Nothing is mailed."),
    BILLING0300E(Level.SEVERE, "{0} refused (400): the URL''s {1} is not UTF-8 once its percent-escapes are decoded "
            + "(byte {2}). Percent-encode each character''s UTF-8 bytes."),
    BILLING0301E(Level.SEVERE, "field ''{0}'' holds {1} U+{2} at index {3}: the customer could not tell such order ids "
            + "apart (''{4}''). Send the id in visible characters only."),
    BILLING0303E(Level.SEVERE, "Event {0} is not the event invoice {1} was issued under ({2}): a lost invoice''s "
            + "record under a reused id, or forged. Nothing is mailed."),
    BILLING0304E(Level.SEVERE, "{0} {1} refused (405): the operator page and its files are read only. Use GET or "
            + "HEAD; the API is under /billing/api/."),
    BILLING0306E(Level.SEVERE, "{0} {1} refused (400): header {2} is malformed: {3} (''{4}''). Send it as RFC 9110 "
            + "section 12.5 writes it, or leave it out."),
    BILLING0307E(Level.SEVERE, "{0} {1} refused (400): query parameter ''{2}'' is not one it takes ({3}). Check its "
            + "spelling: names are case-sensitive."),
    BILLING0312E(Level.SEVERE, "field ''event_id'' ''{0}'' is not a UUID in its 8-4-4-4-12 hexadecimal form: the "
            + "inbox takes each other spelling of one UUID for another event."),
    BILLING0311W(Level.WARNING, "Invoice {0} is not mailed again for event {1}: its mail {2} is {3} "
            + "(one mail per invoice)."),

    BILLING0201I(Level.INFO, "Dead letter {0} (consumer {1}, event {2}) re-driven by {3} to {4}, for {5}."),
    BILLING0202I(Level.INFO, "Dead letter {0} (consumer {1}, event {2}) discarded by {3}."),
    BILLING0203W(Level.WARNING, "Re-drive of dead letter {0} failed: the broker did not acknowledge ({1}); the row "
            + "stays open."),
    BILLING0217W(Level.WARNING, "Re-drive of dead letter {0} through the outbox failed: its transaction did not commit "
            + "({1}); the row stays open."),
    BILLING0204E(Level.SEVERE, "Variable {0} is not set, so user {1} cannot use the REST API; set environment variable "
            + "{2} or file {0}."),
    BILLING0205E(Level.SEVERE, "The billing tables are not migrated yet; the attempt is retried."),
    BILLING0207W(Level.WARNING, "order-status: skipped an orders.confirmed record that breaks the contract: {0}"),
    BILLING0206E(Level.SEVERE, "Configuration key {0} has the value ''{1}''; it must be an ISO-8601 duration such as "
            + "PT10M."),
    BILLING0208I(Level.INFO, "Order event {0} sent to JMS queue {1} by {2} (JMSMessageID {3})."),
    BILLING0209E(Level.SEVERE, "The JMS message is a {0}, not a TextMessage."),
    BILLING0210W(Level.WARNING, "Could not send to JMS queue {0}: {1}. Nothing was sent."),
    BILLING0211W(Level.WARNING, "Forbidden: {0} may not call {1}; it needs role {2}."),
    BILLING0212W(Level.WARNING, "The billing database gives no connection at application start: {0}. The application "
            + "starts anyway."),
    BILLING0213W(Level.WARNING, "{0} answered 503 (incident {1}): {2}. Try again in a few seconds."),
    BILLING0214E(Level.SEVERE, "{0} failed (incident {1}); the server log has the details under this incident number."),
    BILLING0219W(Level.WARNING, "Topic {0} has {1} partition(s), fewer than the {2} of {3}: fewer consumer threads and "
            + "servers can share it."),
    BILLING0220W(Level.WARNING, "Topic {0} could not be created or checked with {1} partitions: {2}."),
    BILLING0215W(Level.WARNING, "order-status, order {0}: the database is unavailable; the delivery stays "
            + "unacknowledged, retried in {1} ms. Cause: {2}"),

    // 023x: requests the REST API refuses (RequestGuard, QueryParams, JmsOrderResource); the body starts with the id
    BILLING0230E(Level.SEVERE, "Refused {0} {1} from another site (Origin {2}, Sec-Fetch-Site {3}); this service''s "
            + "origin is {4}."),
    BILLING0231E(Level.SEVERE, "Refused {0} {1}: a read by a page of another site (Sec-Fetch-Site {2}, Sec-Fetch-Mode "
            + "{3}, Origin {4})."),
    BILLING0232E(Level.SEVERE, "{0} {1} takes application/json only, got Content-Type {2}."),
    BILLING0233E(Level.SEVERE, "The body of {0} {1} cannot be used: {2}. Send it uncompressed, at most {3} bytes."),
    BILLING0234E(Level.SEVERE, "The body of {0} {1} is {2}, more than the {3} bytes an order event may have; nothing "
            + "was sent."),
    BILLING0235E(Level.SEVERE, "The body of {0} {1} is not UTF-8 text; nothing was sent."),
    BILLING0236E(Level.SEVERE, "{0} must be a number from {1} to {2}, got {3}."),
    BILLING0237E(Level.SEVERE, "{0} must be an ISO-8601 duration from PT0S to {1} (e.g. PT10M, P2D), got {2}."),
    BILLING0238E(Level.SEVERE, "{0} {1}, got {2}."),
    BILLING0240E(Level.SEVERE, "Dead letter {0} is being re-driven by {1} (claimed at {2}, the claim expires at {3}); "
            + "this call sent nothing."),
    BILLING0241E(Level.SEVERE, "The body of POST {0} {1}: send one JSON object with \"action\" and either \"consumer\" "
            + "and \"failure\" or \"ids\" (1 to {2})."),
    BILLING0242E(Level.SEVERE, "POST {0} acts on at most {1} dead letters per call, got {2}."),
    BILLING0243I(Level.INFO, "Bulk {0} of {1} dead letter(s) by {2} ({3}): {4} done, {5} under way elsewhere, {6} "
            + "refused {7}."),
    BILLING0244E(Level.SEVERE, "Dead letter {0} was already {1} by {2}."),
    BILLING0245E(Level.SEVERE, "Dead letter {0} has no usable event id, so a re-drive would fail again; discard it."),
    BILLING0246E(Level.SEVERE, "Dead letter {0}: consumer {1} {2}, so a re-drive would be skipped as a duplicate; "
            + "discard it."),
    BILLING0247E(Level.SEVERE, "Dead letter {0}: with consumer=all, consumer {2} would process event {1}, whose dead "
            + "letter {3} was discarded by {4}."),
    BILLING0250E(Level.SEVERE, "Dead letter {0} belongs to consumer {1}, but the re-drive names consumer={2}."),
    BILLING0251E(Level.SEVERE, "{0} refused (400): the URL''s {1} has a malformed percent-escape at index {2} "
            + "(''{3}'')."),
    BILLING0252W(Level.WARNING, "The count of unmailed invoices cannot be read: {0}."),
    BILLING0253E(Level.SEVERE, "{0} {1} answered {2} ({3})."),
    BILLING0254E(Level.SEVERE, "No dead letter {0}."),
    BILLING0255E(Level.SEVERE, "Dead letter {0} kept no payload."),
    BILLING0256E(Level.SEVERE, "No outbox row {0}."),
    BILLING0257E(Level.SEVERE, "Outbox row {0} was delivered or given up already."),
    BILLING0258E(Level.SEVERE, "{0} {1} refused (400): the body {2}."),
    BILLING0248E(Level.SEVERE, "Dead letter {0} cannot be re-driven from this service: {1}."),
    BILLING0249E(Level.SEVERE, "Dead letter {0} {1} meanwhile: look at the row before doing more."),
    BILLING0239E(Level.SEVERE, "Configuration key billing.api.allowed-origins holds ''{0}'', which is not an origin; "
            + "it is ignored."),
    BILLING0259E(Level.SEVERE, "Refused {0} {1}: Host {2} is not one of this service''s names ({3}); a page of "
            + "another name may not use it. Add the name to billing.api.allowed-hosts."),
    BILLING0260E(Level.SEVERE, "Refused {0} {1}: header {2} appears {3} times; a request carries it once."),
    BILLING0261E(Level.SEVERE, "Query parameter ''{0}'' appears more than once in {1} {2}; give it once."),
    BILLING0262W(Level.WARNING, "Sign-ins of {0} {1} are refused until {2}: {3} failed within {4}, the last as user "
            + "{5} from {6}."),
    BILLING0302E(Level.SEVERE, "Refused {0} {1} from {2}: the Authorization header {3}. Send Basic, one space "
            + "and the base64 of user:password in UTF-8 (RFC 7617)."),
    BILLING0263E(Level.SEVERE, "Too many failed sign-ins for this user or from this address: sign-ins are refused for "
            + "{0} second(s) more."),
    BILLING0265E(Level.SEVERE, "Configuration key {0} has the value ''{1}''; it must be a whole number from 1 to 1000. "
            + "The default {2} is used."),
    BILLING0264E(Level.SEVERE, "Configuration key billing.api.allowed-hosts holds ''{0}'', which is not a host name "
            + "without a port; it is ignored."),
    BILLING0266E(Level.SEVERE, "Configuration key {0} has the value ''{1}''; it must be {2}."),
    // 0295-0299: the HTTP layer's refusals (RequestGuard, ErrorAnswer)
    BILLING0295E(Level.SEVERE, "{0} refused (400): the URL''s {1} holds {2} at index {3} unencoded. Percent-encode "
            + "it: each of its UTF-8 bytes as %XX (RFC 3986)."),
    BILLING0296E(Level.SEVERE, "{0} {1} answered 400 (Bad Request): percent-encode the URL (UTF-8 bytes as %XX, RFC "
            + "3986), without dot segments."),
    BILLING0297E(Level.SEVERE, "Refused {0} {1}: the request has no Host header; send one naming one of this "
            + "service''s names ({2})."),
    BILLING0298E(Level.SEVERE, "Refused {0} {1}: the request target addresses host {2}, not one of this service''s "
            + "names ({3}); send the path alone."),
    BILLING0299E(Level.SEVERE, "{0} {1} takes UTF-8 only, got Content-Type {2} (charset {3}). Send the body as "
            + "UTF-8, charset=UTF-8 or none."),
    BILLING0267E(Level.SEVERE, "The sequence of key {1} of consumer {0} is being re-driven by {2}; this call delivered "
            + "nothing. Look at the sequence again when that re-drive has ended."),
    BILLING0268E(Level.SEVERE, "Consumer {0} has no open sequence of key {1}: nothing is parked behind a dead letter "
            + "of that key."),
    BILLING0269E(Level.SEVERE, "Consumer {0} does not run in this service: re-drive its sequences from the service "
            + "that runs it."),
    BILLING0270I(Level.INFO, "Sequence of key {1} of consumer {0}: {2} by {3}, {4} records delivered, ended {5}."),
    BILLING0271I(Level.INFO, "Bulk {0} of {1} sequence(s) by {2}: {3} closed, {4} stopped, {5} taken, {6} "
            + "refused {7}, {8} not tried."),
    BILLING0272I(Level.INFO, "Sequence of key {1} of consumer {0}: discarded by {2}, {3} records discarded "
            + "unprocessed (the head included); the sequence is closed.");

    private final Text text;

    BillingMessage(Level level, String pattern) {
        text = new Text(level, pattern, Logger.getLogger("io.github.jakartainbox.billing"));
    }

    @Override public Text text() { return text; }
}
