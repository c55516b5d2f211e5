package io.github.jakartainbox.billing.operator;

import io.github.jakartainbox.billing.BillingMessage;
import io.github.jakartainbox.billing.ServiceConsumers;
import io.github.jakartainbox.billing.invoice.InvoiceIssued;
import io.github.jakartainbox.billing.order.JmsOrders;
import io.github.jakartainbox.billing.order.OrdersRedrive;
import io.github.jakartainbox.billing.web.Roles;
import io.github.jakartainbox.inbox.deadletter.DeadLetterBulk;
import io.github.jakartainbox.inbox.deadletter.InboxDeadLetters.DeadLetter;
import io.github.jakartainbox.inbox.deadletter.InboxDeadLetters;
import io.github.jakartainbox.inbox.InboxConfig;
import io.github.jakartainbox.inbox.deadletter.InboxRedrives;
import io.github.jakartainbox.inbox.deadletter.InboxSequences;
import io.github.jakartainbox.inbox.text.Printable;
import io.github.jakartainbox.inbox.text.StrictJson;
import io.github.jakartainbox.inbox.text.Utf8;
import io.github.jakartainbox.outbox.Outbox;
import jakarta.annotation.security.RolesAllowed;
import jakarta.enterprise.context.RequestScoped;
import jakarta.inject.Inject;
import jakarta.json.JsonArray;
import jakarta.json.JsonNumber;
import jakarta.json.JsonObject;
import jakarta.json.JsonString;
import jakarta.json.JsonValue;
import jakarta.ws.rs.BadRequestException;
import jakarta.ws.rs.ClientErrorException;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.DELETE;
import jakarta.ws.rs.DefaultValue;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.HeaderParam;
import jakarta.ws.rs.NotFoundException;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.WebApplicationException;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.SecurityContext;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.sql.SQLException;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;

/**
 * Dead letters of the billing service's consumers, under {@code /billing/api/dead-letters}:
 * <ul>
 *   <li>{@code GET ?consumer=..&open=true&limit=100}: list them (role {@code billing-operator}: the reasons quote
 *       payload data);</li>
 *   <li>{@code GET /{id}/payload}: its stored payload, byte for byte (role {@code billing-operator});</li>
 *   <li>{@code POST /{id}/redrive?consumer=}: send the payload, as it arrived, to {@code orders.confirmed} again
 *       and mark the row re-driven (role {@code billing-operator}), by the library's rules ({@link InboxRedrives}).
 *       The record is aimed at the dead letter's own consumer (header {@code inbox-redrive-consumer}): the topic's
 *       other inbox consumers skip it; {@code consumer=all} lets every consumer have it, each deciding by its inbox.
 *       A dead letter of the JMS consumer {@code billing-jms} goes to its JMS queue {@code orders.confirmed} instead
 *       (a text message, with the event id also as property {@code event_id}); one of the mailer goes to
 *       {@code invoices.issued} through the outbox, in the transaction that marks the row;</li>
 *   <li>{@code GET /{id}/history}: its deliveries, re-drives and discard (role {@code billing-operator});</li>
 *   <li>{@code DELETE /{id}}: discard it, keeping the row for the record (role {@code billing-operator});</li>
 *   <li>{@code GET /groups}: open dead letters by consumer and failure (role {@code billing-reader});</li>
 *   <li>{@code POST /bulk}: re-drive or discard a group or a list of ids (role {@code billing-operator});</li>
 *   <li>{@code GET /sequences}, {@code POST /sequences/redrive}, {@code /sequences/discard-head},
 *       {@code /sequences/discard} and {@code /sequences/bulk}: the sequences of dead-letter order by key.</li>
 * </ul>
 */
@Path("/dead-letters")
@RequestScoped
@Produces(MediaType.APPLICATION_JSON)
@RolesAllowed(Roles.OPERATOR)
public class DeadLetterResource {

    /** The consumers of the Kafka topic orders.confirmed: a re-drive there reaches them, or one of them if aimed. */
    private static final List<String> KAFKA_CONSUMERS = ServiceConsumers.inboxNames(ServiceConsumers.ORDERS_KAFKA);
    /** The {@code consumer} value of a re-drive that reaches every consumer of the topic. */
    static final String EVERY_CONSUMER = "all";
    /** This resource's path, for answers. */
    private static final String PATH = "/billing/api/dead-letters/bulk";
    /** The sequences' bulk path, for answers. */
    private static final String SEQUENCES_PATH = "/billing/api/dead-letters/sequences/bulk";
    /** Every consumer of the service: a dead-letter list may be asked for any of them. */
    private static final List<String> ALL_CONSUMERS = ServiceConsumers.inboxNames(ServiceConsumers.ALL);

    /** The consumer fed by the JMS queue orders.confirmed: its dead letters are re-driven to that queue. */
    private static final String JMS_CONSUMER = ServiceConsumers.inboxNames(List.of(ServiceConsumers.JMS)).get(0);
    /** The consumer of invoices.issued: its dead letters are re-driven to that topic through the outbox. */
    private static final String MAILER = ServiceConsumers.inboxNames(List.of(ServiceConsumers.MAILER)).get(0);

