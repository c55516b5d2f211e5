package io.github.jakartainbox.inbox.incoming;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.AbstractMap.SimpleImmutableEntry;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.eclipse.microprofile.reactive.messaging.Message;
import org.junit.jupiter.api.Test;

/** The key, position and headers a parked record keeps (dead-letter order by key). */
class KeyedRecordTest {

    private static Message<String> of(ConsumerRecord<Object, Object> record) {
        return new Message<>() {
            @Override
            public String getPayload() {
                return String.valueOf(record.value());
            }

            @Override
            public <C> C unwrap(Class<C> type) {
                return type.cast(record);
            }
        };
    }

    @Test
    void aKafkaRecordGivesItsKeyPositionAndHeadersInOrder() {
        ConsumerRecord<Object, Object> record = new ConsumerRecord<>("orders", 3, 42L, "order-7", "{}");
        record.headers().add("b", "2".getBytes(StandardCharsets.UTF_8));
        record.headers().add("a", null);
        record.headers().add("b", "3".getBytes(StandardCharsets.UTF_8));
        KeyedRecord keyed = KeyedRecord.of(of(record));
        assertEquals("order-7", keyed.key());
        assertEquals("orders-3@42", keyed.location());
        assertEquals(List.of("b", "a", "b"), keyed.headers().stream().map(Map.Entry::getKey).toList());
        List<Map.Entry<String, byte[]>> back = KeyedRecord.decode(keyed.encodedHeaders());
        assertEquals(3, back.size());
        assertArrayEquals("2".getBytes(StandardCharsets.UTF_8), back.get(0).getValue());
        assertNull(back.get(1).getValue(), "a null header value stays null");
        assertArrayEquals("3".getBytes(StandardCharsets.UTF_8), back.get(2).getValue());
    }

    @Test
    void aRecordWithoutKeyOrNoKafkaRecordKeepsNoOrder() {
        assertNull(KeyedRecord.of(of(new ConsumerRecord<>("orders", 0, 1L, null, "{}"))), "null key");
        assertNull(KeyedRecord.of(Message.of("{}")), "not a Kafka record");
        assertNull(KeyedRecord.of(null));
        assertNull(KeyedRecord.keyText("k".repeat(KeyedRecord.MAX_KEY_CHARS + 1)), "too long to keep");
    }

    @Test
    void byteKeysAreTextWhenUtf8ElseHex() {
        assertEquals("order-7", KeyedRecord.keyText("order-7".getBytes(StandardCharsets.UTF_8)));
        assertEquals("0xff00", KeyedRecord.keyText(new byte[] {(byte) 0xff, 0}));
        assertEquals("0x0041", KeyedRecord.keyText(new byte[] {0, 0x41}), "U+0000 is no storable text");
        assertEquals("17", KeyedRecord.keyText(17L));
    }

    @Test
    void noHeadersAreStoredAsNullAndUnreadableOnesAreRefused() {
        assertNull(KeyedRecord.encode(List.of()));
        assertTrue(KeyedRecord.decode(null).isEmpty());
        byte[] stored = KeyedRecord.encode(List.of(new SimpleImmutableEntry<>("h", new byte[] {1, 2, 3})));
        byte[] cut = java.util.Arrays.copyOf(stored, stored.length - 1);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> KeyedRecord.decode(cut));
        assertTrue(e.getMessage().contains("not readable"), e.getMessage());
    }
}
