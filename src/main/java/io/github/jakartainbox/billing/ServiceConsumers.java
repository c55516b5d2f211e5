package io.github.jakartainbox.billing;

import io.github.jakartainbox.inbox.InboxConfig;
import java.util.List;

/**
 * The inbox consumers of the billing service, in one place for the metrics and the dead-letter API
 * ({@code ServiceConsumersTest} checks that it names every {@code @Idempotent} consumer of the billing packages).
 */
public final class ServiceConsumers {

    /** As annotated: the consumers that read {@code orders.confirmed} (Kafka) or the JMS queue of the same name. */
    public static final List<String> ORDERS = List.of("billing", "analytics", "billing-jms");
    /** As annotated: the consumers of the Kafka topic {@code orders.confirmed} (a re-drive there reaches them). */
    public static final List<String> ORDERS_KAFKA = List.of("billing", "analytics");
    /** As annotated: every consumer, those of {@link #ORDERS} and the mailer, which reads {@code invoices.issued}. */
    public static final List<String> ALL = List.of("billing", "analytics", "billing-jms", "mailer");
    /** As annotated: the consumer fed by the JMS queue {@code orders.confirmed}. */
    public static final String JMS = "billing-jms";
    /** As annotated: the consumer of {@code invoices.issued}, which mails the invoices. */
    public static final String MAILER = "mailer";

    private ServiceConsumers() {
    }

    /**
     * @param annotated consumer names as {@code @Idempotent} gives them
     * @return their inbox names ({@code inbox.consumer.<c>.name} may change them), read from the configuration
     */
    public static List<String> inboxNames(List<String> annotated) {
        return annotated.stream().map(InboxConfig::consumerName).toList();
    }
}
