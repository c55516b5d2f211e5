package io.github.jakartainbox.inbox;

import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;
import org.eclipse.microprofile.reactive.messaging.Message;

/**
 * One call of an idempotent method: its payload and, when the method takes a {@code Message<T>}, the message.
 *
 * @param payload      the payload: the message's payload, or the method's first argument
 * @param message      the message argument, {@code null} when the method takes the payload itself
 * @param messageIndex the index of the message parameter, -1 when there is none
 */
record Delivery(Object payload, Message<?> message, int messageIndex) {

    static Delivery of(Method method, Object[] arguments) {
        int index = messageParameterIndex(method);
        if (index >= 0) {
            Message<?> message = (Message<?>) arguments[index];
            return new Delivery(message == null ? null : message.getPayload(), message, index);
        }
        return new Delivery(arguments.length == 0 ? null : arguments[0], null, -1);
    }

    static int messageParameterIndex(Method method) {
        Class<?>[] types = method.getParameterTypes();
        for (int i = 0; i < types.length; i++) {
            if (Message.class.isAssignableFrom(types[i])) {
                return i;
            }
        }
        return -1;
    }

    /** @return the payload as text for the dead-letter table: UTF-8 for bytes, NUL characters replaced */
    String payloadText() {
        String text;
        if (payload == null) {
            return null;
        } else if (payload instanceof byte[] bytes) {
            text = new String(bytes, StandardCharsets.UTF_8);
        } else {
            text = String.valueOf(payload);
        }
        return Failures.storable(text);
    }
}
