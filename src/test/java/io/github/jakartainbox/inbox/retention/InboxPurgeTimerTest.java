package io.github.jakartainbox.inbox.retention;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import jakarta.ejb.ScheduleExpression;
import org.junit.jupiter.api.Test;

class InboxPurgeTimerTest {

    @Test
    void sixFieldScheduleBecomesACalendarExpression() {
        ScheduleExpression e = InboxPurgeTimer.parse("0 */5 * * * *");
        assertEquals("0", e.getSecond());
        assertEquals("*/5", e.getMinute());
        assertEquals("*", e.getHour());
        assertEquals("*", e.getDayOfWeek());
    }

    @Test
    void otherShapesAreRejectedNamingTheKey() {
        IllegalStateException e = assertThrows(IllegalStateException.class,
                () -> InboxPurgeTimer.parse("every 5 minutes"));
        assertTrue(e.getMessage().startsWith("INBOX0004E: Configuration key inbox.purge.schedule"), e.getMessage());
    }
}
