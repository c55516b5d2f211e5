package io.github.jakartainbox.billing.invoice;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.jakartainbox.inbox.UnprocessableEventException;
import java.nio.charset.StandardCharsets;
import java.util.UUID;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The {@code invoices.issued} event id is read only in the spelling the inbox compares as a UUID: every other
 * spelling that {@code UUID.fromString} also reads was a new event to the inbox and the same Message-ID to the mailer,
 * so a mailed invoice could be mailed again by each.
 */
class InvoiceIssuedTest {

    private static final String ID = "01a25166-5b2c-73c8-a45f-0c4057b38085";

    private static InvoiceIssued parse(String eventId) {
        return InvoiceIssued.parse(("{\"event_id\":\"" + eventId + "\",\"invoice_id\":51,\"order_id\":\"o-1\","
                + "\"customer_email\":\"a@example.com\",\"amount\":\"129.90\",\"currency\":\"EUR\"}")
                .getBytes(StandardCharsets.UTF_8));
    }

    @ParameterizedTest
    @ValueSource(strings = {ID, "01A25166-5B2C-73C8-A45F-0C4057B38085"})
    void theCanonicalFormInEitherCaseIsOneEvent(String eventId) {
        assertEquals(UUID.fromString(ID), parse(eventId).eventId());
    }

    @ParameterizedTest
    @ValueSource(strings = {"1a25166-5b2c-73c8-a45f-0c4057b38085", "+1a25166-5b2c-73c8-a45f-0c4057b38085",
            "1a25166-5b2c-73c8-a45f-c4057b38085", "1A25166-5b2c-73c8-a45f-0c4057b38085",
            "01a25166-5b2c-73c8-a45f-0c4057b380850", "01a25166_5b2c_73c8_a45f_0c4057b38085"})
    void anyOtherSpellingIsRefusedNamingTheField(String eventId) {
        UnprocessableEventException e = assertThrows(UnprocessableEventException.class, () -> parse(eventId));
        assertTrue(e.getMessage().startsWith("BILLING0312E") && e.getMessage().contains("event_id"), e.getMessage());
    }

    /** The order id the mail shows: an invoice stored before the contract refused invisible characters is not mailed. */
    @ParameterizedTest
    @ValueSource(strings = {"\u200D", "A\u200DB", "\uFEFFo-1", "o-1\u2060", "\u00A0"})
    void anOrderIdWithInvisibleCharactersIsRefusedNamingTheField(String orderId) {
        UnprocessableEventException e = assertThrows(UnprocessableEventException.class, () -> parseOrder(orderId));
        assertTrue(e.getMessage().startsWith("BILLING0301E: field 'order_id' holds "), e.getMessage());
    }

    private static InvoiceIssued parseOrder(String orderId) {
        return InvoiceIssued.parse(("{\"event_id\":\"" + ID + "\",\"invoice_id\":51,\"order_id\":\"" + orderId
                + "\",\"customer_email\":\"a@example.com\",\"amount\":\"129.90\",\"currency\":\"EUR\"}")
                .getBytes(StandardCharsets.UTF_8));
    }

    /** A bidirectional control is named as such (BILLING0120E), though it is shown as nothing too. */
    @ParameterizedTest
    @ValueSource(strings = {"o\u202E1", "\u200Eo", "o\u2028"})
    void aBidirectionalControlOrLineSeparatorInTheOrderIdKeepsItsOwnReason(String orderId) {
        UnprocessableEventException e = assertThrows(UnprocessableEventException.class, () -> parseOrder(orderId));
        assertTrue(e.getMessage().startsWith("BILLING0120E: field 'order_id' holds "), e.getMessage());
    }
}
