package io.github.jakartainbox.billing.operator;

import io.github.jakartainbox.billing.BillingMessage;
import io.github.jakartainbox.billing.order.JmsOrders;
import io.github.jakartainbox.billing.order.OrderConfirmed;
import io.github.jakartainbox.billing.web.Roles;
import io.github.jakartainbox.inbox.text.Printable;
import io.github.jakartainbox.inbox.text.StrictJson;
import io.github.jakartainbox.inbox.text.Utf8;
import jakarta.annotation.security.RolesAllowed;
import jakarta.enterprise.context.RequestScoped;
import jakarta.inject.Inject;
import jakarta.jms.JMSRuntimeException;
import jakarta.json.JsonObject;
import jakarta.json.JsonString;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.HeaderParam;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.WebApplicationException;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.SecurityContext;
import java.io.IOException;
import java.io.InputStream;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * {@code POST /billing/api/jms/orders} (role {@code billing-operator}): sends the request body, an
 * {@code orders.confirmed} event as JSON, to the JMS queue {@code orders.confirmed} as it is, for consumer
 * {@code billing-jms}. The body is not checked here (bad input is the consumer's to dead-letter), except that it
 * must be of type {@code application/json} (415, {@code BILLING0232E}: {@code text/plain} was accepted, which an
 * HTML form of another site can send), at most {@link OrderConfirmed#MAX_BYTES} bytes (413, {@code BILLING0234E},
 * naming the real size; a 4 MB body was sent and its dead letter said "65537 bytes") and UTF-8 text (400,
 * {@code BILLING0235E}); its top-level {@code event_id}, when it is a string, is also set as JMS property
 * {@code event_id}.
 * Answers 202 with {@code {"queue", "messageId", "eventId"}}, or 503 when the messaging engine refuses the send.
 */
@Path(JmsOrderResource.RESOURCE)
@RequestScoped
@RolesAllowed(Roles.OPERATOR)
public class JmsOrderResource {

    static final String RESOURCE = "/jms/orders";
    /** The path as the caller sees it, for answers. */
    private static final String PATH = "/billing/api" + RESOURCE;

    @Inject
    JmsOrders orders;

    @Context
    SecurityContext caller;

    /**
     * @param body          the event's bytes, read up to one byte past the limit
     * @param contentLength the {@code Content-Length} header, the body's real size when it is over the limit
     * @return 202 with the queue, the JMSMessageID and the event id found in the body ({@code null} when none); 413
     *         when the body is larger than {@link OrderConfirmed#MAX_BYTES}; 400 when it is not UTF-8 text, which a
     *         {@code TextMessage} cannot carry byte for byte (it was decoded with U+FFFD for each bad byte and sent,
     *         so the dead letter did not keep the original bytes), or cannot be read
     */
    @POST
    @Consumes(MediaType.APPLICATION_JSON)
    @Produces(MediaType.APPLICATION_JSON)
    public Response send(InputStream body, @HeaderParam(HttpHeaders.CONTENT_LENGTH) String contentLength) {
        byte[] bytes = read(body, contentLength);
        String json = Utf8.decode(bytes);
        if (json == null) {
            throw refused(Response.Status.BAD_REQUEST, BillingMessage.BILLING0235E.format("POST", PATH));
        }
        try {
            io.github.jakartainbox.inbox.text.StrictJson.readObject(json); // refused here, not dead-lettered later
        } catch (RuntimeException e) {
            throw refused(Response.Status.BAD_REQUEST, BillingMessage.BILLING0258E.format("POST", PATH,
                    io.github.jakartainbox.inbox.text.Printable.of(e.getMessage(), 200)));
        }
        String eventId = eventId(json);
        String messageId;
        try {
            messageId = orders.send(json, eventId);
        } catch (JMSRuntimeException e) {
            BillingMessage.BILLING0210W.log(orders.queueName(), e);
            throw new WebApplicationException(Response.status(Response.Status.SERVICE_UNAVAILABLE)
                    .entity(Map.of("error", "the messaging engine did not take the message: " + e.getMessage()))
                    .type(MediaType.APPLICATION_JSON).build());
        }
        BillingMessage.BILLING0208I.log(eventId, orders.queueName(),
                caller.getUserPrincipal() == null ? "unknown" : caller.getUserPrincipal().getName(), messageId);
        Map<String, Object> answer = new LinkedHashMap<>();
        answer.put("queue", orders.queueName());
        answer.put("messageId", messageId);
        answer.put("eventId", eventId);
        return Response.accepted(answer).build();
    }

    /**
     * The body, never more than {@link OrderConfirmed#MAX_BYTES} of it: a larger one is refused naming its real size,
     * from {@code Content-Length} (the filter refuses any {@code Content-Encoding}, so that is the size of the body
     * itself), or "more than" the limit when it came without one and was not read to its end.
     */
    private static byte[] read(InputStream body, String contentLength) {
        // Liberty refuses a malformed Content-Length itself; without one (-1) the body is counted below
        long declared = contentLength == null ? -1 : QueryParams.asciiNumber(contentLength.trim());
        int max = OrderConfirmed.MAX_BYTES;
        if (declared > max) {
            throw refused(Response.Status.REQUEST_ENTITY_TOO_LARGE,
                    BillingMessage.BILLING0234E.format("POST", PATH, declared + " bytes", String.valueOf(max)));
        }
        byte[] bytes;
        try {
            bytes = body == null ? new byte[0] : body.readNBytes(max + 1);
        } catch (IOException e) {
            // a body cut short, or one Liberty's HTTP channel could not inflate (IllegalHttpBodyException)
            throw refused(Response.Status.BAD_REQUEST, BillingMessage.BILLING0233E.format("POST", PATH,
                    "it could not be read (" + Printable.of(String.valueOf(e.getMessage()), 80) + ")",
                    String.valueOf(max)));
        }
        if (bytes.length > max) {
            throw refused(Response.Status.REQUEST_ENTITY_TOO_LARGE, BillingMessage.BILLING0234E.format("POST", PATH,
                    "more than " + max + " bytes (not read to its end)", String.valueOf(max)));
        }
        return bytes;
    }

    private static WebApplicationException refused(Response.Status status, String message) {
        return new WebApplicationException(Response.status(status).entity(Map.of("error", message))
                .type(MediaType.APPLICATION_JSON).build());
    }

    private static String eventId(String json) {
        try {
            JsonObject object = StrictJson.readObject(json);
            return object.get("event_id") instanceof JsonString id ? id.getString() : null;
        } catch (RuntimeException e) { // JsonException, or no text at all
            return null;
        }
    }
}
