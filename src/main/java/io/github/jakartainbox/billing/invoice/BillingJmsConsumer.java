package io.github.jakartainbox.billing.invoice;

import io.github.jakartainbox.billing.BillingMessage;
import io.github.jakartainbox.billing.order.OrderConfirmed;
import io.github.jakartainbox.inbox.Idempotent;
import io.github.jakartainbox.inbox.UnprocessableEventException;
import jakarta.ejb.MessageDriven;
import jakarta.inject.Inject;
import jakarta.jms.JMSException;
import jakarta.jms.Message;
import jakarta.jms.MessageListener;
import jakarta.jms.TextMessage;

/**
 * Consumer {@code billing-jms}: the same invoices as {@link BillingConsumer}, from the JMS queue
 * {@code orders.confirmed} of Liberty's embedded messaging engine (server.xml: {@code messagingEngine}, activation
 * specification {@code billing/billing/BillingJmsConsumer}). A message-driven bean with container-managed transactions
 * (REQUIRED, the default): the inbox claim, the invoice and the message's consumption commit together. The event id
 * is the body's {@code event_id} field by default ({@code inbox.consumer.billing-jms.event-id.source}).
 */
@MessageDriven(name = "BillingJmsConsumer")
public class BillingJmsConsumer implements MessageListener {

    @Inject
    Invoices invoices;

    /**
     * @param message a {@code TextMessage} holding an {@code orders.confirmed} event as JSON
     * @throws UnprocessableEventException when it is another message type or breaks the event contract (the inbox
     *                                     dead-letters it)
     */
    @Override
    @Idempotent(consumer = "billing-jms")
    public void onMessage(Message message) {
        if (!(message instanceof TextMessage text)) {
            throw new UnprocessableEventException(BillingMessage.BILLING0209E.format(
                    message.getClass().getSimpleName()));
        }
        String json;
        try {
            json = text.getText();
        } catch (JMSException e) {
            throw new IllegalStateException("cannot read the text of JMS message: " + e, e);
        }
        invoices.create(OrderConfirmed.parse(json));
    }
}