    @Inject
    Outbox outbox;

    @Inject
    JmsOrders jmsOrders;

    @Inject
    InboxDeadLetters deadLetters;

    @Inject
    InboxRedrives redrives;

    @Inject
    DeadLetterBulk bulk;

    @Inject
    OrdersRedrive ordersRedrive;

    @Inject
    InboxSequences sequences;

    @Context
    SecurityContext caller;

    /**
     * @param consumer only this consumer's, when given: one of the service's consumers (400 otherwise)
     * @param open     {@code true} (the default): only those neither re-driven nor discarded; {@code false}: all,
     *                 re-driven and discarded ones included (400 for anything else)
     * @param limit    the most returned, 1 to 1000 (400 otherwise), newest failure first
     * @return the dead letters, without payloads
     * @throws SQLException when the database cannot be read (500)
     */
    @GET
    public List<DeadLetter> list(@QueryParam("consumer") String consumer,
                                 @QueryParam("open") @DefaultValue("true") String open,
                                 @QueryParam("limit") @DefaultValue("100") String limit) throws SQLException {
        QueryParams.oneOf("open", open, List.of("true", "false"));
        if (consumer != null && !consumer.isBlank()) {
            QueryParams.oneOf("consumer", consumer, ALL_CONSUMERS);
        }
        return deadLetters.list(consumer == null || consumer.isBlank() ? null : consumer, open.equals("true"),
                QueryParams.limit(limit, InboxDeadLetters.MAX_LIMIT));
    }

    /**
     * The stored payload, byte for byte (the operator page shows it).
     *
     * @param idText the dead letter's id, 1 to {@link Long#MAX_VALUE} (400 otherwise)
     * @return 200 with the payload as {@code application/octet-stream}; 404 when there is no such row or it kept
     *         no payload
     * @throws SQLException when the database cannot be read (500)
     */
    @GET
    @Path("/{id}/payload")
    @Produces(MediaType.APPLICATION_OCTET_STREAM)
    public byte[] payload(@PathParam("id") String idText) throws SQLException {
        long id = QueryParams.id("id", idText);
        java.util.Optional<byte[]> payload = deadLetters.payload(id);
        if (payload.isEmpty()) {
            deadLetters.find(id).orElseThrow(() -> notFound(id)); // no such row: say so, not "kept no payload"
        }
        return payload.orElseThrow(() -> new NotFoundException(Response.status(Response.Status.NOT_FOUND)
                .entity(Map.of("error", BillingMessage.BILLING0255E.format(String.valueOf(id))))
                .type(MediaType.APPLICATION_JSON).build()));
    }

    /**
     * Open dead letters grouped by consumer and failure: the message id at the start of the error
     * ({@code BILLING0130E}, {@code INBOX0208E}), else the exception class name there. Readers may see them: a group
     * quotes no payload data.
     *
     * @param limit the most groups returned, 1 to 1000 (400 otherwise), most rows first
     * @return the groups, with count, first and last failure
     * @throws SQLException when the database cannot be read (500, 503 while it is unavailable)
     */
    @GET
    @Path("/groups")
    @RolesAllowed({Roles.READER, Roles.OPERATOR})
    public List<InboxDeadLetters.Group> groups(@QueryParam("limit") @DefaultValue("100") String limit)
            throws SQLException {
        return deadLetters.groups(QueryParams.limit(limit, InboxDeadLetters.MAX_LIMIT));
    }

    /**
     * The open sequences of dead-letter order by key ({@code inbox.consumer.<c>.dead-letter.order=key}), one item
     * each: the key, its head's dead letter and reason, how many records are parked behind it and since when. Role
     * {@code billing-operator}, as dead letters: a key and a reason quote event data (web.xml's constraint on
     * {@code /api/dead-letters/*} says the same).
     *
     * @param consumer only this consumer's, when given: a consumer name (400, {@code BILLING0238E}, otherwise)
     * @param limit    the most returned, 1 to 1000 (400 otherwise), oldest first
     * @return the sequences
     * @throws SQLException when the database cannot be read (500)
     */
    @GET
    @Path("/sequences")
    public List<InboxSequences.Sequence> sequences(@QueryParam("consumer") String consumer,
                                                   @QueryParam("limit") @DefaultValue("100") String limit)
            throws SQLException {
        String only = consumer == null || consumer.isBlank() ? null : consumerName(consumer);
        return sequences.list(only, QueryParams.limit(limit, InboxDeadLetters.MAX_LIMIT));
    }

