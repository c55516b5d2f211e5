package io.github.jakartainbox.billing.web;

import io.github.jakartainbox.billing.BillingMessage;
import io.github.jakartainbox.inbox.text.Printable;
import jakarta.annotation.Priority;
import jakarta.ws.rs.Priorities;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerRequestFilter;
import jakarta.ws.rs.container.ResourceInfo;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.ext.Provider;
import java.lang.annotation.Annotation;
import java.lang.reflect.Method;
import java.util.Collections;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Refuses a query parameter the resource method does not take (400, {@code BILLING0307E}, naming it and the ones it
 * takes): the runtime ignores it, so {@code GET /invoices?ORDERID=x}, a misspelt filter, answered every customer's
 * newest invoices. The names a method takes are its {@code @QueryParam} parameters.
 */
@Provider
@Priority(Priorities.USER)
public class KnownQueryParameters implements ContainerRequestFilter {

    /** Each resource method's query parameter names, read once. */
    private static final Map<Method, Set<String>> TAKEN = new ConcurrentHashMap<>();

    @Context
    ResourceInfo resource;

    @Override
    public void filter(ContainerRequestContext request) {
        Method method = resource == null ? null : resource.getResourceMethod();
        if (method == null) {
            return;
        }
        Set<String> names = TAKEN.computeIfAbsent(method, KnownQueryParameters::queryParameters);
        for (String name : request.getUriInfo().getQueryParameters().keySet()) {
            if (!names.contains(name)) {
                String path = request.getUriInfo().getRequestUri().getRawPath();
                request.abortWith(Response.status(Response.Status.BAD_REQUEST).type(MediaType.APPLICATION_JSON)
                        .entity(Map.of("error", BillingMessage.BILLING0307E.format(request.getMethod(),
                                Printable.of(path, 100), Printable.of(name, 60),
                                names.isEmpty() ? "none" : String.join(", ", names)))).build());
                return;
            }
        }
    }

    /** @return the {@code @QueryParam} names of the method's parameters, sorted */
    static Set<String> queryParameters(Method method) {
        java.util.SortedSet<String> names = new TreeSet<>();
        for (Annotation[] annotations : method.getParameterAnnotations()) {
            for (Annotation annotation : annotations) {
                if (annotation instanceof QueryParam query) {
                    names.add(query.value());
                }
            }
        }
        return Collections.unmodifiableSortedSet(names); // sorted: the message lists them in this order
    }
}
