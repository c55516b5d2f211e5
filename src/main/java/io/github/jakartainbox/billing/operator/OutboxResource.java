package io.github.jakartainbox.billing.operator;

import io.github.jakartainbox.billing.BillingMessage;
import io.github.jakartainbox.billing.web.Roles;
import io.github.jakartainbox.outbox.FailingRow;
import io.github.jakartainbox.outbox.OutboxFigures;
import io.github.jakartainbox.outbox.OutboxOperations;
import jakarta.annotation.security.RolesAllowed;
import jakarta.enterprise.context.RequestScoped;
import jakarta.inject.Inject;
import jakarta.ws.rs.DELETE;
import jakarta.ws.rs.DefaultValue;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.SecurityContext;
import java.util.List;
import java.util.Map;

/**
 * The outbox for operators: {@code GET /billing/api/outbox} (figures, readers too), {@code GET
 * /billing/api/outbox/failing[?limit=100]} (rows that failed to be sent, with their errors), {@code POST
 * /billing/api/outbox/{id}/retry} (send now) and {@code DELETE /billing/api/outbox/{id}} (give the row up).
 */
@Path("/outbox")
@RequestScoped
@Produces(MediaType.APPLICATION_JSON)
@RolesAllowed(Roles.OPERATOR)
public class OutboxResource {

    @Inject
    OutboxOperations outbox;
    @Context
    SecurityContext security;

    /** @return pending, oldestPendingSeconds, delivered, failing */
    @GET
    @RolesAllowed({Roles.READER, Roles.OPERATOR})
    public Map<String, Long> figures() {
        OutboxFigures f = outbox.figures();
        return Map.of("pending", f.pending(), "oldestPendingSeconds", f.oldestPending().toSeconds(),
                "delivered", f.delivered(), "failing", f.failing());
    }

    /**
     * @param limit the most rows, 1 to 1000 (400 otherwise), oldest first
     * @return pending rows that failed at least once
     */
    @GET
    @Path("/failing")
    public List<FailingRow> failing(@QueryParam("limit") @DefaultValue("100") String limit) {
        return outbox.failing(QueryParams.limit(limit, 1000));
    }

    /**
     * @param id the row, 1 to {@link Long#MAX_VALUE} (400 otherwise)
     * @return 204, 404 for no such row, 409 for a row delivered or given up already
     */
    @POST
    @Path("/{id}/retry")
    public Response retry(@PathParam("id") String id) {
        long row = QueryParams.id("id", id);
        return answer(outbox.retry(row, security.getUserPrincipal().getName()), row);
    }

    /**
     * @param id the row, 1 to {@link Long#MAX_VALUE} (400 otherwise)
     * @return 204, 404 for no such row, 409 for a row delivered or given up already
     */
    @DELETE
    @Path("/{id}")
    public Response giveUp(@PathParam("id") String id) {
        long row = QueryParams.id("id", id);
        return answer(outbox.giveUp(row, security.getUserPrincipal().getName()), row);
    }

    private static Response answer(OutboxOperations.Outcome outcome, long id) {
        return switch (outcome) {
            case DONE -> Response.noContent().build();
            case NOT_FOUND -> Response.status(Response.Status.NOT_FOUND)
                    .entity(Map.of("error", BillingMessage.BILLING0256E.format(String.valueOf(id)))).build();
            case NOT_PENDING -> Response.status(Response.Status.CONFLICT)
                    .entity(Map.of("error", BillingMessage.BILLING0257E.format(String.valueOf(id)))).build();
        };
    }
}
