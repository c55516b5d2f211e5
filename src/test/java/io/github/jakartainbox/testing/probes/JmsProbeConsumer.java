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
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * Message-driven bean of {@code JmsConsumerIT}, consumer {@code probe-jms} on queue {@code it.probe.jms} (test
 * server.xml; event id from the JSON body, 3 attempts). Creates an invoice through the billing service, records each
 * call, and obeys two JMS properties: {@code probe_fail} (int: throw after creating the invoice while
 * {@code JMSXDeliveryCount} is at most this) and {@code probe_hold_ms} (wait this long inside the transaction before
 * failing or returning).
 */
@MessageDriven(name = "JmsProbeConsumer")
public class JmsProbeConsumer implements MessageListener {

    /** One call of the method body. */
    public record Call(String orderId, int deliveryCount, boolean redelivered, String messageId) {
    }

    /** Per order id: every call of the body, in order. */
    public static final Map<String, List<Call>> CALLS = new ConcurrentHashMap<>();

    @Inject
    Invoices invoices;

    @Override
    @Idempotent(consumer = "probe-jms")
    public void onMessage(Message message) {
        try {
            OrderConfirmed order = OrderConfirmed.parse(((TextMessage) message).getText());
            int delivery = message.getIntProperty("JMSXDeliveryCount");
            CALLS.computeIfAbsent(order.orderId(), k -> new CopyOnWriteArrayList<>())
                    .add(new Call(order.orderId(), delivery, message.getJMSRedelivered(), message.getJMSMessageID()));
            invoices.create(order);
            if (message.propertyExists("probe_hold_ms")) {
                Thread.sleep(message.getLongProperty("probe_hold_ms"));
            }
            if (message.propertyExists("probe_fail") && delivery <= message.getIntProperty("probe_fail")) {
                throw new IllegalStateException("injected probe failure on delivery " + delivery);
            }
        } catch (JMSException e) {
            throw new IllegalStateException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