    /**
     * Re-drives a key's sequence: its head, then the records parked behind it, in order, each through the consumer's
     * inbox claim (the library's {@link InboxSequences#redrive}). Runs on this request's thread until the sequence is
     * closed or a record is dead-lettered again (it then heads the sequence).
     *
     * @param consumer the consumer's name (400, {@code BILLING0238E}, when it is none)
     * @param key      the Kafka record key, 1 to 1000 characters without control characters (400 otherwise)
     * @return 200 with the outcome ({@code status} {@code CLOSED} or {@code STOPPED}); 404 when no sequence of the key
     *         is open ({@code BILLING0268E}); 409 when another re-drive of it is under way ({@code BILLING0267E}) or
     *         the consumer does not run in this service ({@code BILLING0269E})
     * @throws Exception when the database fails between deliveries (500); the sequence stays open where it stopped
     */
    @POST
    @Path("/sequences/redrive")
    public InboxSequences.Outcome redriveSequence(@QueryParam("consumer") String consumer,
                                                  @QueryParam("key") String key) throws Exception {
        return onSequence(consumer, key, "re-driven", sequences::redrive);
    }

    /**
     * Discards the head of a key's sequence (its dead letter is discarded) and delivers the records parked behind it
     * in order, as {@link #redriveSequence} does: discarding a head releases what waited for it.
     *
     * @param consumer the consumer's name (400 when it is none)
     * @param key      the Kafka record key (400 when it is no such key)
     * @return as {@link #redriveSequence}
     * @throws Exception as {@link #redriveSequence}
     */
    @POST
    @Path("/sequences/discard-head")
    public InboxSequences.Outcome discardSequenceHead(@QueryParam("consumer") String consumer,
                                                      @QueryParam("key") String key) throws Exception {
        return onSequence(consumer, key, "head discarded", sequences::discardHead);
    }

    /**
     * Discards a key's whole sequence, unprocessed (the library's {@link InboxSequences#discard}): the head's dead
     * letter is discarded and every record parked behind it is kept as a discarded dead letter (its payload and
     * history readable under {@code /dead-letters/{id}}); then the sequence closes. An explicit action, apart from
     * {@link #discardSequenceHead}, which processes what waited.
     *
     * @param consumer the consumer's name (400, {@code BILLING0238E}, when it is none)
     * @param key      the Kafka record key, 1 to 1000 characters without control characters (400 otherwise)
     * @return 200 with the outcome ({@code status} {@code CLOSED}, {@code discarded}: how many records, the head
     *         included); 404 when no sequence of the key is open ({@code BILLING0268E}); 409 when a re-drive of it,
     *         or of its head's dead letter, is under way ({@code BILLING0267E})
     * @throws Exception when the database fails (500); what was discarded stays discarded, the rest stays parked
     */
    @POST
    @Path("/sequences/discard")
    public InboxSequences.Outcome discardSequence(@QueryParam("consumer") String consumer,
                                                  @QueryParam("key") String key) throws Exception {
        return onSequence(consumer, key, "discarded", sequences::discard);
    }

    /**
     * Acts on many sequences: re-drives or discards (whole) each one as the single calls do, selected by their heads'
     * dead-letter ids ({@code headDeadLetter} in {@link #sequences}) or by a dead-letter group (consumer and failure,
     * as {@link #groups} lists them: the open sequences headed by the group's open dead letters).
     *
     * @param body          {@code {"action": "redrive"|"discard", "ids": [..]}} or
     *                      {@code {"action": .., "consumer": .., "failure": ..}}, checked as {@link #bulk} checks its
     *                      body (400 {@code BILLING0241E}, {@code BILLING0242E}, {@code BILLING0238E}; 413), except
     *                      that a group's consumer may be any consumer name, as in the single calls
     * @param contentLength the {@code Content-Length} header
     * @return counts: {@code selected}, {@code closed}, {@code stopped} (a re-drive stopped at a new head),
     *         {@code alreadyTaken}, {@code refused} (by message id: count and one example; {@code INBOX0247E} an id
     *         that heads no open sequence, {@code BILLING0269E} a consumer of another service, {@code INBOX0248W} the
     *         failure that stopped the call), {@code notTried}, {@code moreInGroup}, {@code delivered} and
     *         {@code discarded} (records, all sequences together)
     * @throws SQLException when the selection cannot be read (500)
     */
    @POST
    @Path("/sequences/bulk")
    @Consumes(MediaType.APPLICATION_JSON)
    public Map<String, Object> bulkSequences(InputStream body,
                                             @HeaderParam(HttpHeaders.CONTENT_LENGTH) String contentLength)
            throws SQLException {
        // any consumer's group, as the single calls take any consumer: one this service does not run is refused per
        // sequence (BILLING0269E) by the library, as a selection by ids is
        BulkBody request = bulkBody(body, contentLength, SEQUENCES_PATH, DeadLetterResource::consumerName);
        String action = request.action();
        InboxSequences.BulkResult result = sequences.bulk(request.kind(), request.select(), user(), outcome -> {
            try {
                answered(request.redrive() ? "re-driven" : "discarded", outcome);
                return null;
            } catch (WebApplicationException e) {
                return error(e);
            }
        });
        Map<String, Map<String, Object>> refused = refusals(result.refused());
        BillingMessage.BILLING0271I.log(action, result.selected(), user() + " (" + request.described() + ")",
                result.closed(), result.stopped(), result.alreadyTaken(), result.refusedCount(), refused.keySet(),
                result.notTried());
        Map<String, Object> answer = new LinkedHashMap<>();
        answer.put("action", action);
        answer.put("selected", result.selected());
        answer.put("closed", result.closed());
        answer.put("stopped", result.stopped());
        answer.put("alreadyTaken", result.alreadyTaken());
        answer.put("refused", refused);
        answer.put("notTried", result.notTried());
        answer.put("moreInGroup", result.moreInGroup());
        answer.put("delivered", result.delivered());
        answer.put("discarded", result.discarded());
        return answer;
    }

