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
import java.sql.SQLException;
import java.util.List;
import java.util.Map;
import java.util.Set;
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
 *   <li>{@code DELETE /{id}}: discard it, keeping the row for the record (role {@code billing-operator}).</li>
 * </ul>
 */
@Path("/dead-letters")
@RequestScoped
@Produces(MediaType.APPLICATION_JSON)
@RolesAllowed(Roles.OPERATOR)
public class DeadLetterResource {

    /** The consumers whose dead letters can be re-driven here: those reading orders.confirmed. */
    private static final Set<String> CONSUMERS = Set.copyOf(ServiceConsumers.inboxNames(ServiceConsumers.ORDERS));
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
     * @param idText the dead letter's id, 1 to {@link Long#MAX_VALUE} (400 otherwise)
     * @return 200 with the row after the broker acknowledged the send (a mailer's dead letter: after the commit that
     *         recorded it in the outbox and marked the row); 404 when there is no such row, 409 when
     *         it is not open, has no usable event id or no stored payload, belongs to another service's consumer,
     *         was processed by its consumer already (a re-drive would be skipped as a duplicate), would make another
     *         consumer of the topic process an event whose dead letter was discarded there, or changed while
     *         it was sent (it failed again, or someone resolved it); 503 when the broker did not
     *         acknowledge the send within 30 s, or a mailer's re-drive could not commit (the row stays open: try
     *         again)
     * @throws SQLException when the database cannot be read or written (500)
     */
    @POST
    @Path("/{id}/redrive")
    public DeadLetter redrive(@PathParam("id") String idText) throws SQLException {
        long id = QueryParams.id("id", idText);
        DeadLetter letter = open(id);
        boolean mailer = letter.consumer().equals(MAILER);
        if (!mailer && !CONSUMERS.contains(letter.consumer())) {
            throw conflict("dead letter " + id + " belongs to consumer " + letter.consumer()
                    + ", which this service does not run; re-drive it from that service");
        }
        if (letter.eventId() == null) {
            throw conflict("dead letter " + id + " has no usable event id (none could be read from the delivery: "
                    + "its reason says why, e.g. a payload that is not UTF-8 JSON, or an id missing or malformed), "
                    + "so it would fail again; the producer must send a corrected event. Discard it");
        }
        var processed = deadLetters.processedAt(letter.consumer(), letter.eventId());
        if (processed.isPresent() && processed.get().isAfter(letter.firstFailedAt())) {
            throw conflict("dead letter " + id + ": consumer " + letter.consumer() + " processed event "
                    + letter.eventId() + " at " + processed.get() + ", after this delivery first failed at "
                    + letter.firstFailedAt() + " (a later delivery of the same event id succeeded, e.g. the "
                    + "producer's corrected send), so a re-drive would be skipped as a duplicate and nothing is "
                    + "left to do. Discard it");
        }
        if (processed.isPresent()) {
            throw conflict("dead letter " + id + ": consumer " + letter.consumer() + " had already processed event "
                    + letter.eventId() + " at " + processed.get() + " when this other payload arrived under the same "
                    + "event id, so a re-drive would be skipped as a duplicate. Discard it; if this payload is a "
                    + "change the service must apply, the producer must send it as a new event with a new event id");
        }
        if (!letter.consumer().equals(JMS_CONSUMER) && !mailer) {
            refuseWhereADiscardWouldBeUndone(letter);
        }
        byte[] payload = deadLetters.payload(id).orElseThrow(() -> conflict("dead letter " + id
                + " has no stored payload (it could not be stored when the event failed); discard it"));
        if (mailer) {
            redriveThroughOutbox(letter, payload);
            BillingMessage.BILLING0201I.log(id, letter.consumer(), letter.eventId(), user());
            return deadLetters.find(id).orElseThrow();
        }
        try {
            if (letter.consumer().equals(JMS_CONSUMER)) {
                // the JMS consumer's own queue; a send outside a transaction is committed when it returns
                jmsOrders.send(new String(payload, java.nio.charset.StandardCharsets.UTF_8), letter.eventId());
            } else {
                redrive.send(payload).toCompletableFuture().get(30, TimeUnit.SECONDS);
            }
        } catch (ExecutionException | TimeoutException | RuntimeException e) {
            BillingMessage.BILLING0203W.log(id, e);
            throw new WebApplicationException(Response.status(Response.Status.SERVICE_UNAVAILABLE)
                    .entity(Map.of("error", "the broker did not acknowledge the re-drive of dead letter " + id
                            + " (" + e.getClass().getSimpleName() + "); it stays open, try again"))
                    .type(MediaType.APPLICATION_JSON).build());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new WebApplicationException(e, Response.Status.SERVICE_UNAVAILABLE);
        }
        if (!deadLetters.markRedriven(id, user(), letter.lastFailedAt())) {
            throw conflict("dead letter " + id + " was sent again, but the row changed meanwhile: the event failed "
                    + "again, or someone resolved it. Look at the row before doing more");
        }
        BillingMessage.BILLING0201I.log(id, letter.consumer(), letter.eventId(), user());
        return deadLetters.find(id).orElseThrow();
    }

    /**
     * The mailer's dead letter: its {@code invoices.issued} payload is recorded in the outbox and the row marked
     * re-driven in one transaction, so the relay sends it after the commit (at least once, as every
     * {@code invoices.issued} record) and two operators re-driving the row at once send it once: the second one's
     * mark finds the row changed and its transaction rolls back with its outbox row. The mailer is the only consumer
     * of the topic in this service, and reads the event id from the payload, so the record is the same event again.
     */
    private void redriveThroughOutbox(DeadLetter letter, byte[] payload) throws SQLException {
        String text = Utf8.decode(payload);
        if (text == null || text.indexOf('\0') >= 0) {
            throw conflict("dead letter " + letter.id() + " of consumer " + letter.consumer() + " has a payload that "
                    + "is not UTF-8 JSON text, which invoices.issued records are; it would only fail again. Discard it");
        }
        boolean done = false;
        try {
            transaction.begin();
            outbox.record(InvoiceIssued.topic(), null, eventId -> text);
            if (!deadLetters.markRedriven(letter.id(), user(), letter.lastFailedAt())) {
                throw conflict("dead letter " + letter.id() + " changed while it was re-driven: it failed again, or "
                        + "someone resolved it (nothing was sent). Look at the row before doing more");
            }
            transaction.commit();
            done = true;
        } catch (SQLException | RuntimeException e) {
            throw e;
        } catch (Exception e) {
            // begin or commit refused (a RollbackException when the outbox row could not be written: OUTBOX0006E)
            BillingMessage.BILLING0217W.log(letter.id(), e);
            throw new WebApplicationException(Response.status(Response.Status.SERVICE_UNAVAILABLE)
                    .entity(Map.of("error", "the re-drive of dead letter " + letter.id() + " could not be committed ("
                            + e.getClass().getSimpleName() + "); it stays open, try again"))
                    .type(MediaType.APPLICATION_JSON).build());
        } finally {
            if (!done) {
                rollback();
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
                throw conflict("dead letter " + letter.id() + ": a re-drive sends event " + letter.eventId()
                        + " to every consumer of orders.confirmed, and consumer " + other + " would process it, "
                        + "although its dead letter " + discarded.get().id() + " for this event was discarded by "
                        + discarded.get().resolvedBy() + ". This service cannot re-drive an event to one consumer "
                        + "alone: discard this dead letter too, or have the producer send the event again if "
                        + other + " should process it after all");
            }
        }
    }

    /**
     * @param idText the dead letter's id, 1 to {@link Long#MAX_VALUE} (400 otherwise)
     * @return 200 with the row; 404 when there is no such row, 409 when it is not open
     * @throws SQLException when the database cannot be written (500)
     */
    @DELETE
    @Path("/{id}")
    public DeadLetter discard(@PathParam("id") String idText) throws SQLException {
        long id = QueryParams.id("id", idText);
        DeadLetter letter = open(id);
        if (!deadLetters.discard(id, user())) {
            throw conflict("dead letter " + id + " was resolved by someone else meanwhile");
        }
        BillingMessage.BILLING0202I.log(id, letter.consumer(), letter.eventId(), user());
        return deadLetters.find(id).orElseThrow();
    }

    private DeadLetter open(long id) throws SQLException {
        DeadLetter letter = deadLetters.find(id).orElseThrow(() -> new NotFoundException(Response
                .status(Response.Status.NOT_FOUND).entity(Map.of("error", "no dead letter " + id))
                .type(MediaType.APPLICATION_JSON).build()));
        if (!letter.open()) {
            throw conflict("dead letter " + id + " was already " + (letter.redrivenAt() != null ? "re-driven" : "discarded")
                    + " by " + letter.resolvedBy());
        }
        return letter;
    }

    private String user() {
        return caller.getUserPrincipal() == null ? "unknown" : caller.getUserPrincipal().getName();
    }

    private static ClientErrorException conflict(String message) {
        return new ClientErrorException(Response.status(Response.Status.CONFLICT)
                .entity(Map.of("error", message)).type(MediaType.APPLICATION_JSON).build());
    }
}
