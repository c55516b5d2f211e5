package io.github.jakartainbox.billing.operator;

import io.github.jakartainbox.billing.BillingConfig;
import io.github.jakartainbox.billing.BillingMessage;
import io.github.jakartainbox.billing.invoice.Invoice;
import io.github.jakartainbox.billing.invoice.Invoices;
import io.github.jakartainbox.billing.order.OrderConfirmed;
import io.github.jakartainbox.billing.web.Roles;
import io.github.jakartainbox.inbox.UnprocessableEventException;
import jakarta.annotation.security.RolesAllowed;
import jakarta.enterprise.context.RequestScoped;
import jakarta.inject.Inject;
import jakarta.ws.rs.DefaultValue;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.eclipse.microprofile.config.ConfigProvider;

/**
 * {@code GET /billing/api/invoices[?orderId=..&limit=..]}, {@code GET /billing/api/invoices/count} and the
 * compensation query {@code GET /billing/api/invoices/unmailed[?olderThan=PT10M&limit=..]}.
 */
@Path("/invoices")
@RequestScoped
@Produces(MediaType.APPLICATION_JSON)
@RolesAllowed({Roles.READER, Roles.OPERATOR})
public class InvoiceResource {

    @Inject
    Invoices invoices;

    /**
     * @param orderId only this order's invoices, when given: at most {@value OrderConfirmed#MAX_ORDER_ID_CHARS}
     *                characters, none shown as nothing or reordering the text and not blanks only, as an order id
     *                may have (400 otherwise, {@code BILLING0120E} and {@code BILLING0301E} for the latter)
     * @param limit   the most invoices returned, 1 to 1000, newest first (400 otherwise)
     * @return the invoices
     */
    @GET
    public List<Invoice> list(@QueryParam("orderId") String orderId, @QueryParam("limit") @DefaultValue("100") String limit) {
        if (orderId != null && orderId.isEmpty()) {
            // no order has an empty id (the contract refuses it): an empty filter found nothing and said nothing
            throw QueryParams.badRequest(BillingMessage.BILLING0238E.format("orderId",
                    "must not be empty; leave it out for every order's invoices", "an empty value"));
        }
        String filter = QueryParams.text("orderId", orderId, OrderConfirmed.MAX_ORDER_ID_CHARS);
        if (filter != null) {
            // the contract's display rules (BILLING0120E, BILLING0301E): no order has such an id, and an empty list
            // said nothing
            try {
                OrderConfirmed.shownOrderId("orderId", filter);
            } catch (UnprocessableEventException e) {
                throw QueryParams.badRequest(e.getMessage());
            }
        }
        return invoices.list(filter, QueryParams.limit(limit, 1000));
    }

    /** @return {@code {"count": n}} */
    @GET
    @Path("/count")
    public Map<String, Long> count() {
        return Map.of("count", invoices.count());
    }

    /**
     * @param olderThan ISO-8601 duration an invoice may wait for its mail (default {@code billing.mail.unmailed-after},
     *                  PT10M); 400 when it is not a duration from PT0S to P3650D (beyond that PostgreSQL's
     *                  timestamps overflow: P99999999999D answered 500)
     * @param limit     the most invoices listed, 1 to 1000, oldest first
     * @return {@code {"olderThan":"PT10M","count":n,"invoices":[...]}}: invoices without a recorded mail
     */
    @GET
    @Path("/unmailed")
    public Map<String, Object> unmailed(@QueryParam("olderThan") String olderThan,
                                        @QueryParam("limit") @DefaultValue("100") String limit) {
        Duration delay = olderThan == null ? BillingConfig.UNMAILED_AFTER.get(ConfigProvider.getConfig())
                : QueryParams.duration("olderThan", olderThan);
        Map<String, Object> answer = new LinkedHashMap<>();
        answer.put("olderThan", delay.toString());
        answer.put("count", invoices.unmailedCount(delay));
        answer.put("invoices", invoices.unmailed(delay, QueryParams.limit(limit, 1000)));
        return answer;
    }
}