    private static Map<String, Map<String, Object>> refusals(Map<String, DeadLetterBulk.Refusal> refusals) {
        Map<String, Map<String, Object>> refused = new TreeMap<>();
        refusals.forEach((key, refusal) -> {
            Map<String, Object> reason = new LinkedHashMap<>();
            reason.put("count", refusal.count());
            reason.put("example", refusal.example());
            refused.put(key, reason);
        });
        return refused;
    }

    /** One of {@link InboxSequences}' calls on one key's sequence, as the library names it. */
    @FunctionalInterface
    private interface SequenceCall {
        InboxSequences.Outcome on(String consumer, String key, String operator) throws Exception;
    }

    /**
     * One call on one key's sequence: the consumer and key checked (400), the call made as this caller, its outcome
     * logged and answered ({@link #answered}).
     */
    private InboxSequences.Outcome onSequence(String consumer, String key, String action, SequenceCall call)
            throws Exception {
        String name = consumerName(consumer);
        String k = sequenceKey(key);
        return answered(action, call.on(name, k, user()));
    }

    private InboxSequences.Outcome answered(String action, InboxSequences.Outcome outcome) {
        switch (outcome.status()) {
            case NOT_FOUND -> throw new ClientErrorException(Response.status(Response.Status.NOT_FOUND)
                    .entity(Map.of("error", BillingMessage.BILLING0268E.format(outcome.consumer(), outcome.key())))
                    .type(MediaType.APPLICATION_JSON).build());
            case TAKEN -> throw conflict(BillingMessage.BILLING0267E.format(outcome.consumer(), outcome.key(),
                    outcome.sequence() == null ? "another server" : outcome.sequence().redrivenBy()));
            case UNKNOWN_CONSUMER -> throw conflict(BillingMessage.BILLING0269E.format(outcome.consumer()));
            default -> {
                if (action.equals("discarded")) {
                    BillingMessage.BILLING0272I.log(outcome.consumer(), outcome.key(), user(), outcome.discarded());
                } else {
                    BillingMessage.BILLING0270I.log(outcome.consumer(), outcome.key(), action, user(),
                            outcome.delivered(), outcome.status());
                }
            }
        }
        return outcome;
    }

    private static String consumerName(String consumer) {
        if (!InboxConfig.isValidConsumerName(consumer)) {
            throw QueryParams.badRequest(BillingMessage.BILLING0238E.format("consumer",
                    "must be a consumer name (1 to 100 characters of A-Z a-z 0-9 . _ -)", Printable.of(consumer, 60)));
        }
        return consumer;
    }

    private static String sequenceKey(String key) {
        if (key == null || key.isEmpty()) {
            throw QueryParams.badRequest(BillingMessage.BILLING0238E.format("key", "must be a record key",
                    "(none)"));
        }
        return QueryParams.text("key", key, 1000);
    }

    /**
     * Re-drives one dead letter, exclusively: the row is claimed in a transaction of its own before the send, so one
     * record is sent however many operators press at once. The rules are the library's ({@link InboxRedrives}).
     *
     * @param idText   the dead letter's id, 1 to {@link Long#MAX_VALUE} (400 otherwise)
     * @param consumer which consumers of the topic may process the re-sent record: left out or the dead letter's own
     *                 consumer (the default), that consumer only: the topic's other consumers skip it, so an event
     *                 that another consumer's operator discarded stays discarded there; {@code all}: every consumer,
     *                 each deciding by its inbox. Another consumer's name is refused (400, {@code BILLING0250E}), any
     *                 other value too (400, {@code BILLING0238E}). A dead letter of the JMS consumer or the mailer
     *                 goes where only that consumer reads, so both values do the same there
     * @return 200 with the row after the broker acknowledged the send (a mailer's dead letter: after the commit that
     *         recorded it in the outbox and marked the row); 404 when there is no such row, 409 (the body starts with
     *         a message id) when another re-drive of it is under way ({@code BILLING0240E}), it is not open
     *         ({@code BILLING0244E}), has no usable event id ({@code BILLING0245E}), was processed by its consumer
     *         already ({@code BILLING0246E}), would, with {@code consumer=all}, make another consumer of the topic
     *         process an event whose dead letter was discarded there ({@code BILLING0247E}), has no stored payload,
     *         a payload its destination cannot carry, or belongs to another service's consumer ({@code BILLING0248E}),
     *         or changed while it was sent ({@code BILLING0249E}); 503 when the broker did not acknowledge the send
     *         within 30 s ({@code BILLING0203W}), or a mailer's re-drive could not commit ({@code BILLING0217W}; the
     *         row stays open and its claim is given back: try again)
     * @throws SQLException when the database cannot be read or written (500, 503 while it is unavailable)
     */
    @POST
    @Path("/{id}/redrive")
    public DeadLetter redrive(@PathParam("id") String idText, @QueryParam("consumer") String consumer)
            throws SQLException {
        long id = QueryParams.id("id", idText);
        boolean aimed = true;
        if (consumer != null && !consumer.isEmpty()) {
            List<String> allowed = new java.util.ArrayList<>(ALL_CONSUMERS);
            allowed.add(EVERY_CONSUMER);
            QueryParams.oneOf("consumer", consumer, allowed);
            aimed = !consumer.equals(EVERY_CONSUMER);
            if (aimed) {
                DeadLetter letter = deadLetters.find(id).orElseThrow(() -> notFound(id));
                if (!letter.consumer().equals(consumer)) {
                    throw QueryParams.badRequest(BillingMessage.BILLING0250E.format(id, letter.consumer(), consumer));
                }
            }
        }
        redriveOne(id, aimed);
        return deadLetters.find(id).orElseThrow();
    }

