package io.github.jakartainbox.billing.web;

import io.github.jakartainbox.billing.BillingMessage;
import io.github.jakartainbox.billing.order.OrderConfirmed;
import io.github.jakartainbox.inbox.DatabaseFailures;
import io.github.jakartainbox.inbox.text.Printable;
import jakarta.ws.rs.WebApplicationException;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Request;
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
 * exception's text in a response header. Two refusals of the runtime get a body here too: a 415 (a body of a type the
 * resource does not take) says what to send ({@code BILLING0232E}), and a body Liberty's HTTP channel cannot inflate
 * ({@code IllegalHttpBodyException}, "Invalid gzip header", thrown while the body is read) is a 400
 * ({@code BILLING0233E}) instead of a 500; {@link RequestGuard} already refuses any {@code Content-Encoding}, this is
 * the fallback.
 */
@Provider
public class FailureAnswer implements ExceptionMapper<Exception> {

    /** Seconds a client should wait before trying again while the database is unavailable. */
    static final int RETRY_AFTER_SECONDS = 10;

    private static final AtomicLong INCIDENTS = new AtomicLong();

    /** @return the next incident number, shared with the container's 500s ({@link ErrorAnswer}) */
    static long nextIncident() {
        return INCIDENTS.incrementAndGet();
    }

    @Context
    UriInfo uri;
    @Context
    HttpHeaders headers;
    @Context
    Request request;

    @Override
    public Response toResponse(Exception failure) {
        String path;
        try {
            path = uri == null ? "?" : uri.getRequestUri().getRawPath();
        } catch (RuntimeException unparsable) {
            path = "?"; // a URI the runtime cannot parse (RequestGuard refuses those first): still answer
        }
        String method = request == null ? "?" : request.getMethod();
        if (failure instanceof WebApplicationException answered) {
            Response response = answered.getResponse();
            if (response.getStatus() == Response.Status.UNSUPPORTED_MEDIA_TYPE.getStatusCode() && !response.hasEntity()) {
                String type = headers == null ? null : headers.getHeaderString(HttpHeaders.CONTENT_TYPE);
                return Response.status(Response.Status.UNSUPPORTED_MEDIA_TYPE).type(MediaType.APPLICATION_JSON)
                        .entity(Map.of("error", BillingMessage.BILLING0232E.format(method, path,
                                type == null ? "none" : Printable.of(type, 60)))).build();
            }
            if (response.getStatus() == Response.Status.BAD_REQUEST.getStatusCode() && !response.hasEntity()
                    && path.equals("?")) {
                // a URI the runtime could not parse (RequestGuard refuses the characters it knows first): say how
                return Response.status(Response.Status.BAD_REQUEST).type(MediaType.APPLICATION_JSON)
                        .entity(Map.of("error", BillingMessage.BILLING0296E.format(method, path))).build();
            }
            if (response.getStatus() >= 400 && !response.hasEntity()) {
                // the runtime's own refusals (404 no such path, 405 method, 406 type) come without a body
                return Response.status(response.getStatus()).type(MediaType.APPLICATION_JSON)
                        .entity(Map.of("error", BillingMessage.BILLING0253E.format(method, path,
                                String.valueOf(response.getStatus()), response.getStatusInfo().getReasonPhrase())))
                        .build();
            }
            return response; // 400, 404, 409...: the resource chose the answer
        }
        for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
            if (cause.getClass().getName().endsWith(".IllegalHttpBodyException")) {
                return Response.status(Response.Status.BAD_REQUEST).type(MediaType.APPLICATION_JSON)
                        .entity(Map.of("error", BillingMessage.BILLING0233E.format(method, path, "it could not be "
                                + "inflated (" + Printable.of(String.valueOf(cause.getMessage()), 80) + ")",
                                String.valueOf(OrderConfirmed.MAX_BYTES)))).build();
            }
        }
        long incident = nextIncident();
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
