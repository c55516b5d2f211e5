package io.github.jakartainbox.inbox.eventid;

import io.github.jakartainbox.inbox.UnprocessableEventException;
import io.github.jakartainbox.inbox.retention.InboxPurge;
import io.github.jakartainbox.testing.UuidV7;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.util.List;
import org.junit.jupiter.api.Test;

class EventMonthsTest {

    @Test
    void uuidV7CarriesItsMillisecondTime() {
        Instant t = Instant.parse("2026-10-31T23:59:59.123Z");
        assertEquals(t, EventMonths.uuidV7Time(UuidV7.at(t)));
        assertNull(EventMonths.uuidV7Time("3f2504e0-4f89-41d3-9a0c-0305e82c3301"), "a UUIDv4 has no time");
        assertNull(EventMonths.uuidV7Time("order-42"));
    }

    @Test
    void theMonthIsTheEventsNotTheProcessingTime() {
        String id = UuidV7.at(Instant.parse("2026-10-31T23:59:59Z"));
        // delivered once just before midnight and again just after: the event's month does not move
        assertEquals(LocalDate.of(2026, 10, 1), EventMonths.monthOf(EventMonths.uuidV7Time(id)));
        assertEquals(LocalDate.of(2026, 11, 1), EventMonths.monthOf(Instant.parse("2026-11-01T00:00:01Z")),
                "what a processing-time key would have used instead");
    }

    @Test
    void eventTimeFieldIsIso8601WithOffset() {
        assertEquals(Instant.parse("2026-10-31T22:59:59Z"),
                EventMonths.parseEventTime("2026-10-31T23:59:59+01:00", "JSON field 'occurred_at'"));
        assertThrows(UnprocessableEventException.class,
                () -> EventMonths.parseEventTime("31/10/2026", "JSON field 'occurred_at'"));
    }

    @Test
    void partitionNamesRoundTrip() {
        assertEquals("inbox_y2026m03", EventMonths.partitionName(LocalDate.of(2026, 3, 1)));
        assertEquals(LocalDate.of(2026, 3, 1), EventMonths.monthOfPartition("inbox_y2026m03"));
        assertNull(EventMonths.monthOfPartition("inbox_default"));
    }

    @Test
    void monthsAheadAreCreatedAndMonthsPastTheRetentionDropped() {
        Instant now = Instant.parse("2026-11-29T12:00:00Z");
        List<LocalDate> existing = List.of(LocalDate.of(2026, 9, 1), LocalDate.of(2026, 10, 1),
                LocalDate.of(2026, 11, 1));
        assertEquals(List.of(LocalDate.of(2026, 12, 1), LocalDate.of(2027, 1, 1)),
                InboxPurge.monthsToCreate(existing, now, 2));
        // now - 14 days is in November: September and October ended before it
        assertEquals(List.of(LocalDate.of(2026, 9, 1), LocalDate.of(2026, 10, 1)),
                InboxPurge.monthsToDrop(existing, now, Duration.ofDays(14)));
        // now - 40 days is in October: October is kept, its last events are younger than 40 days
        assertEquals(List.of(LocalDate.of(2026, 9, 1)), InboxPurge.monthsToDrop(existing, now, Duration.ofDays(40)));
    }
}
