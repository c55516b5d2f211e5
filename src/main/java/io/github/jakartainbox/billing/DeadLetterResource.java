package io.github.jakartainbox.billing;

import io.github.jakartainbox.inbox.InboxDeadLetters;
import io.github.jakartainbox.inbox.InboxDeadLetters.DeadLetter;
import io.github.jakartainbox.inbox.Utf8;
import io.github.jakartainbox.outbox.Outbox;
import jakarta.annotation.Resource;
import jakarta.annotation.security.RolesAllowed;
import jakarta.enterprise.context.RequestScoped;
import jakarta.inject.Inject;
import jakarta.transaction.Status;
import jakarta.transaction.UserTransaction;
import jakarta.ws.rs.ClientErrorException;
import jakarta.ws.rs.DELETE;
import jakarta.ws.rs.DefaultValue;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.NotFoundException;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.WebApplicationException;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.SecurityContext;
import io.github.jakartainbox.inbox.Printable;
import jakarta.json.Json;
import jakarta.json.JsonArray;
import jakarta.json.JsonNumber;
import jakarta.json.JsonObject;
import jakarta.json.JsonReader;
import jakarta.json.JsonString;
import jakarta.json.JsonValue;
import jakarta.ws.rs.BadRequestException;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.HeaderParam;
import jakarta.ws.rs.core.HttpHeaders;
import java.io.IOException;
import java.io.InputStream;
import java.io.StringReader;
import java.sql.SQLException;
import java.time.OffsetDateTime;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.eclipse.microprofile.reactive.messaging.Channel;
import org.eclipse.microprofile.reactive.messaging.Emitter;

/**
 * Dead letters of the billing service's consumers, under {@code /billing/api/dead-letters}:
 * <ul>
 *   <li>{@code GET ?consumer=..&open=true&limit=100}: list them (role {@code billing-operator}: the reasons quote
 *       payload data);</li>
 *   <li>{@code GET /{id}/payload}: its stored payload, byte for byte (role {@code billing-operator});</li>
 *   <li>{@code POST /{id}/redrive}: send the payload, as it arrived, to {@code orders.confirmed} again and mark
 *       the row re-driven (role {@code billing-operator}). Every consumer group of the topic receives it again;
 *       the inbox lets each consumer process the event at most once. A dead letter of the JMS consumer
 *       {@code billing-jms} goes to its JMS queue {@code orders.confirmed} instead (a text message, with the event id
 *       also as property {@code event_id}; one of the mailer goes to {@code invoices.issued} through the outbox, in
 *       the transaction that marks the row);</li>
 *   <li>{@code DELETE /{id}}: discard it, keeping the row for the record (role {@code billing-operator});</li>
 *   <li>{@code GET /groups}: open dead letters by consumer and failure (role {@code billing-reader});</li>
 *   <li>{@code POST /bulk}: re-drive or discard a group or a list of ids (role {@code billing-operator}).</li>
 * </ul>
 */
@Path("/dead-letters")
@RequestScoped
@Produces(MediaType.APPLICATION_JSON)
@RolesAllowed(Roles.OPERATOR)
public class DeadLetterResource {

    /** The consumers whose dead letters can be re-driven here: those reading orders.confirmed. */
    private static final Set<String> CONSUMERS = Set.copyOf(ServiceConsumers.inboxNames(ServiceConsumers.ORDERS));
    /** This resource's path, for answers. */
    private static final String PATH = "/billing/api/dead-letters/bulk";
    /** Every consumer of the service: a dead-letter list may be asked for any of them. */
    private static final List<String> ALL_CONSUMERS = ServiceConsumers.inboxNames(ServiceConsumers.ALL);

    /** The consumer fed by the JMS queue orders.confirmed: its dead letters are re-driven to that queue. */
    private static final String JMS_CONSUMER = ServiceConsumers.inboxNames(List.of(ServiceConsumers.JMS)).get(0);
    /** The consumer of invoices.issued: its dead letters are re-driven to that topic through the outbox. */
    private static final String MAILER = ServiceConsumers.inboxNames(List.of(ServiceConsumers.MAILER)).get(0);

    @Inject
    Outbox outbox;

