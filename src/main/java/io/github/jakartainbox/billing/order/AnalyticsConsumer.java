package io.github.jakartainbox.billing.order;

import io.github.jakartainbox.billing.BillingSchema;
import io.github.jakartainbox.inbox.Idempotent;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.concurrent.CompletionStage;
import org.eclipse.microprofile.reactive.messaging.Incoming;
import org.eclipse.microprofile.reactive.messaging.Message;

/**
 * Consumer {@code analytics} on the same topic, in its own consumer group: adds each order's amount to the
 * day's revenue. The increment is not idempotent by itself; the per-consumer inbox row makes it happen once per
 * event, independently of {@code billing}.
 */
@ApplicationScoped
public class AnalyticsConsumer {

    @PersistenceContext(unitName = "billing")
    EntityManager em;

    @Inject
    BillingSchema schema;

    /**
     * @param message the {@code orders.confirmed} record (a {@code Message}, so that the delivery's span continues the
     *                producer's trace, docs/observability.md "Tracing"); its value as it arrived (UTF-8 JSON; checked strictly)
     * @return the acknowledgement (the inbox acknowledges the record itself, after the commit)
     */
    @Incoming("orders-analytics")
    @Idempotent(consumer = "analytics")
    public CompletionStage<Void> onOrderConfirmed(Message<byte[]> message) {
        OrderConfirmed order = OrderConfirmed.parse(message.getPayload());
        schema.ensureMigrated();
        em.createNativeQuery("INSERT INTO daily_revenue (day, currency, amount, orders) VALUES (?1, ?2, ?3, 1) "
                        + "ON CONFLICT (day, currency) DO UPDATE SET amount = daily_revenue.amount + EXCLUDED.amount, "
                        + "orders = daily_revenue.orders + 1")
                .setParameter(1, LocalDate.now(ZoneOffset.UTC))
                .setParameter(2, order.currency())
                .setParameter(3, order.amount())
                .executeUpdate();
        return message.ack();
    }
}
