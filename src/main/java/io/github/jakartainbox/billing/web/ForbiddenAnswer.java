package io.github.jakartainbox.billing.web;

import io.github.jakartainbox.billing.BillingMessage;
import jakarta.ws.rs.ForbiddenException;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.SecurityContext;
import jakarta.ws.rs.core.UriInfo;
import jakarta.ws.rs.ext.ExceptionMapper;
import jakarta.ws.rs.ext.Provider;
import java.util.Map;

/**
 * A call refused by {@code @RolesAllowed} answers 403 with a JSON body naming the role it needs, instead of an empty
 * body. Every read of the API is open to {@link Roles#READER}, so a refused call is always one only
 * {@link Roles#OPERATOR} may make. (The servlet container's own refusals, from {@code web.xml}'s constraints, get the
 * same answer through its {@code <error-page>}.)
 */
@Provider
public class ForbiddenAnswer implements ExceptionMapper<ForbiddenException> {

    @Context
    SecurityContext caller;
    @Context
    UriInfo uri;

    @Override
    public Response toResponse(ForbiddenException refused) {
        String user = caller == null || caller.getUserPrincipal() == null ? "the caller"
                : "user " + caller.getUserPrincipal().getName();
        return Response.status(Response.Status.FORBIDDEN).type(MediaType.APPLICATION_JSON)
                .entity(Map.of("error", BillingMessage.BILLING0211W.format(user, uri.getRequestUri().getRawPath(), Roles.OPERATOR)))
                .build();
    }
}
