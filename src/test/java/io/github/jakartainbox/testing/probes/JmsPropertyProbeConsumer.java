package io.github.jakartainbox.testing.probes;

import io.github.jakartainbox.billing.invoice.Invoices;
import io.github.jakartainbox.billing.order.OrderConfirmed;
import io.github.jakartainbox.inbox.Idempotent;
import jakarta.ejb.MessageDriven;
import jakarta.inject.Inject;
import jakarta.jms.JMSException;
import jakarta.jms.Message;
import jakarta.jms.MessageListener;
import jakarta.jms.TextMessage;

/**
 * Message-driven bean of {@code JmsConsumerIT}, consumer {@code probe-jms-property} on queue
 * {@code it.probe.jms.property}: event ids from JMS property {@code order_event} (test server.xml:
 * {@code event-id.source=jms-property}, {@code event-id.property=order_event}). Creates an invoice.
 */
@MessageDriven(name = "JmsPropertyProbeConsumer")
public class JmsPropertyProbeConsumer implements MessageListener {

    @Inject
    Invoices invoices;

    @Override
    @Idempotent(consumer = "probe-jms-property")
    public void onMessage(Message message) {
        try {
            invoices.create(OrderConfirmed.parse(((TextMessage) message).getText()));
        } catch (JMSException e) {
            throw new IllegalStateException(e);
        }
    }
}
