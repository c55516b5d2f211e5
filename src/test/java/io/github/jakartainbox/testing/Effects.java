package io.github.jakartainbox.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The guarantee a test proves after restarts, kills and redeliveries: one effect (an invoice) per distinct event,
 * none lost and none twice, and no event dead-lettered.
 */
public final class Effects {

    private Effects() {
    }

    /**
     * @param db       the service's database
     * @param events   the distinct events sent
     * @param orderIds a LIKE pattern of the run's order ids ({@code run-%})
     * @param payloads a LIKE pattern of the run's dead-letter payloads ({@code %run%})
     */
    public static void assertOneInvoicePerEventNoneDeadLettered(Db db, long events, String orderIds, String payloads) {
        assertEquals(events, db.number("SELECT count(*) FROM invoice WHERE order_id LIKE ?", orderIds),
                "exactly one invoice per distinct event: none lost, none duplicated");
        assertEquals(events, db.number("SELECT count(DISTINCT order_id) FROM invoice WHERE order_id LIKE ?", orderIds));
        assertEquals(0, db.number("SELECT count(*) FROM " + Db.DEAD_LETTERS + " WHERE payload LIKE ?", payloads),
                "no event dead-lettered");
    }
}