    @Resource
    UserTransaction transaction;

    @Inject
    JmsOrders jmsOrders;

    @Inject
    InboxDeadLetters deadLetters;

    @Inject
    @Channel("orders-redrive")
    Emitter<byte[]> redrive;

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
        return deadLetters.payload(id).orElseThrow(() -> new NotFoundException("dead letter " + id + " has no payload"));
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
     * Re-drives one dead letter, exclusively: the row is claimed in a transaction of its own before the send, so one
     * record is sent however many operators press at once.
     *
     * @param idText the dead letter's id, 1 to {@link Long#MAX_VALUE} (400 otherwise)
     * @return 200 with the row after the broker acknowledged the send (a mailer's dead letter: after the commit that
     *         recorded it in the outbox and marked the row); 404 when there is no such row, 409 (the body starts with
     *         a message id) when another re-drive of it is under way ({@code BILLING0240E}), it is not open
     *         ({@code BILLING0244E}), has no usable event id ({@code BILLING0245E}), was processed by its consumer
     *         already ({@code BILLING0246E}), would make another consumer of the topic process an event whose dead
     *         letter was discarded there ({@code BILLING0247E}), has no stored payload or belongs to another
     *         service's consumer ({@code BILLING0248E}), or changed while it was sent ({@code BILLING0249E}); 503 when
     *         the broker did not acknowledge the send within 30 s ({@code BILLING0203W}), or a mailer's re-drive could
     *         not commit (the row stays open and its claim is given back: try again)
     * @throws SQLException when the database cannot be read or written (500)
     */
    @POST
    @Path("/{id}/redrive")
    public DeadLetter redrive(@PathParam("id") String idText) throws SQLException {
        long id = QueryParams.id("id", idText);
        redriveOne(id);
        return deadLetters.find(id).orElseThrow();
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
        JsonObject request = bulkRequest(body, contentLength);
        String action = request.get("action") instanceof JsonString a ? a.getString() : null;
        if (!"redrive".equals(action) && !"discard".equals(action)) {
            throw badBulk("has no \"action\" \"redrive\" or \"discard\"");
        }
        boolean byIds = request.containsKey("ids");
        boolean byGroup = request.containsKey("consumer") || request.containsKey("failure");
        if (byIds == byGroup) {
            throw badBulk(byIds ? "names both ids and a group" : "names neither ids nor a group");
        }
        List<Long> ids;
        String selection;
        boolean moreInGroup = false;
        if (byIds) {
            ids = ids(request.get("ids"));
            selection = ids.size() + " id(s)";
        } else {
            String consumer = QueryParams.oneOf("consumer", text(request, "consumer"), ALL_CONSUMERS);
            String failure = text(request, "failure");
            if (failure == null || failure.isEmpty()) {
                throw badBulk("has no \"failure\" string");
            }
            QueryParams.text("failure", failure, MAX_FAILURE_CHARS);
            ids = deadLetters.openIds(consumer, failure, InboxDeadLetters.MAX_BULK);
            moreInGroup = ids.size() == InboxDeadLetters.MAX_BULK;
            selection = "group " + consumer + " " + failure;
        }
        int done = 0;
        int taken = 0;
        int notTried = 0;
        Map<String, Map<String, Object>> refused = new TreeMap<>();
        for (long id : ids) {
            if (!refused.isEmpty() && refused.keySet().stream().anyMatch(k -> k.equals("HTTP 503")
                    || k.equals(BillingMessage.BILLING0203W.name()) || k.equals(BillingMessage.BILLING0217W.name()))) {
                notTried++; // the broker or the database is away: the rest would wait 30 s each for nothing
                continue;
            }
            try {
                if (action.equals("redrive")) {
                    redriveOne(id);
                } else {
                    discardOne(id);
                }
                done++;
            } catch (WebApplicationException e) {
                String error = error(e);
                if (error.startsWith(BillingMessage.BILLING0240E.name())) {
                    taken++;
                    continue;
                }
                String key = error.matches("^[A-Z]{4,10}[0-9]{4}[IWE]: .*") ? error.substring(0, error.indexOf(':'))
                        : "HTTP " + e.getResponse().getStatus();
                Map<String, Object> reason = refused.computeIfAbsent(key, k -> new LinkedHashMap<>());
                reason.merge("count", 1, (x, y) -> (Integer) x + (Integer) y);
                reason.putIfAbsent("example", error);
            }
        }
        int refusedCount = refused.values().stream().mapToInt(r -> (Integer) r.get("count")).sum();
        BillingMessage.BILLING0243I.log(action, ids.size(), user(), selection, done, taken, refusedCount,
                refused.keySet());
        Map<String, Object> answer = new LinkedHashMap<>();
        answer.put("action", action);
        answer.put("selected", ids.size());
        answer.put("done", done);
        answer.put("alreadyTaken", taken);
        answer.put("refused", refused);
        answer.put("notTried", notTried);
        answer.put("moreInGroup", moreInGroup);
        return answer;
    }

