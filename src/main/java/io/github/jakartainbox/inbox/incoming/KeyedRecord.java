package io.github.jakartainbox.inbox.incoming;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.eclipse.microprofile.reactive.messaging.Message;

/**
 * What a Kafka record brings beyond its value that a parked record must keep (dead-letter order by key): its key as
 * text, its position and its headers. A JMS message has no offset: it is kept as a record of partition
 * {@link #MESSAGE_PARTITION} whose topic is its {@code JMSMessageID} ({@link #message}); its place in its sequence is
 * the order in which it was parked.
 *
 * @param key       the record key as text: a {@code String} key itself, a {@code byte[]} key as UTF-8 when it is
 *                  valid UTF-8, else {@code 0x} and its hex digits; any other key its {@code toString()}
 * @param topic     the topic
 * @param partition the partition
 * @param offset    the offset
 * @param headers   the headers in their order, each a name and a value ({@code null} value allowed)
 */
public record KeyedRecord(String key, String topic, int partition, long offset, List<Map.Entry<String, byte[]>> headers) {

    /** The longest key kept: longer keys are refused (the record is handled as one without a key). */
    public static final int MAX_KEY_CHARS = 1000;

    /** The partition of a JMS message's record ({@link #message}): no Kafka partition is negative. */
    public static final int MESSAGE_PARTITION = -1;

    /**
     * @throws NullPointerException when the key, topic or headers are {@code null}
     */
    public KeyedRecord {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(topic, "topic");
        headers = List.copyOf(headers);
    }

    /**
     * @param message a delivered message, may be {@code null}
     * @return its Kafka record's key and position, {@code null} when it is no Kafka record or its key is
     *         {@code null} (or longer than {@link #MAX_KEY_CHARS}): such a record keeps no order
     */
    public static KeyedRecord of(Message<?> message) {
        if (message == null) {
            return null;
        }
        org.apache.kafka.clients.consumer.ConsumerRecord<?, ?> record;
        try {
            record = message.unwrap(org.apache.kafka.clients.consumer.ConsumerRecord.class);
        } catch (RuntimeException | LinkageError e) {
            return null; // not a Kafka record, or no Kafka client in the application
        }
        String key = record == null ? null : keyText(record.key());
        if (key == null) {
            return null;
        }
        List<Map.Entry<String, byte[]>> headers = new ArrayList<>();
        for (org.apache.kafka.common.header.Header header : record.headers()) {
            headers.add(new java.util.AbstractMap.SimpleImmutableEntry<>(header.key(), header.value()));
        }
        return new KeyedRecord(key, record.topic(), record.partition(), record.offset(), headers);
    }

    /**
     * @param key a deserialized record key, may be {@code null}
     * @return it as text, {@code null} for a {@code null} key or one longer than {@link #MAX_KEY_CHARS}
     */
    public static String keyText(Object key) {
        if (key == null) {
            return null;
        }
        String text;
        if (key instanceof byte[] bytes) {
            String utf8 = io.github.jakartainbox.inbox.text.Utf8.decode(bytes);
            text = utf8 != null && utf8.indexOf('\0') < 0 ? utf8 : "0x" + HexFormat.of().formatHex(bytes);
        } else {
            text = String.valueOf(key);
        }
        return text.length() > MAX_KEY_CHARS || text.indexOf('\0') >= 0 ? null : text;
    }

    /**
     * A JMS message's record: no offset, its {@code JMSMessageID} says where it came from and tells a redelivery of
     * the same message from another one.
     *
     * @param key       the message's key as text (see {@link #keyText})
     * @param messageId its {@code JMSMessageID}
     * @param headers   its header fields and properties in their stored form (the {@code jms} package's)
     * @return the record
     * @throws NullPointerException when the key, message id or headers are {@code null}
     */
    public static KeyedRecord message(String key, String messageId, List<Map.Entry<String, byte[]>> headers) {
        return new KeyedRecord(key, Objects.requireNonNull(messageId, "messageId"), MESSAGE_PARTITION, 0, headers);
    }

    /** @return whether it is a JMS message's record ({@link #message}) */
    public boolean isMessage() {
        return partition == MESSAGE_PARTITION;
    }

    /** @return where it came from, {@code <topic>-<partition>@<offset>}; a JMS message's {@code JMSMessageID} */
    public String location() {
        return isMessage() ? topic : topic + "-" + partition + "@" + offset;
    }

    /** @return the headers as stored: a count, then each name (modified UTF-8) and value (length, -1 for null) */
    public byte[] encodedHeaders() {
        return encode(headers);
    }

    /**
     * @param headers headers in their order
     * @return their stored form, {@code null} when there are none
     */
    public static byte[] encode(List<Map.Entry<String, byte[]>> headers) {
        if (headers.isEmpty()) {
            return null;
        }
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            out.writeInt(headers.size());
            for (Map.Entry<String, byte[]> header : headers) {
                out.writeUTF(header.getKey());
                byte[] value = header.getValue();
                out.writeInt(value == null ? -1 : value.length);
                if (value != null) {
                    out.write(value);
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e); // never: the stream is in memory
        }
        return bytes.toByteArray();
    }

    /**
     * @param stored the stored form of {@link #encode}, {@code null} for none
     * @return the headers in their order
     * @throws IllegalArgumentException when the bytes are not of that form
     */
    public static List<Map.Entry<String, byte[]>> decode(byte[] stored) {
        List<Map.Entry<String, byte[]>> headers = new ArrayList<>();
        if (stored == null) {
            return headers;
        }
        try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(stored))) {
            int count = in.readInt();
            for (int i = 0; i < count; i++) {
                String name = in.readUTF();
                int length = in.readInt();
                byte[] value = length < 0 ? null : in.readNBytes(length);
                if (value != null && value.length != length) {
                    throw new IOException("header " + name + " ends early");
                }
                headers.add(new java.util.AbstractMap.SimpleImmutableEntry<>(name, value));
            }
            if (in.read() != -1) {
                throw new IOException("bytes after " + count + " headers");
            }
        } catch (IOException e) {
            throw new IllegalArgumentException("stored headers are not readable: " + e.getMessage(), e);
        }
        return headers;
    }
}
