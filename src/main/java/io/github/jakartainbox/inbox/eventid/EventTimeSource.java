package io.github.jakartainbox.inbox.eventid;

import io.github.jakartainbox.inbox.UnprocessableEventException;
import io.github.jakartainbox.inbox.incoming.Delivery;
import io.github.jakartainbox.inbox.logging.InboxMessage;
import java.time.Instant;
import java.time.LocalDate;

/**
 * Where a consumer finds the event's own time, in partitioned mode: a top-level JSON field
 * ({@code inbox.consumer.<consumer>.event-time.field}) when configured, else the UUIDv7 event id.
 */
public final class EventTimeSource {

    private final PayloadFieldEventIdSource field;

    /** @param fieldName the JSON field holding the event time, {@code null} to use UUIDv7 event ids */
    public EventTimeSource(String fieldName) {
        this.field = fieldName == null ? null : new PayloadFieldEventIdSource(fieldName);
    }

    /**
     * @param delivery the delivery
     * @param eventId  its normalized event id
     * @return the first day of the event's month (UTC)
     * @throws UnprocessableEventException when the event carries no usable time
     */
    public LocalDate month(Delivery delivery, String eventId) {
        Instant time;
        if (field != null) {
            String text = field.rawEventId(delivery);
            if (text == null) {
                throw new UnprocessableEventException(InboxMessage.INBOX0230E.format(field.where()));
            }
            time = EventMonths.parseEventTime(text, field.where());
        } else {
            time = EventMonths.uuidV7Time(eventId);
            if (time == null) {
                throw new UnprocessableEventException(InboxMessage.INBOX0231E.format(eventId));
            }
        }
        return EventMonths.monthOf(time);
    }
}
