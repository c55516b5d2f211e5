package io.github.jakartainbox.billing;

import io.github.jakartainbox.inbox.DatabaseFailures;
import jakarta.ws.rs.WebApplicationException;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.UriInfo;
import jakarta.ws.rs.ext.ExceptionMapper;
import jakarta.ws.rs.ext.Provider;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

/**
 * What the REST API answers when a call fails for a reason no other mapper took: 503 with {@code Retry-After} while
 * the database is unavailable ({@link DatabaseFailures#unavailable}), otherwise 500; both with a short JSON body that
 * names no internals, the details going to the log under an incident number the body gives. Before this, a call made
 * while the database refused connections answered 500, with Liberty's HTML error page or an empty body, and the
 * exception's text in a response header.
 */
@Provider
public class FailureAnswer implements ExceptionMapper<Exception> {

    /** Seconds a client should wait before trying again while the database is unavailable. */
    static final int RETRY_AFTER_SECONDS = 10;

    private static final AtomicLong INCIDENTS = new AtomicLong();

    @Context
    UriInfo uri;

    @Override
    public Response toResponse(Exception failure) {
        if (failure instanceof WebApplicationException answered) {
            return answered.getResponse(); // 400, 404, 409...: the resource chose the answer
        }
        long incident = INCIDENTS.incrementAndGet();
        String path = uri == null ? "?" : uri.getRequestUri().getRawPath();
        if (DatabaseFailures.unavailable(failure)) {
            BillingMessage.BILLING0213W.log(path, incident, failure.toString());
            return Response.status(Response.Status.SERVICE_UNAVAILABLE).header("Retry-After", RETRY_AFTER_SECONDS)
                    .type(MediaType.APPLICATION_JSON)
                    .entity(Map.of("error", BillingMessage.BILLING0213W.format(path, incident,
                            "the database is unavailable; /health/ready says why"))).build();
        }
        BillingMessage.BILLING0214E.log(failure, path, incident);
        return Response.serverError().type(MediaType.APPLICATION_JSON)
                .entity(Map.of("error", BillingMessage.BILLING0214E.format(path, incident))).build();
    }
}
