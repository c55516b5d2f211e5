package io.github.jakartainbox.inbox.eventid;

import io.github.jakartainbox.inbox.UnprocessableEventException;
import io.github.jakartainbox.inbox.logging.InboxMessage;
import io.github.jakartainbox.inbox.text.Printable;
import java.time.Instant;
import java.time.LocalDate;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeParseException;
import java.util.regex.Pattern;

/**
 * The month an event belongs to in partitioned mode: the month (UTC) of the event's own time, which is the same
 * on every delivery. Taken from a configured event-time field, else from a UUIDv7 event id (RFC 9562, section
 * 5.7: the first 48 bits are the Unix time in milliseconds). Never from the time of processing: see
 * {@code io/github/jakartainbox/inbox/db/migration-monthly/V100__partition_inbox_by_event_month.sql} for why.
 */
public final class EventMonths {

    private static final Pattern UUID_V7 =
            Pattern.compile("[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}");

    private EventMonths() {
    }

    /**
     * @param normalizedId an event id in normal form ({@link EventIds#normalize}); a UUID is lower case
     * @return the instant a UUIDv7 carries, or {@code null} when the id is not a UUIDv7
     */
    public static Instant uuidV7Time(String normalizedId) {
        if (!UUID_V7.matcher(normalizedId).matches()) {
            return null;
        }
        long millis = Long.parseLong(normalizedId.substring(0, 8) + normalizedId.substring(9, 13), 16);
        return Instant.ofEpochMilli(millis);
    }

    /**
     * @param text an ISO-8601 instant or offset date-time, e.g. {@code 2026-10-31T23:59:59Z}
     * @return the instant
     * @throws UnprocessableEventException when the text is not such a time
     */
    static Instant parseEventTime(String text, String where) {
        try {
            return OffsetDateTime.parse(text).toInstant();
        } catch (DateTimeParseException | NullPointerException e) {
            throw new UnprocessableEventException(InboxMessage.INBOX0233E.format(where,
                    Printable.of(text, 60)));
        }
    }

    /** @return the first day of the instant's month, in UTC */
    public static LocalDate monthOf(Instant time) {
        return time.atOffset(ZoneOffset.UTC).toLocalDate().withDayOfMonth(1);
    }

    /** @return the name of the partition holding a month, e.g. {@code inbox_y2026m11} */
    public static String partitionName(LocalDate month) {
        return String.format("inbox_y%04dm%02d", month.getYear(), month.getMonthValue());
    }

    /**
     * @param name a table name
     * @return the month of a partition named by {@link #partitionName}, {@code null} for any other name
     */
    public static LocalDate monthOfPartition(String name) {
        if (name == null || !name.matches("inbox_y\\d{4}m\\d{2}")) {
            return null;
        }
        return LocalDate.of(Integer.parseInt(name.substring(7, 11)), Integer.parseInt(name.substring(12, 14)), 1);
    }
}
