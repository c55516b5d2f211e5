package io.github.jakartainbox.inbox.jms;

import io.github.jakartainbox.inbox.InvalidEventIdException;
import io.github.jakartainbox.inbox.incoming.Delivery;
import io.github.jakartainbox.inbox.text.Printable;
import jakarta.jms.BytesMessage;
import jakarta.jms.JMSException;
import jakarta.jms.Message;
import jakarta.jms.TextMessage;

/**
 * The only class of the inbox that uses Jakarta Messaging types: every other class hands it the JMS message as an
 * {@code Object}, so the library loads on a server without a messaging feature, and this class is loaded only
 * when a message-driven bean's delivery arrives.
 */
public final class JmsMessages {

    /** The name of the JMS message interface, compared by name by {@link Delivery#jmsParameterIndex}. */
    public static final String MESSAGE_TYPE = Delivery.JMS_MESSAGE_TYPE;

    /** The JMS-defined property counting deliveries (Jakarta Messaging 3.1, section 3.5.11), 1 on the first. */
    static final String DELIVERY_COUNT = "JMSXDeliveryCount";

    private JmsMessages() {
    }

    /**
     * @param delivery a delivery to a message-driven bean
     * @return the delivery with its JMS message's body as the payload ({@link #body})
     */
    public static Delivery withBody(Delivery delivery) {
        return delivery.jms() == null ? delivery : delivery.withPayload(body(delivery.jms()));
    }

    /**
     * @param jms a {@code jakarta.jms.Message}
     * @return its body: the text of a {@code TextMessage}, the bytes of a {@code BytesMessage}; {@code null} for
     *         other message types, an empty body, or a body that cannot be read
     */
    public static Object body(Object jms) {
        try {
            if (jms instanceof TextMessage text) {
                return text.getText();
            }
            if (jms instanceof BytesMessage bytes) {
                return bytes.getBody(byte[].class);
            }
        } catch (JMSException | RuntimeException e) {
            return null;
        }
        return null;
    }

    /**
     * @param jms a {@code jakarta.jms.Message}
     * @return its {@code JMSMessageID}, {@code null} when it has none
     * @throws InvalidEventIdException when the provider cannot read it
     */
    static String messageId(Object jms) {
        try {
            return ((Message) jms).getJMSMessageID();
        } catch (JMSException e) {
            throw new InvalidEventIdException(JmsMessage.INBOX0703E.format("JMSMessageID",
                    Printable.of(String.valueOf(e), 200)));
        }
    }

    /**
     * @param jms  a {@code jakarta.jms.Message}
     * @param name a message property name
     * @return the property's value, {@code null} when the message does not have it
     * @throws InvalidEventIdException when the property holds something other than a string, or cannot be read
     */
    static String stringProperty(Object jms, String name) {
        Object value;
        try {
            value = ((Message) jms).getObjectProperty(name);
        } catch (JMSException | RuntimeException e) {
            throw new InvalidEventIdException(JmsMessage.INBOX0703E.format("JMS property '" + name + "'",
                    Printable.of(String.valueOf(e), 200)));
        }
        if (value == null || value instanceof String) {
            return (String) value;
        }
        throw new InvalidEventIdException(JmsMessage.INBOX0702E.format(name,
                value.getClass().getSimpleName()));
    }

    /**
     * @param jms a {@code jakarta.jms.Message}
     * @return {@code JMSXDeliveryCount} (1 on the first delivery); when the provider does not set it, 2 for a message
     *         marked {@code JMSRedelivered}, else 1
     */
    static int deliveryCount(Object jms) {
        Message message = (Message) jms;
        try {
            if (message.propertyExists(DELIVERY_COUNT)) {
                return Math.max(1, message.getIntProperty(DELIVERY_COUNT));
            }
            return message.getJMSRedelivered() ? 2 : 1;
        } catch (JMSException | RuntimeException e) {
            return 1;
        }
    }

    /**
     * @param jms a {@code jakarta.jms.Message}
     * @return whether the provider marks it as delivered before ({@code JMSRedelivered})
     */
    static boolean redelivered(Object jms) {
        try {
            return ((Message) jms).getJMSRedelivered();
        } catch (JMSException e) {
            return false;
        }
    }

    /**
     * @param jms a {@code jakarta.jms.Message}
     * @return its type for texts: {@code TextMessage}, {@code MapMessage}, ...
     */
    static String type(Object jms) {
        for (Class<?> implemented : jms.getClass().getInterfaces()) {
            if (implemented.getName().startsWith("jakarta.jms.")) {
                return implemented.getSimpleName();
            }
        }
        return jms.getClass().getSimpleName();
    }
}