    /**
     * A dead letter's history: each failed delivery into it, each re-drive (who, when, aimed at which consumer, the
     * record's topic, partition and offset when known) and each discard (who, when), oldest first; the newest
     * {@value InboxDeadLetters#HISTORY_LIMIT} are kept. Operators only: a failure's reason may quote payload data.
     *
     * @param idText the dead letter's id, 1 to {@link Long#MAX_VALUE} (400, {@code BILLING0236E}, otherwise)
     * @return 200 with the entries; 404 when there is no such row
     * @throws SQLException when the database cannot be read (500, 503 while it is unavailable)
     */
    @GET
    @Path("/{id}/history")
    public List<InboxDeadLetters.HistoryEntry> history(@PathParam("id") String idText) throws SQLException {
        long id = QueryParams.id("id", idText);
        deadLetters.find(id).orElseThrow(() -> notFound(id));
        return deadLetters.history(id);
    }

    /**
     * Acts on many dead letters: one group (consumer and failure, as {@link #groups} lists them) or a list of ids,
     * each row as the single call does it (a re-drive through the same exclusive claim).
     *
     * @param body          {@code {"action": "redrive"|"discard", "consumer": .., "failure": ..}} or
     *                      {@code {"action": .., "ids": [..]}}: at most 64 KiB (413), one JSON object (400,
     *                      {@code BILLING0241E}), 1 to {@value InboxDeadLetters#MAX_BULK} ids (400,
     *                      {@code BILLING0242E}), a consumer of this service and a failure of 1 to 200 characters
     *                      without control characters (400, {@code BILLING0238E})
     * @param contentLength the {@code Content-Length} header
     * @return counts: {@code selected}, {@code done}, {@code alreadyTaken} (another re-drive held the row),
     *         {@code refused} (by message id: count and one example), {@code notTried} (after a 503 the rest is left
     *         alone), {@code moreInGroup} (a group of more than {@value InboxDeadLetters#MAX_BULK} open rows: call
     *         again)
     * @throws SQLException when the database cannot be read or written (500)
     */
    @POST
    @Path("/bulk")
    @Consumes(MediaType.APPLICATION_JSON)
    public Map<String, Object> bulk(InputStream body, @HeaderParam(HttpHeaders.CONTENT_LENGTH) String contentLength)
            throws SQLException {
        BulkBody request = bulkBody(body, contentLength, PATH,
                consumer -> QueryParams.oneOf("consumer", consumer, ALL_CONSUMERS));
        String action = request.action();
        String selection = request.described();
        DeadLetterBulk.Result result = bulk.apply(request.kind(), request.select(), this::route, user(),
                outcome -> (request.redrive() ? redriveAnswer(outcome) : discardAnswer(outcome))
                        .map(DeadLetterResource::error).orElse(null));
        Map<String, Map<String, Object>> refused = refusals(result.refused());
        BillingMessage.BILLING0243I.log(action, result.selected(), user(), selection, result.done(),
                result.alreadyTaken(), result.refusedCount(), refused.keySet());
        Map<String, Object> answer = new LinkedHashMap<>();
        answer.put("action", action);
        answer.put("selected", result.selected());
        answer.put("done", result.done());
        answer.put("alreadyTaken", result.alreadyTaken());
        answer.put("refused", refused);
        answer.put("notTried", result.notTried());
        answer.put("moreInGroup", result.moreInGroup());
        return answer;
    }

    /**
     * A bulk body, read and checked: its action and selection.
     *
     * @param action    {@code redrive} or {@code discard}
     * @param select    ids, or a group
     * @param described the selection's description for the log
     */
    private record BulkBody(String action, DeadLetterBulk.Selection select, String described) {

        boolean redrive() {
            return action.equals("redrive");
        }

        DeadLetterBulk.Action kind() {
            return redrive() ? DeadLetterBulk.Action.REDRIVE : DeadLetterBulk.Action.DISCARD;
        }
    }

