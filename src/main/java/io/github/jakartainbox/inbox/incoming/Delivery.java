package io.github.jakartainbox.inbox.incoming;

import io.github.jakartainbox.inbox.text.Utf8;
import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.eclipse.microprofile.reactive.messaging.Message;

/**
 * One call of an idempotent method: its payload and, when the method takes a {@code Message<T>}, the message;
 * for a message-driven bean's {@code onMessage(jakarta.jms.Message)}, the JMS message.
 *
 * @param payload      the payload: the message's payload, the method's first argument, or a JMS message's body
 *                     ({@code TextMessage} text, {@code BytesMessage} bytes; {@code null} for other JMS message types)
 * @param message      the message argument, {@code null} when the method takes the payload itself
 * @param messageIndex the index of the message parameter, -1 when there is none
 * @param jms          the {@code jakarta.jms.Message} argument, {@code null} when the method takes none. Typed
 *                     {@code Object} so that this class loads where no Jakarta Messaging API is installed; only
 *                     the {@code jms} package touches it, which also reads its body into {@code payload}
 */
public record Delivery(Object payload, Message<?> message, int messageIndex, Object jms) {

    /** The message parameter's index per method, found once rather than by reflection on every delivery. */
    private static final Map<Method, Integer> MESSAGE_INDEX = new ConcurrentHashMap<>();
    /** The JMS message parameter's index per method (-1: none). */
    private static final Map<Method, Integer> JMS_INDEX = new ConcurrentHashMap<>();

    /** The type of a message-driven bean's message, named so that no Jakarta Messaging class is loaded. */
    public static final String JMS_MESSAGE_TYPE = "jakarta.jms.Message";

    /** A delivery without a JMS message. */
    public Delivery(Object payload, Message<?> message, int messageIndex) {
        this(payload, message, messageIndex, null);
    }

    public static Delivery of(Method method, Object[] arguments) {
        int index = MESSAGE_INDEX.computeIfAbsent(method, Delivery::messageParameterIndex);
        if (index >= 0) {
            Message<?> message = (Message<?>) arguments[index];
            return new Delivery(message == null ? null : message.getPayload(), message, index);
        }
        int jmsIndex = JMS_INDEX.computeIfAbsent(method, Delivery::jmsParameterIndex);
        if (jmsIndex >= 0 && arguments[jmsIndex] != null) {
            Object jms = arguments[jmsIndex];
            return new Delivery(null, null, -1, jms); // its body is read by the jms package's path
        }
        return new Delivery(arguments.length == 0 ? null : arguments[0], null, -1);
    }

    /**
     * The delivery a Reactive Messaging method will see for a message, made before it is delivered (a group's
     * claim, {@link GroupClaims}): the message itself for a method taking a {@code Message}, else its payload as the
     * first parameter.
     *
     * @param method  the channel's method
     * @param message the message
     * @return the delivery
     */
    public static Delivery predicted(Method method, Message<?> message) {
        int index = MESSAGE_INDEX.computeIfAbsent(method, Delivery::messageParameterIndex);
        return index >= 0 ? new Delivery(message.getPayload(), message, index)
                : new Delivery(message.getPayload(), null, -1);
    }

    /**
     * @param method a method
     * @return the index of its first parameter whose type is {@code jakarta.jms.Message} or a subtype, -1 when none;
     *         found by type name, so that no Jakarta Messaging class is loaded for a server without it
     */
    public static int jmsParameterIndex(Method method) {
        Class<?>[] types = method.getParameterTypes();
        for (int i = 0; i < types.length; i++) {
            if (isJmsMessage(types[i])) {
                return i;
            }
        }
        return -1;
    }

    private static boolean isJmsMessage(Class<?> type) {
        if (type == null) {
            return false;
        }
        if (type.getName().equals(JMS_MESSAGE_TYPE)) {
            return true;
        }
        for (Class<?> implemented : type.getInterfaces()) {
            if (isJmsMessage(implemented)) {
                return true;
            }
        }
        return isJmsMessage(type.getSuperclass());
    }

    public static int messageParameterIndex(Method method) {
        Class<?>[] types = method.getParameterTypes();
        for (int i = 0; i < types.length; i++) {
            if (Message.class.isAssignableFrom(types[i])) {
                return i;
            }
        }
        return -1;
    }

    /**
     * @return where the message came from, {@code <topic>-<partition>@<offset>} for a Kafka record (either connector),
     *         so that an operator can find it on the broker; {@code null} for anything else
     */
    public String location() {
        return locationOf(message());
    }

    /**
     * @param message a message, may be {@code null}
     * @return where it came from, {@code <topic>-<partition>@<offset>} for a Kafka record; {@code null} for anything
     *         else
     */
    public static String locationOf(Message<?> message) {
        org.apache.kafka.clients.consumer.ConsumerRecord<?, ?> record = kafkaRecordOf(message);
        return record == null ? null : record.topic() + "-" + record.partition() + "@" + record.offset();
    }

    /**
     * @param message a message, may be {@code null}
     * @return the topic of a Kafka record (either connector); {@code null} for anything else
     */
    public static String topicOf(Message<?> message) {
        org.apache.kafka.clients.consumer.ConsumerRecord<?, ?> record = kafkaRecordOf(message);
        return record == null ? null : record.topic();
    }

    private static org.apache.kafka.clients.consumer.ConsumerRecord<?, ?> kafkaRecordOf(Message<?> message) {
        if (message == null) {
            return null;
        }
        try {
            return message.unwrap(org.apache.kafka.clients.consumer.ConsumerRecord.class);
        } catch (RuntimeException | LinkageError e) {
            return null; // not a Kafka record, or no Kafka client in the application
        }
    }

    /**
     * @param body the payload read from the message (a JMS message's body)
     * @return this delivery with that payload
     */
    public Delivery withPayload(Object body) {
        return new Delivery(body, message, messageIndex, jms);
    }

    /**
     * @return the payload for the dead-letter table as text, {@code null} when it cannot be kept as text byte for
     *         byte (bytes that are not valid UTF-8, or text holding U+0000, which PostgreSQL text cannot store;
     *         see {@link #payloadBytes()})
     */
    public String payloadText() {
        if (payload == null) {
            return null;
        }
        String text = payload instanceof byte[] bytes ? Utf8.decode(bytes) : String.valueOf(payload);
        return text == null || text.indexOf('\0') >= 0 ? null : text;
    }

    /** @return the payload's bytes when {@link #payloadText()} cannot hold it, else {@code null} */
    public byte[] payloadBytes() {
        if (payload == null || payloadText() != null) {
            return null;
        }
        return payload instanceof byte[] bytes ? bytes : String.valueOf(payload).getBytes(StandardCharsets.UTF_8);
    }

    /**
     * @return the SHA-256 of the payload: of its bytes for {@code byte[]}, of its UTF-8 encoding for a
     *         {@code String}, of the UTF-8 of {@code toString()} otherwise (a {@code JsonObject}); {@code null}
     *         for a {@code null} payload
     */
    public byte[] fingerprint() {
        if (payload == null) {
            return null;
        }
        byte[] bytes = payload instanceof byte[] b ? b : String.valueOf(payload).getBytes(StandardCharsets.UTF_8);
        try {
            return MessageDigest.getInstance("SHA-256").digest(bytes);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java platform has SHA-256 (MessageDigest)", e);
        }
    }
}