    /** The longest failure key a bulk call may name (message ids are 12, class names rarely over 100). */
    private static final int MAX_FAILURE_CHARS = 200;
    /** The largest bulk body: 1000 ids of 19 digits fit in 21 KB. */
    private static final int MAX_BULK_BYTES = 65_536;

    private static JsonObject bulkRequest(InputStream body, String contentLength) {
        byte[] bytes;
        try {
            bytes = body == null ? new byte[0] : body.readNBytes(MAX_BULK_BYTES + 1);
        } catch (IOException e) {
            throw badBulk("could not be read (" + e.getClass().getSimpleName() + ")");
        }
        if (bytes.length > MAX_BULK_BYTES) {
            throw new ClientErrorException(Response.status(Response.Status.REQUEST_ENTITY_TOO_LARGE)
                    .entity(Map.of("error", BillingMessage.BILLING0241E.format(PATH, "is more than " + MAX_BULK_BYTES
                            + " bytes", InboxDeadLetters.MAX_BULK))).type(MediaType.APPLICATION_JSON).build());
        }
        String text = Utf8.decode(bytes);
        if (text == null) {
            throw badBulk("is not UTF-8 text");
        }
        try (JsonReader reader = Json.createReader(new StringReader(text))) {
            return reader.readObject();
        } catch (RuntimeException e) { // JsonException, JsonParsingException, IllegalStateException
            throw badBulk("is not one JSON object");
        }
    }

