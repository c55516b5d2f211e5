package io.github.jakartainbox.inbox.jms;

import io.github.jakartainbox.inbox.InvalidEventIdException;
import io.github.jakartainbox.inbox.incoming.Delivery;
import io.github.jakartainbox.inbox.incoming.KeyedRecord;
import io.github.jakartainbox.inbox.text.Printable;
import jakarta.jms.BytesMessage;
import jakarta.jms.JMSException;
import jakarta.jms.Message;
import jakarta.jms.TextMessage;
import java.lang.reflect.Proxy;
import java.nio.charset.StandardCharsets;
import java.util.AbstractMap;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Enumeration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

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

    /** The header fields a parked message keeps besides its properties; {@code JMSMessageID} is its location. */
    private static final List<String> KEPT_FIELDS = List.of("JMSCorrelationID", "JMSType", "JMSTimestamp",
            "JMSPriority");

    /**
     * The record a message is parked as, for dead-letter order by key: its key is the property {@code property}
     * (a string, or a number or boolean as its text), its location its {@code JMSMessageID}, and it keeps its
     * properties (but {@code JMSXDeliveryCount}) and the header fields {@code JMSCorrelationID}, {@code JMSType},
     * {@code JMSTimestamp}, {@code JMSPriority}, each with its type.
     *
     * @param jms      a {@code jakarta.jms.Message}
     * @param property the message property holding the key
     * @return the record, {@code null} when the message has no such property, or its text is longer than
     *         {@link KeyedRecord#MAX_KEY_CHARS}, or cannot be read: such a message keeps no order. A message without a
     *         {@code JMSMessageID} gets a location of its own, so that no two are taken for one
     */
    public static KeyedRecord keyed(Object jms, String property) {
        Message message = (Message) jms;
        List<Map.Entry<String, byte[]>> headers = new ArrayList<>();
        String key;
        String messageId;
        try {
            key = KeyedRecord.keyText(message.getObjectProperty(property));
            if (key == null) {
                return null;
            }
            messageId = message.getJMSMessageID();
            headers.add(kept("JMSCorrelationID", message.getJMSCorrelationID()));
            headers.add(kept("JMSType", message.getJMSType()));
            headers.add(kept("JMSTimestamp", message.getJMSTimestamp()));
            headers.add(kept("JMSPriority", message.getJMSPriority()));
            for (Enumeration<?> names = message.getPropertyNames(); names.hasMoreElements(); ) {
                String name = String.valueOf(names.nextElement());
                if (!name.equals(DELIVERY_COUNT)) {
                    headers.add(kept(name, message.getObjectProperty(name)));
                }
            }
        } catch (JMSException | RuntimeException e) {
            return null;
        }
        headers.removeIf(header -> header.getValue() == null);
        return KeyedRecord.message(key, messageId != null ? messageId : "(no JMSMessageID) " + UUID.randomUUID(),
                headers);
    }

    /** @return a header or property as stored: a type letter, then the value's text in UTF-8; {@code null} for none */
    private static Map.Entry<String, byte[]> kept(String name, Object value) {
        char type = value instanceof String ? 's' : value instanceof Integer ? 'i' : value instanceof Long ? 'l'
                : value instanceof Boolean ? 'z' : value instanceof Double ? 'd' : value instanceof Float ? 'f'
                : value instanceof Short ? 'h' : value instanceof Byte ? 'b' : 0;
        byte[] stored = type == 0 ? null : (type + String.valueOf(value)).getBytes(StandardCharsets.UTF_8);
        return new AbstractMap.SimpleImmutableEntry<>(name, stored);
    }

    /**
     * @param headers a parked record's headers ({@link #keyed})
     * @return each as its typed value, in their order
     * @throws IllegalArgumentException when one is not of that form
     */
    static Map<String, Object> values(List<Map.Entry<String, byte[]>> headers) {
        Map<String, Object> values = new LinkedHashMap<>();
        for (Map.Entry<String, byte[]> header : headers) {
            byte[] stored = header.getValue();
            if (stored == null || stored.length == 0) {
                continue;
            }
            String text = new String(stored, 1, stored.length - 1, StandardCharsets.UTF_8);
            Object value = switch ((char) stored[0]) {
                case 's' -> text;
                case 'i' -> Integer.valueOf(text);
                case 'l' -> Long.valueOf(text);
                case 'z' -> Boolean.valueOf(text);
                case 'd' -> Double.valueOf(text);
                case 'f' -> Float.valueOf(text);
                case 'h' -> Short.valueOf(text);
                case 'b' -> Byte.valueOf(text);
                default -> throw new IllegalArgumentException("stored JMS property " + header.getKey()
                        + " has no known type: " + (char) stored[0]);
            };
            values.put(header.getKey(), value);
        }
        return values;
    }

    /**
     * A parked message made again for its re-drive: a {@code TextMessage} when its value is text, a
     * {@code BytesMessage} when bytes (readable by {@code getBody}), with its {@code JMSMessageID}, kept header fields
     * and properties; read-only, and {@code JMSRedelivered} false. A method that asks it for anything else (a
     * destination, {@code acknowledge}, a write) gets an {@code UnsupportedOperationException} naming it.
     *
     * @param record the parked record ({@link #keyed})
     * @param value  its value: text, bytes, or {@code null}
     * @return the message
     */
    static Message stored(KeyedRecord record, Object value) {
        Map<String, Object> values = values(record.headers());
        Map<String, Object> properties = new LinkedHashMap<>(values);
        KEPT_FIELDS.forEach(properties::remove);
        boolean bytes = value instanceof byte[];
        Class<?> type = bytes ? BytesMessage.class : TextMessage.class;
        return (Message) Proxy.newProxyInstance(JmsMessages.class.getClassLoader(), new Class<?>[] {type},
                (proxy, method, args) -> switch (method.getName()) {
                    case "getText" -> value instanceof String ? value : null;
                    case "getBody" -> value;
                    case "isBodyAssignableTo" -> value == null || ((Class<?>) args[0]).isInstance(value);
                    case "getBodyLength" -> bytes ? (long) ((byte[]) value).length : 0L;
                    case "getJMSMessageID" -> record.topic();
                    case "getJMSCorrelationID" -> values.get("JMSCorrelationID");
                    case "getJMSType" -> values.get("JMSType");
                    case "getJMSTimestamp" -> values.getOrDefault("JMSTimestamp", 0L);
                    case "getJMSPriority" -> values.getOrDefault("JMSPriority", 4);
                    case "getJMSRedelivered" -> false;
                    case "propertyExists" -> properties.containsKey((String) args[0]);
                    case "getPropertyNames" -> Collections.enumeration(properties.keySet());
                    case "getObjectProperty" -> properties.get((String) args[0]);
                    case "getStringProperty" -> properties.containsKey((String) args[0])
                            ? String.valueOf(properties.get((String) args[0])) : null;
                    case "getIntProperty" -> Integer.valueOf(String.valueOf(properties.get((String) args[0])));
                    case "getLongProperty" -> Long.valueOf(String.valueOf(properties.get((String) args[0])));
                    case "getBooleanProperty" -> Boolean.valueOf(String.valueOf(properties.get((String) args[0])));
                    case "hashCode" -> System.identityHashCode(proxy);
                    case "equals" -> proxy == args[0];
                    case "toString" -> type.getSimpleName() + " " + record.topic() + " (parked)";
                    default -> throw new UnsupportedOperationException(method.getName()
                            + " of a parked JMS message made again for its re-drive");
                });
    }
}