    /**
     * Reads a bulk call's body (as {@link #bulkRequest}), its action and its selection (as {@link #selection}).
     *
     * @param contentLength the {@code Content-Length} header, {@code null} when none
     * @param consumerCheck returns a group's consumer, or throws the 400 that refuses it
     */
    private static BulkBody bulkBody(InputStream body, String contentLength, String path,
                                     java.util.function.UnaryOperator<String> consumerCheck) {
        JsonObject request = bulkRequest(body, contentLength, path);
        String action = request.get("action") instanceof JsonString a ? a.getString() : null;
        if (!"redrive".equals(action) && !"discard".equals(action)) {
            throw badBulk(path, "has no \"action\" \"redrive\" or \"discard\"");
        }
        String[] described = new String[1];
        DeadLetterBulk.Selection select = selection(request, path, consumerCheck, described);
        return new BulkBody(action, select, described[0]);
    }

    /**
     * A bulk body's selection: ids, or a group of one consumer and failure.
     *
     * @param consumerCheck returns a group's consumer, or throws the 400 that refuses it
     * @param described     receives the selection's description for the log
     */
    private static DeadLetterBulk.Selection selection(JsonObject request, String path,
                                                      java.util.function.UnaryOperator<String> consumerCheck,
                                                      String[] described) {
        boolean byIds = request.containsKey("ids");
        boolean byGroup = request.containsKey("consumer") || request.containsKey("failure");
        if (byIds == byGroup) {
            throw badBulk(path, byIds ? "names both ids and a group" : "names neither ids nor a group");
        }
        if (byIds) {
            DeadLetterBulk.Selection select = DeadLetterBulk.Selection.ofIds(ids(request.get("ids"), path));
            described[0] = select.ids().size() + " id(s)";
            return select;
        }
        String consumer = consumerCheck.apply(text(request, "consumer", path));
        String failure = text(request, "failure", path);
        if (failure == null || failure.isEmpty()) {
            throw badBulk(path, "has no \"failure\" string");
        }
        QueryParams.text("failure", failure, MAX_FAILURE_CHARS);
        described[0] = "group " + consumer + " " + failure;
        return DeadLetterBulk.Selection.ofGroup(consumer, failure);
    }

    /** The longest failure key a bulk call may name (message ids are 12, class names rarely over 100). */
    private static final int MAX_FAILURE_CHARS = 200;
    /** The largest bulk body: 1000 ids of 19 digits fit in 21 KB. */
    private static final int MAX_BULK_BYTES = 65_536;

    /** The members a bulk body may have. */
    private static final java.util.Set<String> BULK_MEMBERS = new java.util.TreeSet<>(
            List.of("action", "ids", "consumer", "failure"));

    private static ClientErrorException tooLarge(String path, String size) {
        return new ClientErrorException(Response.status(Response.Status.REQUEST_ENTITY_TOO_LARGE).entity(Map.of(
                "error", BillingMessage.BILLING0241E.format(path, size, InboxDeadLetters.MAX_BULK)))
                .type(MediaType.APPLICATION_JSON).build());
    }

    private static JsonObject bulkRequest(InputStream body, String contentLength, String path) {
        // Liberty refuses a malformed Content-Length itself; a larger body is refused naming its real size
        long declared = contentLength == null ? -1 : QueryParams.asciiNumber(contentLength.trim());
        if (declared > MAX_BULK_BYTES) {
            throw tooLarge(path, "is " + declared + " bytes, more than " + MAX_BULK_BYTES);
        }
        byte[] bytes;
        try {
            bytes = body == null ? new byte[0] : body.readNBytes(MAX_BULK_BYTES + 1);
        } catch (IOException e) {
            throw badBulk(path, "could not be read (" + e.getClass().getSimpleName() + ")");
        }
        if (bytes.length > MAX_BULK_BYTES) {
            throw tooLarge(path, "is more than " + MAX_BULK_BYTES + " bytes (not read to its end)");
        }
        String text = Utf8.decode(bytes);
        if (text == null) {
            throw badBulk(path, "is not UTF-8 text");
        }
        JsonObject request;
        try {
            // strict: a member named twice ({"ids":[9],"action":"discard","ids":[3]}) would otherwise let the last
            // one win on a destructive call
            request = StrictJson.readObject(text);
        } catch (RuntimeException e) { // JsonException, JsonParsingException, IllegalStateException
            throw badBulk(path, Printable.of(e.getMessage(), 200));
        }
        for (String name : request.keySet()) {
            if (!BULK_MEMBERS.contains(name)) {
                throw badBulk(path, "has member '" + Printable.of(name, 40) + "', which is none of " + BULK_MEMBERS);
            }
        }
        return request;
    }

