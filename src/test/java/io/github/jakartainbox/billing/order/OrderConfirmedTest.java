package io.github.jakartainbox.billing.order;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.jakartainbox.inbox.UnprocessableEventException;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class OrderConfirmedTest {

    @Test
    void parsesTheDocumentedFormat() {
        OrderConfirmed o = OrderConfirmed.parse("{\"event_id\":\"e\",\"order_id\":\"o-1\",\"customer_email\":"
                + "\"a@example.com\",\"amount\":\"129.90\",\"currency\":\"EUR\"}");
        assertEquals(new OrderConfirmed("e", "o-1", "a@example.com", new BigDecimal("129.90"), "EUR"), o);
    }

    @Test
    void rejectsBadFieldsNamingThem() {
        String base = "{\"event_id\":\"e\",\"order_id\":\"o\",\"customer_email\":\"a@example.com\",";
        assertMessage("amount must be a decimal string", base + "\"amount\":\"abc\",\"currency\":\"EUR\"}");
        assertMessage("field 'amount' must be a non-empty JSON string", base + "\"amount\":12.5,\"currency\":\"EUR\"}");
        assertMessage("amount must be a decimal string of ASCII digits", base + "\"amount\":\"-1\",\"currency\":\"EUR\"}");
        assertMessage("amount must be a decimal string of ASCII digits", base + "\"amount\":\"1.001\",\"currency\":\"EUR\"}");
        assertMessage("not an ISO 4217 currency code", base + "\"amount\":\"1.00\",\"currency\":\"XYZ1\"}");
        assertMessage("not valid JSON", "{\"event_id\":");
        assertMessage("not an ISO 4217 currency code", base + "\"amount\":\"1.00\",\"currency\":\"XXX\"}");
        // codes the JDK knows that ISO 4217 withdrew: no money to invoice in
        assertMessage("BILLING0305E: currency DEM was withdrawn from ISO 4217 in 2002",
                base + "\"amount\":\"1.00\",\"currency\":\"DEM\"}");
        for (String code : new String[] {"ZWD", "VEF", "HRK", "ITL", "BYR", "MRO", "STD", "LTL"}) {
            assertMessage("BILLING0305E: currency " + code + " was withdrawn",
                    base + "\"amount\":\"1.00\",\"currency\":\"" + code + "\"}");
        }
        for (String code : new String[] {"EUR", "BYN", "MRU", "STN", "VES", "ZWG", "JPY", "CHF"}) {
            assertEquals(code, OrderConfirmed.parse(base + "\"amount\":\"1\",\"currency\":\"" + code + "\"}")
                    .currency(), "their successors and current codes are money");
        }
        String valid = base + "\"amount\":\"1.00\",\"currency\":\"EUR\"}";
        assertMessage("not valid JSON", valid + " }}} this is not json");
        assertMessage("not valid JSON", valid + "{\"event_id\":\"other\"}");
        assertMessage("not valid JSON", valid + "\u0000");
        assertMessage("field 'customer_email' holds control character U+000A at index 1: 'x\\u000A[ERROR] forged'", base.replace("a@example.com", "x\\n[ERROR] forged")
                + "\"amount\":\"1.00\",\"currency\":\"EUR\"}");
        assertMessage("not a JSON object", "[1]");
        assertMessage("value is empty", "");
        assertMessage("amount must be a decimal string of ASCII digits", base + "\"amount\":\"1e999999999\",\"currency\":\"EUR\"}");
        assertMessage("nested deeper than 64 levels", base + "\"x\":" + "[".repeat(5000) + "]".repeat(5000) + "}");
    }

    @Test
    void valuesAreCheckedAsBytesFirst() {
        assertBytesMessage("value is empty (0 bytes)", new byte[0]);
        assertBytesMessage("value is empty (a tombstone", null);
        byte[] big = ("{\"event_id\":\"e\",\"pad\":\"" + "x".repeat(5 * 1024 * 1024) + "\"}").getBytes(StandardCharsets.UTF_8);
        assertBytesMessage("more than the 65536", big);
        // the same limit for text (a JMS TextMessage): counted in UTF-8 bytes, not characters
        assertMessage("more than the 65536", new String(big, StandardCharsets.UTF_8));
        String valid = order("o-1", "a@example.com", "1.00");
        String padded = valid.substring(0, valid.length() - 1) + ",\"pad\":\"" + "\u00e9".repeat(33_000) + "\"}";
        assertMessage("more than the 65536", padded); // 33,000 characters, 66,000 bytes
        byte[] latin1 = "{\"event_id\":\"e\",\"customer_email\":\"j\u00f6rg@example.com\"}".getBytes(StandardCharsets.ISO_8859_1);
        assertBytesMessage("not valid UTF-8", latin1);
        // valid UTF-8 is read as such, then the address is refused: internationalized addresses are not supported
        assertBytesMessage("BILLING0113E: customer_email 'j\u00f6rg@example.com' holds non-ASCII character U+00F6",
                order("o-1", "j\u00f6rg@example.com", "1.00").getBytes(StandardCharsets.UTF_8));
    }

    private static String order(String orderId, String email, String amount) {
        return "{\"event_id\":\"e\",\"order_id\":\"" + orderId + "\",\"customer_email\":\"" + email
                + "\",\"amount\":\"" + amount + "\",\"currency\":\"EUR\"}";
    }

    /** ISO 4217 minor units: JPY and KRW have none, so "5.55" JPY is refused. */
    @Test
    void anAmountHasNoMoreDecimalsThanItsCurrency() {
        String base = "{\"event_id\":\"e\",\"order_id\":\"o\",\"customer_email\":\"a@example.com\",";
        assertMessage("amount 5.55 has 2 decimal(s), but currency JPY has 0",
                base + "\"amount\":\"5.55\",\"currency\":\"JPY\"}");
        assertMessage("currency KRW has 0", base + "\"amount\":\"1000.5\",\"currency\":\"KRW\"}");
        assertEquals(new BigDecimal("5.00"),
                OrderConfirmed.parse(base + "\"amount\":\"5.00\",\"currency\":\"JPY\"}").amount(),
                "zeros after the point are no subdivision");
        assertEquals(new BigDecimal("1200.00"),
                OrderConfirmed.parse(base + "\"amount\":\"1200\",\"currency\":\"JPY\"}").amount());
        assertEquals(new BigDecimal("5.55"),
                OrderConfirmed.parse(base + "\"amount\":\"5.55\",\"currency\":\"BHD\"}").amount(),
                "three minor units: two decimals are an amount");
    }

    @Test
    void anAmountIsExactlyAPlainAsciiDecimalWithAtMostTwoDecimals() {
        for (String amount : new String[] {"1e3", "1E3", "+5.00", "-5.00", "\u0661\u0662.00", "\uff15.00", "5.", ".50",
                " 5.00", "5.00 ", "5.000", "0x10", "1_000.00", "5,00", "NaN", "Infinity", "12345678901.00"}) {
            assertMessage("amount", order("o", "a@example.com", amount));
        }
        assertMessage("must be positive", order("o", "a@example.com", "0.00"));
        assertMessage("at most 10 integer digits", order("o", "a@example.com", "12345678901"));
        assertEquals(new BigDecimal("129.90"), OrderConfirmed.parse(order("o", "a@example.com", "0129.9")).amount());
        assertEquals(new BigDecimal("9999999999.99"),
                OrderConfirmed.parse(order("o", "a@example.com", "9999999999.99")).amount());
        assertEquals(new BigDecimal("7.00"), OrderConfirmed.parse(order("o", "a@example.com", "7")).amount());
    }

    @Test
    void everyTextFieldHasItsDocumentedLimitAndNoControlCharacters() {
        assertMessage("field 'order_id' has 201 characters, more than the 200",
                order("x".repeat(201), "a@example.com", "1.00"));
        assertEquals(200, OrderConfirmed.parse(order("\u00e9".repeat(200), "a@example.com", "1.00")).orderId().length());
        assertMessage("field 'customer_email' has 255 characters, more than the 254",
                order("o", "a@example.com" + "x".repeat(242), "1.00"));
        assertMessage("field 'customer_email' holds control character U+0000 at index 1, which PostgreSQL text cannot store",
                order("o", "a\\u0000b@example.test", "1.00"));
        assertMessage("field 'order_id' holds control character U+0009", order("o\\tp", "a@example.com", "1.00"));
        assertMessage("field 'order_id' holds control character U+0085", order("o\u0085", "a@example.com", "1.00"));
        assertMessage("field 'event_id' has 256 characters", order("o", "a@example.com", "1.00")
                .replace("\"event_id\":\"e\"", "\"event_id\":\"" + "e".repeat(256) + "\""));
        assertMessage("unpaired surrogate", order("o\\ud800", "a@example.com", "1.00"));
        assertMessage("not an ISO 4217 currency code", order("o", "a@example.com", "1.00").replace("EUR", "eur"));
    }

    /** Text that would be shown reordered or broken in the mail and the PDF is refused, as control characters are. */
    @Test
    void bidirectionalControlsAndLineSeparatorsAreRefused() {
        for (char c : new char[] {'\u202A', '\u202B', '\u202C', '\u202D', '\u202E', '\u2066', '\u2067', '\u2068',
                '\u2069', '\u200E', '\u200F', '\u061C'}) {
            assertMessage(String.format("BILLING0120E: field 'order_id' holds bidirectional control U+%04X at index 3",
                    (int) c), order("ord" + c + "fdp.exe", "a@example.com", "1.00"));
        }
        assertMessage("BILLING0120E: field 'order_id' holds line separator U+2028 at index 1, which would reorder or "
                + "break the text of the invoice mail and PDF: 'o\\u2028Bcc'", order("o\u2028Bcc", "a@example.com", "1.00"));
        assertMessage("BILLING0120E: field 'order_id' holds paragraph separator U+2029 at index 0",
                order("\u2029o", "a@example.com", "1.00"));
        assertMessage("BILLING0120E: field 'event_id' holds bidirectional control U+202E",
                order("o", "a@example.com", "1.00").replace("\"event_id\":\"e\"", "\"event_id\":\"e\u202E\""));
        // right-to-left text itself is no control: an Arabic or Hebrew order id is kept as it is
        assertEquals("\u05D4\u05D6\u05DE\u05E0\u05D4-7", OrderConfirmed.parse(order("\u05D4\u05D6\u05DE\u05E0\u05D4-7",
                "a@example.com", "1.00")).orderId());
    }

    /**
     * An order id with a character shown as nothing (Unicode's default-ignorable code points) or of blanks only was
     * accepted: the mail subject showed "" or "AB" where the PDF showed "[U+200D]" or "A[U+200D]B", so two order ids
     * looked the same to the customer.
     */
    @Test
    void anOrderIdWithInvisibleCharactersOrNothingVisibleIsRefused() {
        assertMessage("BILLING0301E: field 'order_id' holds invisible character U+200D at index 0",
                order("\u200D", "a@example.com", "1.00"));
        assertMessage("BILLING0301E: field 'order_id' holds invisible character U+200D at index 1",
                order("A\u200DB", "a@example.com", "1.00"));
        for (int cp : new int[] {0x00AD, 0x034F, 0x115F, 0x17B4, 0x180B, 0x180E, 0x200B, 0x200C, 0x200D, 0x2060,
                0x2064, 0x2065, 0x206F, 0x3164, 0xFE00, 0xFE0F, 0xFEFF, 0xFFA0, 0xFFF0, 0x1BCA0, 0x1D173, 0xE0001,
                0xE0100, 0xE0FFF}) {
            assertMessage(String.format("BILLING0301E: field 'order_id' holds invisible character U+%04X at index 1",
                    cp), order("o" + Character.toString(cp) + "1", "a@example.com", "1.00"));
        }
        // what Java's isBlank leaves: no-break and other fixed-width spaces, the braille blank
        for (String blanks : new String[] {"\u00A0", "\u2007\u202F", "\u3000\u00A0", "\u2800", "\u202F"}) {
            assertMessage("BILLING0301E: field 'order_id' holds only blanks, the first U+", order(blanks, "a@example.com",
                    "1.00"));
        }
        assertMessage("BILLING0301E: field 'order_id' holds only blanks, the first U+00A0 at index 0: the customer "
                + "could not tell such order ids apart", order("\u00A0", "a@example.com", "1.00"));
        // noncharacters, and a combining mark with nothing before it to combine with
        for (int cp : new int[] {0xFFFE, 0xFFFF, 0xFDD0, 0xFDEF, 0x1FFFE, 0x10FFFF}) {
            assertMessage(String.format("BILLING0301E: field 'order_id' holds noncharacter U+%04X at index 1", cp),
                    order("o" + Character.toString(cp), "a@example.com", "1.00"));
        }
        assertMessage("BILLING0301E: field 'order_id' holds a combining mark with no character before it, U+0301 at "
                + "index 0", order("\u0301", "a@example.com", "1.00"));
        assertMessage("BILLING0301E: field 'order_id' holds a combining mark with no character before it, U+20DD at "
                + "index 0", order("\u20DD7", "a@example.com", "1.00"));
        // visible text around a blank, emoji of one code point, and marks on a character before them stay order ids
        for (String kept : new String[] {"A\u00A0B", "\ud83d\ude00", "\u05D4-7", "\u0915\u094D\u0937", "e\u0301",
                "1\u20E3"}) {
            assertEquals(kept, OrderConfirmed.parse(order(kept, "a@example.com", "1.00")).orderId());
        }
    }

    /** Length limits count code points: a 200-emoji order id is 200 characters, not 400 UTF-16 units. */
    @Test
    void lengthsAreCountedInCodePoints() {
        String emoji = "\ud83d\ude00"; // U+1F600, two chars in Java, one character
        assertEquals(emoji.repeat(200), OrderConfirmed.parse(order(emoji.repeat(200), "a@example.com", "1.00")).orderId());
        assertMessage("BILLING0110E: field 'order_id' has 201 characters, more than the 200",
                order(emoji.repeat(201), "a@example.com", "1.00"));
        assertEquals(510, OrderConfirmed.parse(order("o", "a@example.com", "1.00")
                .replace("\"event_id\":\"e\"", "\"event_id\":\"" + emoji.repeat(255) + "\"")).eventId().length());
    }

    /** The contract's address rule is CustomerEmail's (CustomerEmailTest has every case); the forms that reached the mailer before it here. */
    @Test
    void customerEmailIsOnePlainAddress() {
        assertMessage("BILLING0112E: customer_email 'undisclosed:a@example.net,b@example.net;' is not one plain address",
                order("o", "undisclosed:a@example.net,b@example.net;", "1.00"));
        assertMessage("BILLING0112E: customer_email 'Bob <bob@x.org>'", order("o", "Bob <bob@x.org>", "1.00"));
        assertMessage("BILLING0114E: customer_email 'nobody' is not one address local-part@domain: it has no '@'",
                order("o", "nobody", "1.00"));
        assertEquals("Bob+inv@Mail.Example.ORG",
                OrderConfirmed.parse(order("o", "Bob+inv@Mail.Example.ORG", "1.00")).customerEmail());
    }

    @Test
    void anObjectWithAMemberTwiceIsRefusedNamingTheMember() {
        String twice = order("o", "a@example.com", "1.00").replace("}", ",\"amount\":\"1000.00\"}");
        assertMessage("has member name 'amount' more than once", twice);
        assertMessage("has member name 'k' more than once", order("o", "a@example.com", "1.00")
                .replace("}", ",\"meta\":{\"k\":1,\"k\":2}}"));
    }

    private static void assertBytesMessage(String expected, byte[] value) {
        UnprocessableEventException e = assertThrows(UnprocessableEventException.class, () -> OrderConfirmed.parse(value));
        assertTrue(e.getMessage().contains(expected), e.getMessage());
    }

    private static void assertMessage(String expected, String json) {
        UnprocessableEventException e = assertThrows(UnprocessableEventException.class, () -> OrderConfirmed.parse(json));
        assertTrue(e.getMessage().contains(expected), e.getMessage());
    }
}
