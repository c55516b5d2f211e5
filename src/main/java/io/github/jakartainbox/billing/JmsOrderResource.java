package io.github.jakartainbox.billing;

import io.github.jakartainbox.inbox.StrictJson;
import io.github.jakartainbox.inbox.Utf8;
import jakarta.annotation.security.RolesAllowed;
import jakarta.enterprise.context.RequestScoped;
import jakarta.inject.Inject;
import jakarta.json.JsonObject;
import jakarta.json.JsonString;
import jakarta.jms.JMSRuntimeException;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.WebApplicationException;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.SecurityContext;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * {@code POST /billing/api/jms/orders} (role {@code billing-operator}): sends the request body, an
 * {@code orders.confirmed} event as JSON, to the JMS queue {@code orders.confirmed} as it is, for consumer
 * {@code billing-jms}. The body is not checked here (bad input is the consumer's to dead-letter), except that it
 * must be UTF-8 text (400 otherwise); its top-level {@code event_id}, when it is a string, is also set as JMS
 * property {@code event_id}.
 * Answers 202 with {@code {"queue", "messageId", "eventId"}}, or 503 when the messaging engine refuses the send.
 */
@Path("/jms/orders")
@RequestScoped
@RolesAllowed(Roles.OPERATOR)
public class JmsOrderResource {

    @Inject
    JmsOrders orders;

    @Context
    SecurityContext caller;

    /**
     * @param body the event's bytes
     * @return 202 with the queue, the JMSMessageID and the event id found in the body ({@code null} when none); 400
     *         when the body is not UTF-8 text, which a {@code TextMessage} cannot carry byte for byte (it was
     *         decoded with U+FFFD for each bad byte and sent, so the dead letter did not keep the original bytes)
     */
    @POST
    @Consumes({MediaType.APPLICATION_JSON, MediaType.TEXT_PLAIN})
    @Produces(MediaType.APPLICATION_JSON)
    public Response send(byte[] body) {
        String json = Utf8.decode(body == null ? new byte[0] : body);
        if (json == null) {
            throw new WebApplicationException(Response.status(Response.Status.BAD_REQUEST)
                    .entity(Map.of("error", "the body is not UTF-8 text; a JMS TextMessage carries text only, so it "
                            + "cannot be sent as it is. Send the event as UTF-8 JSON"))
                    .type(MediaType.APPLICATION_JSON).build());
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

    private static String eventId(String json) {
        try {
            JsonObject object = StrictJson.readObject(json);
            return object.get("event_id") instanceof JsonString id ? id.getString() : null;
        } catch (RuntimeException e) { // JsonException, or no text at all
            return null;
        }
    }
}
