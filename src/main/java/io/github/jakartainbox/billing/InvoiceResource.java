package io.github.jakartainbox.billing;

import jakarta.annotation.security.RolesAllowed;
import jakarta.enterprise.context.RequestScoped;
import jakarta.inject.Inject;
import jakarta.ws.rs.DefaultValue;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;
import java.util.List;
import java.util.Map;

/** {@code GET /billing/api/invoices[?orderId=..&limit=..]} and {@code GET /billing/api/invoices/count}. */
@Path("/invoices")
@RequestScoped
@Produces(MediaType.APPLICATION_JSON)
@RolesAllowed({Roles.READER, Roles.OPERATOR})
public class InvoiceResource {

    @Inject
    Invoices invoices;

    /**
     * @param orderId only this order's invoices, when given
     * @param limit   the most invoices returned, 1 to 1000, newest first (400 otherwise)
     * @return the invoices
     */
    @GET
    public List<Invoice> list(@QueryParam("orderId") String orderId, @QueryParam("limit") @DefaultValue("100") String limit) {
        return invoices.list(orderId, QueryParams.limit(limit, 1000));
    }

    /** @return {@code {"count": n}} */
    @GET
    @Path("/count")
    public Map<String, Long> count() {
        return Map.of("count", invoices.count());
    }
}