    private static List<Long> ids(JsonValue value, String path) {
        if (!(value instanceof JsonArray array) || array.isEmpty()) {
            throw badBulk(path, "has \"ids\" that is no non-empty array");
        }
        if (array.size() > InboxDeadLetters.MAX_BULK) {
            throw QueryParams.badRequest(BillingMessage.BILLING0242E.format(path, InboxDeadLetters.MAX_BULK,
                    array.size()));
        }
        Set<Long> ids = new LinkedHashSet<>();
        for (JsonValue item : array) {
            long id;
            try {
                id = item instanceof JsonNumber n ? n.longValueExact() : 0;
            } catch (ArithmeticException e) {
                id = 0;
            }
            if (id < 1) {
                throw badBulk(path, "has an id that is no whole number from 1 to " + Long.MAX_VALUE + ": "
                        + Printable.of(String.valueOf(item), 30));
            }
            ids.add(id);
        }
        return List.copyOf(ids);
    }

    private static String text(JsonObject request, String name, String path) {
        JsonValue value = request.get(name);
        if (value != null && !(value instanceof JsonString)) {
            throw badBulk(path, "has \"" + name + "\" that is no string");
        }
        return value == null ? null : ((JsonString) value).getString();
    }

    private static BadRequestException badBulk(String path, String what) {
        return QueryParams.badRequest(BillingMessage.BILLING0241E.format(path, what, InboxDeadLetters.MAX_BULK));
    }

    private static String error(WebApplicationException e) {
        Object entity = e.getResponse().getEntity();
        return entity instanceof Map<?, ?> map && map.get("error") != null ? map.get("error").toString()
                : "HTTP " + e.getResponse().getStatus();
    }

    /**
     * Where each consumer's dead letters go again: Kafka consumers of orders.confirmed to that topic (aimed by header
     * at one of them unless {@code consumer=all}); the JMS consumer to its queue, which only it reads; the mailer to
     * invoices.issued through the outbox, in the transaction that marks the row.
     */
    private Optional<InboxRedrives.Route> route(String consumer) {
        if (KAFKA_CONSUMERS.contains(consumer)) {
            return Optional.of(new InboxRedrives.Route(ordersRedrive.topic(), Set.copyOf(KAFKA_CONSUMERS), false, false,
                    (letter, payload, headers) -> ordersRedrive.send(payload, headers)));
        }
        if (consumer.equals(JMS_CONSUMER)) {
            // one consumer reads the queue: nothing to aim; a send outside a transaction is committed when it returns
            return Optional.of(new InboxRedrives.Route(jmsOrders.queueName(), Set.of(JMS_CONSUMER), true, false,
                    (letter, payload, headers) -> {
                        jmsOrders.send(new String(payload, StandardCharsets.UTF_8), letter.eventId());
                        return new InboxDeadLetters.SentRecord(jmsOrders.queueName(), null, null);
                    }));
        }
        if (consumer.equals(MAILER)) {
            // the mailer is the only consumer of invoices.issued and reads the event id from the payload, so the
            // record is the same event again; the relay sends it after the commit (at least once)
            String topic = InvoiceIssued.topic();
            return Optional.of(new InboxRedrives.Route(topic, Set.of(MAILER), true, true,
                    (letter, payload, headers) -> {
                        String text = new String(payload, StandardCharsets.UTF_8);
                        outbox.record(topic, null, eventId -> text, headers);
                        return new InboxDeadLetters.SentRecord(topic, null, null);
                    }));
        }
        return Optional.empty();
    }

    /**
     * One re-drive through the library's rules, or the exception that answers why not (409 with a message id, 404,
     * 503).
     *
     * @param aimed whether only the dead letter's own consumer may process the record
     */
    private void redriveOne(long id, boolean aimed) throws SQLException {
        Optional<WebApplicationException> refused = redriveAnswer(redrives.redrive(id, this::route, aimed, user()));
        if (refused.isPresent()) {
            throw refused.get();
        }
    }

