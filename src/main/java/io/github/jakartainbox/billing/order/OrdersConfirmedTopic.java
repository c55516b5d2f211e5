package io.github.jakartainbox.billing.order;

import io.github.jakartainbox.billing.BillingConfig;
import io.github.jakartainbox.billing.Topics;
import jakarta.annotation.Priority;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.context.Initialized;
import jakarta.enterprise.event.Observes;
import jakarta.interceptor.Interceptor;
import org.eclipse.microprofile.config.ConfigProvider;

/**
 * Creates the topic the order consumers read ({@code orders.confirmed}, the {@code topic} of channel
 * {@code orders-billing}) at start with {@code billing.orders-confirmed.partitions} partitions (default 6), so that several servers and
 * several channel copies ({@code concurrency}) share it. Producers key each record by order id, so one order's events
 * stay in order on one partition. A topic that exists is left as it is ({@code BILLING0219W} when it has fewer
 * partitions); the broker's default count applies only when the first producer or consumer came first.
 */
@ApplicationScoped
public class OrdersConfirmedTopic {

    // before the channels' consumers subscribe (and auto-create the topic with the broker's default count)
    void onStart(@Observes @Priority(Interceptor.Priority.PLATFORM_BEFORE + 1) @Initialized(ApplicationScoped.class)
                 Object started) {
        int partitions = BillingConfig.ORDERS_CONFIRMED_PARTITIONS.get(ConfigProvider.getConfig());
        String topic = ConfigProvider.getConfig()
                .getOptionalValue("mp.messaging.incoming.orders-billing.topic", String.class).orElse("orders.confirmed");
        // the cluster the order channels read: the inbox-kafka connector's connection and security settings
        Topics.ensure(topic, partitions, "mp.messaging.connector.inbox-kafka.",
                BillingConfig.ORDERS_CONFIRMED_PARTITIONS.name());
    }
}
