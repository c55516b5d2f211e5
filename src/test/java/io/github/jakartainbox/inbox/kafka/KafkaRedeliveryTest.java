package io.github.jakartainbox.inbox.kafka;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;
import org.eclipse.microprofile.reactive.messaging.Message;
import org.junit.jupiter.api.Test;

/** A stored record's value given to the consumer's method in the type it declares ({@link KafkaRedelivery}). */
class KafkaRedeliveryTest {

    @SuppressWarnings("unused")
    static class Consumers {
        void bytesMessage(Message<byte[]> message) {
        }

        void bytes(byte[] payload) {
        }

        void textMessage(Message<String> message) {
        }

        void text(String payload) {
        }

        void anyMessage(Message<?> message) {
        }
    }

    private static Method method(String name) {
        for (Method m : Consumers.class.getDeclaredMethods()) {
            if (m.getName().equals(name)) {
                return m;
            }
        }
        throw new IllegalArgumentException(name);
    }

    @Test
    void textStoredForAByteArrayChannelGoesBackAsItsBytes() {
        String json = "{\"event_id\":\"e-1\",\"note\":\"é\"}";

        assertArrayEquals(json.getBytes(StandardCharsets.UTF_8),
                (byte[]) KafkaRedelivery.asDeclared(method("bytesMessage"), json));
        assertArrayEquals(json.getBytes(StandardCharsets.UTF_8),
                (byte[]) KafkaRedelivery.asDeclared(method("bytes"), json));
    }

    @Test
    void otherValuesGoAsStored() {
        String json = "{}";
        byte[] notUtf8 = {(byte) 0xff, 0x01};

        assertSame(json, KafkaRedelivery.asDeclared(method("textMessage"), json));
        assertSame(json, KafkaRedelivery.asDeclared(method("text"), json));
        assertSame(json, KafkaRedelivery.asDeclared(method("anyMessage"), json));
        assertSame(notUtf8, KafkaRedelivery.asDeclared(method("bytesMessage"), notUtf8));
        assertSame(null, KafkaRedelivery.asDeclared(method("bytes"), null));
    }
}