    private static List<Long> ids(JsonValue value) {
        if (!(value instanceof JsonArray array) || array.isEmpty()) {
            throw badBulk("has \"ids\" that is no non-empty array");
        }
        if (array.size() > InboxDeadLetters.MAX_BULK) {
            throw QueryParams.badRequest(BillingMessage.BILLING0242E.format(PATH, InboxDeadLetters.MAX_BULK,
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
                throw badBulk("has an id that is no whole number from 1 to " + Long.MAX_VALUE + ": "
                        + Printable.of(String.valueOf(item), 30));
            }
            ids.add(id);
        }
        return List.copyOf(ids);
    }

    private static String text(JsonObject request, String name) {
        JsonValue value = request.get(name);
        if (value != null && !(value instanceof JsonString)) {
            throw badBulk("has \"" + name + "\" that is no string");
        }
        return value == null ? null : ((JsonString) value).getString();
    }

    private static BadRequestException badBulk(String what) {
        return QueryParams.badRequest(BillingMessage.BILLING0241E.format(PATH, what, InboxDeadLetters.MAX_BULK));
    }

    private static String error(WebApplicationException e) {
        Object entity = e.getResponse().getEntity();
        return entity instanceof Map<?, ?> map && map.get("error") != null ? map.get("error").toString()
                : "HTTP " + e.getResponse().getStatus();
    }

    /** One re-drive, or the exception that answers why not (409 with a message id, 404, 503). */
    private void redriveOne(long id) throws SQLException {
        DeadLetter letter = open(id);
        boolean mailer = letter.consumer().equals(MAILER);
        if (!mailer && !CONSUMERS.contains(letter.consumer())) {
            throw conflict(BillingMessage.BILLING0248E.format(id, "it belongs to consumer " + letter.consumer()
                    + ", which this service does not run; re-drive it from that service"));
        }
        if (letter.eventId() == null) {
            throw conflict(BillingMessage.BILLING0245E.format(id));
        }
        var processed = deadLetters.processedAt(letter.consumer(), letter.eventId());
        if (processed.isPresent() && processed.get().isAfter(letter.firstFailedAt())) {
            throw conflict(BillingMessage.BILLING0246E.format(id, letter.consumer(), "processed event "
                    + letter.eventId() + " at " + processed.get() + ", after this delivery first failed at "
                    + letter.firstFailedAt() + " (a later delivery of the same event id succeeded, e.g. the "
                    + "producer's corrected send)", ": nothing is left to do"));
        }
        if (processed.isPresent()) {
            throw conflict(BillingMessage.BILLING0246E.format(id, letter.consumer(), "had already processed event "
                    + letter.eventId() + " at " + processed.get() + " when this other payload arrived under the same "
                    + "event id", "; if this payload is a change the service must apply, the producer must send it "
                    + "as a new event with a new event id"));
        }
        if (!letter.consumer().equals(JMS_CONSUMER) && !mailer) {
            refuseWhereADiscardWouldBeUndone(letter);
        }
        byte[] payload = deadLetters.payload(id).orElseThrow(() -> conflict(BillingMessage.BILLING0248E.format(id,
                "it has no stored payload (it could not be stored when the event failed); discard it")));
        String text = Utf8.decode(payload);
        if (mailer && (text == null || text.indexOf('\0') >= 0)) {
            throw conflict(BillingMessage.BILLING0248E.format(id, "consumer " + letter.consumer() + " has a payload "
                    + "that is not UTF-8 JSON text, which invoices.issued records are; it would only fail again. "
                    + "Discard it"));
        }
        InboxDeadLetters.RedriveClaim claim = claim(id);
        if (mailer) {
            redriveThroughOutbox(letter, text, claim);
            BillingMessage.BILLING0201I.log(id, letter.consumer(), letter.eventId(), user());
            return;
        }
        boolean sent = false;
        try {
            if (letter.consumer().equals(JMS_CONSUMER)) {
                // the JMS consumer's own queue; a send outside a transaction is committed when it returns
                jmsOrders.send(new String(payload, java.nio.charset.StandardCharsets.UTF_8), letter.eventId());
            } else {
                redrive.send(payload).toCompletableFuture().get(30, TimeUnit.SECONDS);
            }
            sent = true;
        } catch (ExecutionException | TimeoutException | RuntimeException e) {
            BillingMessage.BILLING0203W.log(id, e);
            throw new WebApplicationException(Response.status(Response.Status.SERVICE_UNAVAILABLE)
                    .entity(Map.of("error", BillingMessage.BILLING0203W.format(id, e.getClass().getSimpleName())))
                    .type(MediaType.APPLICATION_JSON).build());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new WebApplicationException(e, Response.Status.SERVICE_UNAVAILABLE);
        } finally {
            if (!sent) {
                release(claim); // the row stays open, and the next re-drive may claim it at once
            }
        }
        if (!deadLetters.markRedriven(claim, user())) {
            release(claim);
            throw conflict(BillingMessage.BILLING0249E.format(id, "was sent again, but the row changed"));
        }
        BillingMessage.BILLING0201I.log(id, letter.consumer(), letter.eventId(), user());
    }

    /** The row's re-drive claim, committed before anything is sent; or the 409/404 saying why there is none. */
    private InboxDeadLetters.RedriveClaim claim(long id) throws SQLException {
        InboxDeadLetters.RedriveClaim claim = deadLetters.claimRedrive(id, user());
        switch (claim.status()) {
            case CLAIMED:
                return claim;
            case TAKEN:
                throw conflict(BillingMessage.BILLING0240E.format(id, claim.claimedBy(), claim.claimedAt(),
                        claim.expiresAt()));
            case NOT_OPEN:
                open(id); // BILLING0244E naming who resolved it
                throw conflict(BillingMessage.BILLING0249E.format(id, "was resolved"));
            default:
                throw notFound(id);
        }
    }

    /** Gives the claim back; a failure to do so leaves it to expire after the lease. */
    private void release(InboxDeadLetters.RedriveClaim claim) {
        try {
            deadLetters.releaseRedrive(claim);
        } catch (SQLException | RuntimeException e) {
            // the claim expires after inbox.dead-letter.redrive-lease
        }
    }

    /**
     * The mailer's dead letter: its {@code invoices.issued} payload is recorded in the outbox and the row marked
     * re-driven in one transaction, after the row was claimed, so the relay sends it after the commit (at least once,
     * as every {@code invoices.issued} record). The mailer is the only consumer of the topic in this service, and
     * reads the event id from the payload, so the record is the same event again.
     */
    private void redriveThroughOutbox(DeadLetter letter, String text, InboxDeadLetters.RedriveClaim claim)
            throws SQLException {
        boolean done = false;
        try {
            transaction.begin();
            outbox.record(InvoiceIssued.topic(), null, eventId -> text);
            if (!deadLetters.markRedriven(claim, user())) {
                throw conflict(BillingMessage.BILLING0249E.format(letter.id(), "changed while it was re-driven "
                        + "(nothing was sent)"));
            }
            transaction.commit();
            done = true;
        } catch (SQLException | RuntimeException e) {
            throw e;
        } catch (Exception e) {
            // begin or commit refused (a RollbackException when the outbox row could not be written: OUTBOX0006E)
            BillingMessage.BILLING0217W.log(letter.id(), e);
            throw new WebApplicationException(Response.status(Response.Status.SERVICE_UNAVAILABLE)
                    .entity(Map.of("error", BillingMessage.BILLING0217W.format(letter.id(),
                            e.getClass().getSimpleName()))).type(MediaType.APPLICATION_JSON).build());
        } finally {
            if (!done) {
                rollback();
                release(claim);
            }
        }
    }

    private void rollback() {
        try {
            if (transaction.getStatus() != Status.STATUS_NO_TRANSACTION) {
                transaction.rollback();
            }
        } catch (Exception e) {
            // nothing more to do: the transaction ends with its timeout at the latest
        }
    }

    /**
     * A re-drive goes to orders.confirmed, which every consumer of the topic reads: a consumer whose dead letter for
     * the same event was discarded, and which has not processed the event, would process it now, undoing the
     * operator's discard (a new-user trial saw an invoice made that way).
     */
    private void refuseWhereADiscardWouldBeUndone(DeadLetter letter) throws SQLException {
        for (String other : CONSUMERS) {
            if (other.equals(letter.consumer()) || deadLetters.processedAt(other, letter.eventId()).isPresent()) {
                continue;
            }
            var discarded = deadLetters.discarded(other, letter.eventId());
            if (discarded.isPresent()) {
                throw conflict(BillingMessage.BILLING0247E.format(letter.id(), letter.eventId(), other,
                        discarded.get().id(), discarded.get().resolvedBy()));
            }
        }
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

    private void discardOne(long id) throws SQLException {
        DeadLetter letter = open(id);
        if (!deadLetters.discard(id, user())) {
            DeadLetter now = open(id); // BILLING0244E when resolved meanwhile
            if (now.redriveClaimedAt() != null) {
                OffsetDateTime expires = now.redriveClaimedAt().plus(deadLetters.redriveLease());
                throw conflict(BillingMessage.BILLING0240E.format(id, now.redriveClaimedBy(), now.redriveClaimedAt(),
                        expires));
            }
            throw conflict(BillingMessage.BILLING0249E.format(id, "changed"));
        }
        BillingMessage.BILLING0202I.log(id, letter.consumer(), letter.eventId(), user());
    }

    private DeadLetter open(long id) throws SQLException {
        DeadLetter letter = deadLetters.find(id).orElseThrow(() -> notFound(id));
        if (!letter.open()) {
            throw conflict(BillingMessage.BILLING0244E.format(id, letter.redrivenAt() != null ? "re-driven"
                    : "discarded", letter.resolvedBy()));
        }
        return letter;
    }

    private static NotFoundException notFound(long id) {
        return new NotFoundException(Response.status(Response.Status.NOT_FOUND)
                .entity(Map.of("error", "no dead letter " + id)).type(MediaType.APPLICATION_JSON).build());
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
