package io.github.jakartainbox.billing.order;

import jakarta.annotation.Resource;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.jms.ConnectionFactory;
import jakarta.jms.JMSContext;
import jakarta.jms.JMSRuntimeException;
import jakarta.jms.Queue;
import jakarta.jms.TextMessage;

/**
 * Sends order events to the JMS queue {@code orders.confirmed} of the embedded messaging engine (connection factory
 * {@code jms/billing}, queue {@code jms/orders.confirmed} in server.xml): the REST entry point for a test order and
 * the re-drive of {@code billing-jms} dead letters.
 */
@ApplicationScoped
public class JmsOrders {

    /** The JMS property the event id is copied to, besides the body (source {@code jms-property} reads it). */
    public static final String EVENT_ID_PROPERTY = "event_id";

    @Resource(lookup = "jms/billing")
    ConnectionFactory connections;

    @Resource(lookup = "jms/orders.confirmed")
    Queue queue;

    /**
     * Sends one persistent {@code TextMessage}, committed when this returns (outside a JTA transaction the
     * context is not transacted; inside one the send commits with it).
     *
     * @param json    the event's JSON text, sent as it is
     * @param eventId the event id to set as string property {@code event_id}, {@code null} for none
     * @return the message's {@code JMSMessageID}
     * @throws JMSRuntimeException when the messaging engine refuses the send
     */
    public String send(String json, String eventId) {
        try (JMSContext context = connections.createContext()) {
            TextMessage message = context.createTextMessage(json);
            if (eventId != null) {
                message.setStringProperty(EVENT_ID_PROPERTY, eventId);
            }
            context.createProducer().send(queue, message);
            return message.getJMSMessageID();
        } catch (jakarta.jms.JMSException e) {
            throw new JMSRuntimeException(e.getMessage(), e.getErrorCode(), e);
        }
    }

    /** @return the queue's name, for texts */
    public String queueName() {
        try {
            return queue.getQueueName();
        } catch (jakarta.jms.JMSException e) {
            return "jms/orders.confirmed";
        }
    }
}
