package io.github.jakartainbox.inbox.eventid;

import io.github.jakartainbox.inbox.InvalidEventIdException;
import io.github.jakartainbox.inbox.incoming.Delivery;
import io.github.jakartainbox.inbox.logging.InboxMessage;
import io.github.jakartainbox.inbox.text.Printable;
import io.github.jakartainbox.inbox.text.Utf8;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.Header;

/**
 * The event id is the UTF-8 value of a Kafka record header (the last one of that name). Needs a method that
 * takes {@code Message<T>}: the record is reached with {@code message.unwrap(ConsumerRecord.class)}, which
 * Open Liberty's {@code liberty-kafka} connector supports.
 */
public final class KafkaHeaderEventIdSource implements EventIdSource {

    private final String header;

    public KafkaHeaderEventIdSource(String header) {
        this.header = header;
    }

    @Override
    public String rawEventId(Delivery delivery) {
        if (delivery.message() == null) {
            throw new InvalidEventIdException(InboxMessage.INBOX0217E.format(where()));
        }
        ConsumerRecord<?, ?> record;
        try {
            record = delivery.message().unwrap(ConsumerRecord.class);
        } catch (RuntimeException e) {
            throw new InvalidEventIdException(InboxMessage.INBOX0218E.format(where(),
                    Printable.of(e.getMessage(), 200)));
        }
        Header value = record.headers().lastHeader(header);
        if (value == null || value.value() == null) {
            return null;
        }
        String text = Utf8.decode(value.value());
        if (text == null) {
            throw new InvalidEventIdException(InboxMessage.INBOX0219E.format(where()));
        }
        return text;
    }

    @Override
    public boolean needsMessage() {
        return true;
    }

    @Override
    public String where() {
        return "Kafka header '" + header + "'";
    }
}