    /**
     * Logs a re-drive's outcome and answers a refusal.
     *
     * @return empty when it was re-driven, else the exception that answers why not (409 with a message id, 404, 503)
     */
    private Optional<WebApplicationException> redriveAnswer(InboxRedrives.Outcome outcome) {
        long id = outcome.id();
        DeadLetter letter = outcome.letter();
        return Optional.ofNullable(switch (outcome.status()) {
            case REDRIVEN -> {
                BillingMessage.BILLING0201I.log(id, letter.consumer(), letter.eventId(), user(),
                        outcome.route().destination(), outcome.target() == null ? "every consumer"
                                : "consumer " + outcome.target() + " only");
                yield null;
            }
            case NOT_FOUND -> notFound(id);
            case NOT_OPEN -> notOpen(id, letter);
            case UNKNOWN_CONSUMER -> conflict(BillingMessage.BILLING0248E.format(id, "it belongs to consumer "
                    + letter.consumer() + ", which this service does not run; re-drive it from that service"));
            case NO_EVENT_ID -> conflict(BillingMessage.BILLING0245E.format(id));
            case PROCESSED_SINCE -> conflict(BillingMessage.BILLING0246E.format(id, letter.consumer(),
                    "processed event " + letter.eventId() + " at " + outcome.processedAt() + ", after this delivery "
                            + "first failed at " + letter.firstFailedAt()));
            case PROCESSED_BEFORE -> conflict(BillingMessage.BILLING0246E.format(id, letter.consumer(),
                    "had already processed event " + letter.eventId() + " at " + outcome.processedAt() + " when this "
                            + "other payload arrived"));
            case DISCARDED_ELSEWHERE -> conflict(BillingMessage.BILLING0247E.format(id, letter.eventId(),
                    outcome.otherDiscarded().consumer(), outcome.otherDiscarded().id(),
                    outcome.otherDiscarded().resolvedBy()));
            case NO_PAYLOAD -> conflict(BillingMessage.BILLING0248E.format(id,
                    "it has no stored payload (it could not be stored when the event failed); discard it"));
            case NOT_TEXT -> conflict(BillingMessage.BILLING0248E.format(id, "consumer " + letter.consumer()
                    + " has a payload that is not UTF-8 JSON text, which " + outcome.route().destination()
                    + (letter.consumer().equals(MAILER) ? " records are" : " messages carry")
                    + "; it would only fail again. Discard it"));
            case TAKEN -> taken(outcome);
            case CHANGED -> conflict(BillingMessage.BILLING0249E.format(id, outcome.route().transactional()
                    ? "changed while it was re-driven (nothing was sent)" : "was sent again, but the row changed"));
            case SEND_FAILED -> {
                Throwable failure = outcome.failure();
                BillingMessage message = outcome.route().transactional() ? BillingMessage.BILLING0217W
                        : BillingMessage.BILLING0203W;
                Throwable cause = failure instanceof ExecutionException && failure.getCause() != null
                        ? failure.getCause() : failure;
                message.log(id, Printable.of(String.valueOf(cause), 300));
                yield new WebApplicationException(Response.status(Response.Status.SERVICE_UNAVAILABLE)
                        .entity(Map.of("error", message.format(id, cause.getClass().getSimpleName())))
                        .type(MediaType.APPLICATION_JSON).build());
            }
            default -> throw new IllegalStateException("unknown re-drive status " + outcome.status());
        });
    }

    /**
     * @param idText the dead letter's id, 1 to {@link Long#MAX_VALUE} (400 otherwise)
     * @return 200 with the row; 404 when there is no such row, 409 when it is not open ({@code BILLING0244E}) or
     *         its re-drive is under way ({@code BILLING0240E})
     * @throws SQLException when the database cannot be written (500)
     */
    @DELETE
    @Path("/{id}")
    public DeadLetter discard(@PathParam("id") String idText) throws SQLException {
        long id = QueryParams.id("id", idText);
        discardOne(id);
        return deadLetters.find(id).orElseThrow();
    }

    /** One discard through the library, or the exception that answers why not (409 with a message id, 404). */
    private void discardOne(long id) throws SQLException {
        Optional<WebApplicationException> refused = discardAnswer(redrives.discard(id, user()));
        if (refused.isPresent()) {
            throw refused.get();
        }
    }

    /**
     * Logs a discard's outcome and answers a refusal.
     *
     * @return empty when it was discarded, else the exception that answers why not (409 with a message id, 404)
     */
    private Optional<WebApplicationException> discardAnswer(InboxRedrives.Outcome outcome) {
        long id = outcome.id();
        DeadLetter letter = outcome.letter();
        return Optional.ofNullable(switch (outcome.status()) {
            case DISCARDED -> {
                BillingMessage.BILLING0202I.log(id, letter.consumer(), letter.eventId(), user());
                yield null;
            }
            case NOT_FOUND -> notFound(id);
            case NOT_OPEN -> notOpen(id, letter);
            case TAKEN -> taken(outcome);
            default -> conflict(BillingMessage.BILLING0249E.format(id, "changed"));
        });
    }

    /** @return the 409 ({@code BILLING0244E}) for a dead letter no longer open: how it was closed, and by whom */
    private static ClientErrorException notOpen(long id, DeadLetter letter) {
        return conflict(BillingMessage.BILLING0244E.format(id, letter.resolvedByProcessing()
                ? "resolved" : letter.redrivenAt() != null ? "re-driven" : "discarded", letter.resolvedBy()));
    }

    /** @return the 409 ({@code BILLING0240E}) for a dead letter whose re-drive claim another call holds */
    private static ClientErrorException taken(InboxRedrives.Outcome outcome) {
        return conflict(BillingMessage.BILLING0240E.format(outcome.id(), outcome.claim().claimedBy(),
                outcome.claim().claimedAt(), outcome.claim().expiresAt()));
    }

    private static NotFoundException notFound(long id) {
        return new NotFoundException(Response.status(Response.Status.NOT_FOUND)
                .entity(Map.of("error", BillingMessage.BILLING0254E.format(String.valueOf(id))))
                .type(MediaType.APPLICATION_JSON).build());
    }

    private String user() {
        return caller.getUserPrincipal() == null ? "unknown" : caller.getUserPrincipal().getName();
    }

    /** @return a 409 whose body's {@code error} is the message (starting with its id) */
    private static ClientErrorException conflict(String message) {
        return new ClientErrorException(Response.status(Response.Status.CONFLICT)
                .entity(Map.of("error", message)).type(MediaType.APPLICATION_JSON).build());
    }
}
