package io.github.jakartainbox.billing.order;

import io.github.jakartainbox.billing.BillingMessage;
import io.github.jakartainbox.inbox.UnprocessableEventException;
import io.github.jakartainbox.inbox.text.Printable;
import io.github.jakartainbox.inbox.text.StrictJson;
import jakarta.json.JsonException;
import jakarta.json.JsonObject;
import jakarta.json.JsonString;
import jakarta.json.JsonValue;
import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Currency;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * An {@code orders.confirmed} event: record key = order id, value
 * {@code {"event_id":"<uuid>","order_id":"..","customer_email":"..","amount":"129.90","currency":"EUR"}}.
 *
 * @param eventId       the producer's event id
 * @param orderId       the order
 * @param customerEmail where the invoice goes
 * @param amount        the amount, positive, at most two decimals
 * @param currency      the ISO 4217 currency code
 */
public record OrderConfirmed(String eventId, String orderId, String customerEmail, BigDecimal amount,
                             String currency) {

    /** The largest record value accepted, in bytes: an order event is a few hundred bytes. */
    public static final int MAX_BYTES = 64 * 1024;

    /**
     * @param value the record value as it arrived: UTF-8 JSON (RFC 8259 section 8.1)
     * @return the event
     * @throws UnprocessableEventException when the value is empty, larger than {@link #MAX_BYTES}, not UTF-8, or
     *                                     not such an event; the message names what is wrong
     */
    public static OrderConfirmed parse(byte[] value) {
        if (value == null || value.length == 0) {
            throw new UnprocessableEventException(BillingMessage.BILLING0101E.format(value == null
                    ? "a tombstone or a null value" : "0 bytes"));
        }
        if (value.length > MAX_BYTES) {
            throw new UnprocessableEventException(BillingMessage.BILLING0102E.format(String.valueOf(value.length),
                    String.valueOf(MAX_BYTES)));
        }
        String json;
        try {
            json = StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(value)).toString();
        } catch (CharacterCodingException e) {
            throw new UnprocessableEventException(BillingMessage.BILLING0103E.format());
        }
        return parse(json);
    }

    /** Longest {@code order_id}, in characters (Unicode code points): its btree index ({@code invoice_order_id_idx}) holds entries of up
     *  to 2704 bytes, and 200 characters are at most 800 bytes of UTF-8. */
    public static final int MAX_ORDER_ID_CHARS = 200;
    /** Longest {@code customer_email}, in characters (ASCII only, {@link CustomerEmail}): the longest address an SMTP path can carry (RFC 5321 section
     *  4.5.3.1.3: 256 octets including the angle brackets). */
    public static final int MAX_EMAIL_CHARS = 254;
    /** Longest {@code event_id}, in characters (Unicode code points): what the inbox's {@code event_id} column accepts. */
    public static final int MAX_EVENT_ID_CHARS = 255;
    /** Most integer digits of {@code amount}: what {@code invoice.amount numeric(12,2)} holds. */
    public static final int MAX_AMOUNT_INTEGER_DIGITS = 10;

    /** The amount's only accepted form: ASCII digits, optionally a point and one or two ASCII digits. */
    private static final Pattern AMOUNT = Pattern.compile("[0-9]{1,40}(?:\\.[0-9]{1,2})?");
    private static final Pattern CURRENCY = Pattern.compile("[A-Z]{3}");
    /**
     * Codes the JDK still knows that ISO 4217 has withdrawn (its List Three, historic denominations), each with the
     * year it was withdrawn: no money to invoice in any more. The euro's predecessors, the redenominated ones (BYR,
     * MRO, STD, VEF, ZWD...), HRK since 2023.
     */
    private static final Map<String, Integer> WITHDRAWN = Map.ofEntries(Map.entry("ADP", 2002), Map.entry("AFA", 2003),
            Map.entry("ATS", 2002), Map.entry("AYM", 2005), Map.entry("AZM", 2006), Map.entry("BEF", 2002),
            Map.entry("BGL", 1999), Map.entry("BYB", 2000), Map.entry("BYR", 2017), Map.entry("CSD", 2006),
            Map.entry("CYP", 2008), Map.entry("DEM", 2002), Map.entry("EEK", 2011), Map.entry("ESP", 2002),
            Map.entry("FIM", 2002), Map.entry("FRF", 2002), Map.entry("GHC", 2007), Map.entry("GRD", 2002),
            Map.entry("GWP", 1997), Map.entry("HRK", 2023), Map.entry("IEP", 2002), Map.entry("ITL", 2002),
            Map.entry("LTL", 2015), Map.entry("LUF", 2002), Map.entry("LVL", 2014), Map.entry("MGF", 2005),
            Map.entry("MRO", 2018), Map.entry("MTL", 2008), Map.entry("MZM", 2006), Map.entry("NLG", 2002),
            Map.entry("PTE", 2002), Map.entry("ROL", 2006), Map.entry("RUR", 1998), Map.entry("SDD", 2007),
            Map.entry("SIT", 2007), Map.entry("SKK", 2009), Map.entry("SRG", 2004), Map.entry("STD", 2018),
            Map.entry("TMM", 2009), Map.entry("TPE", 2002), Map.entry("TRL", 2005), Map.entry("USS", 2014),
            Map.entry("VEB", 2008), Map.entry("VEF", 2018), Map.entry("YUM", 2003), Map.entry("ZMK", 2013),
            Map.entry("ZWD", 2008), Map.entry("ZWN", 2008), Map.entry("ZWR", 2009));

    /**
     * The contract of an {@code orders.confirmed} value, checked in full before any work, the same for every
     * consumer (docs/dead-letters.md, "Bad input"): one JSON object by {@link StrictJson} (no member twice); {@code event_id},
     * {@code order_id}, {@code customer_email}, {@code amount} and {@code currency} non-empty JSON strings without
     * control characters (U+0000 to U+001F, U+007F to U+009F: PostgreSQL text cannot hold U+0000), bidirectional
     * controls or line and paragraph separators ({@link #shownAsIs}); {@code order_id}
     * without characters shown as nothing and not of blanks only ({@link #visible}), at most
     * {@value #MAX_ORDER_ID_CHARS} characters (Unicode code points, here and below: an emoji is one),
     * {@code customer_email} at most {@value #MAX_EMAIL_CHARS} and one plain ASCII address by
     * {@link CustomerEmail#check} (RFC 5322 section 3.4.1, dot-atom form; no names, groups, several addresses or
     * internationalized addresses), {@code event_id} at most {@value #MAX_EVENT_ID_CHARS}; {@code amount} ASCII
     * digits with at most {@value #MAX_AMOUNT_INTEGER_DIGITS} of them before an optional point and one or two after
     * it, more than zero (no sign, exponent, spaces or other digits); {@code currency} an ISO 4217 code in upper case that is money.
     * Other members are ignored.
     *
     * @param json the record value as text
     * @return the event, its amount with scale 2
     * @throws UnprocessableEventException when the value breaks the contract; the message names the field and
     *                                     the rule
     */
    public static OrderConfirmed parse(String json) {
        if (json == null || json.isBlank()) {
            throw new UnprocessableEventException(BillingMessage.BILLING0101E.format("blank"));
        }
        // the same size limit whatever the entry point (a Kafka value's bytes, a JMS TextMessage's text)
        long bytes = utf8Length(json);
        if (bytes > MAX_BYTES) {
            throw new UnprocessableEventException(BillingMessage.BILLING0102E.format(String.valueOf(bytes),
                    String.valueOf(MAX_BYTES)));
        }
        JsonObject object;
        try {
            object = StrictJson.readObject(json);
        } catch (JsonException e) {
            throw new UnprocessableEventException(BillingMessage.BILLING0104E.format(e.getMessage()), e);
        }
        String eventId = text(object, "event_id", MAX_EVENT_ID_CHARS);
        String orderId = visible("order_id", text(object, "order_id", MAX_ORDER_ID_CHARS));
        String email = CustomerEmail.check("customer_email", text(object, "customer_email", MAX_EMAIL_CHARS));
        String amountText = text(object, "amount", 64);
        if (!AMOUNT.matcher(amountText).matches()) {
            throw new UnprocessableEventException(BillingMessage.BILLING0106E.format(shortened(amountText)));
        }
        BigDecimal amount = new BigDecimal(amountText);
        if (amount.signum() <= 0 || (long) amount.precision() - amount.scale() > MAX_AMOUNT_INTEGER_DIGITS) {
            throw new UnprocessableEventException(BillingMessage.BILLING0107E.format(shortened(amountText),
                    String.valueOf(MAX_AMOUNT_INTEGER_DIGITS)));
        }
        String currency = text(object, "currency", 64);
        Currency code;
        try {
            if (!CURRENCY.matcher(currency).matches()) {
                throw new IllegalArgumentException("not three capital letters");
            }
            code = Currency.getInstance(currency);
            if (code.getDefaultFractionDigits() < 0) {
                // XXX (no currency), XAU (gold), XDR...: ISO 4217 codes that are no money to invoice in
                throw new IllegalArgumentException("not a currency");
            }
        } catch (IllegalArgumentException e) {
            throw new UnprocessableEventException(BillingMessage.BILLING0108E.format(shortened(currency)));
        }
        Integer withdrawn = WITHDRAWN.get(currency);
        if (withdrawn != null) {
            throw new UnprocessableEventException(BillingMessage.BILLING0305E.format(currency,
                    String.valueOf(withdrawn)));
        }
        // ISO 4217's minor units: a yen or a won has no subdivision, so "5.55" JPY is no amount ("5.00" is 5 yen)
        int decimals = Math.max(0, amount.stripTrailingZeros().scale());
        if (decimals > code.getDefaultFractionDigits()) {
            throw new UnprocessableEventException(BillingMessage.BILLING0216E.format(amountText,
                    String.valueOf(decimals), code.getCurrencyCode(), String.valueOf(code.getDefaultFractionDigits())));
        }
        return new OrderConfirmed(eventId, orderId, email, amount.setScale(2), code.getCurrencyCode());
    }

    private static String text(JsonObject object, String field, int maxChars) {
        JsonValue value = object.get(field);
        if (!(value instanceof JsonString string) || string.getString().isBlank()) {
            throw new UnprocessableEventException(BillingMessage.BILLING0109E.format(field,
                    value == null ? "nothing" : shortened(value.toString())));
        }
        String text = string.getString();
        // characters as a person counts them, code points: an emoji is one, though Java holds it in two chars
        int characters = text.codePointCount(0, text.length());
        if (characters > maxChars) {
            throw new UnprocessableEventException(BillingMessage.BILLING0110E.format(field,
                    String.valueOf(characters), String.valueOf(maxChars), shortened(text)));
        }
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (Character.isISOControl(c)) {
                throw new UnprocessableEventException(BillingMessage.BILLING0111E.format(field,
                        String.format("%04X", (int) c), String.valueOf(i),
                        c == 0 ? ", which PostgreSQL text cannot store" : "", shortened(text)));
            }
        }
        return shownAsIs(field, text);
    }

    /**
     * Refuses the characters that change how the text around them is shown, in the mail's subject and body and in the
     * PDF: the bidirectional controls (U+202A to U+202E, U+2066 to U+2069, U+200E, U+200F, U+061C; a U+202E makes
     * "fdp.exe" read "exe.pdf", Unicode Technical Standard 39 and CVE-2021-42574) and the line and paragraph
     * separators U+2028 and U+2029 (a line break inside a one-line field).
     *
     * @param field the field's name, for the reason
     * @param text  its value
     * @return the value, when it holds none of them
     * @throws UnprocessableEventException ({@code BILLING0120E}) naming the first such character and its index
     */
    public static String shownAsIs(String field, String text) {
        for (int i = 0; i < text.length(); i++) {
            String kind = reordering(text.charAt(i));
            if (kind != null) {
                throw new UnprocessableEventException(BillingMessage.BILLING0120E.format(field, kind,
                        String.format("%04X", (int) text.charAt(i)), String.valueOf(i), shortened(text)));
            }
        }
        return text;
    }

    /**
     * Refuses an order id the customer cannot read as it is: one holding a character that is shown as nothing (Unicode's
     * default-ignorable code points, DerivedCoreProperties.txt: zero-width space and joiners U+200B to U+200D, word
     * joiner U+2060, U+FEFF, soft hyphen U+00AD, variation selectors, Hangul fillers, tags...), or one of blanks only
     * (no-break and other spaces that {@link String#isBlank} keeps, the braille blank U+2800). The PDF prints such a
     * character as {@code [U+200D]} while the mail subject shows nothing, so A, U+200D, B and "AB" looked alike. Also
     * refused: noncharacters (U+FFFE, U+FDD0 to U+FDEF..., Unicode section 23.7: never for interchange), and a
     * combining mark that starts the id, with no character to combine with (shown on a dotted circle, or on the
     * text before the id).
     *
     * @param field the field's name, for the reason
     * @param text  its value
     * @return the value, when every character of it is shown and one at least is not blank
     * @throws UnprocessableEventException ({@code BILLING0301E}) naming the first such character and its index
     */
    private static String visible(String field, String text) {
        for (int i = 0; i < text.length(); i += Character.charCount(text.codePointAt(i))) {
            int cp = text.codePointAt(i);
            String kind = defaultIgnorable(cp) ? "invisible character"
                    : noncharacter(cp) ? "noncharacter"
                    : i == 0 && combining(cp) ? "a combining mark with no character before it," : null;
            if (kind != null) {
                throw new UnprocessableEventException(BillingMessage.BILLING0301E.format(field, kind,
                        String.format("%04X", cp), String.valueOf(i), shortened(text)));
            }
        }
        if (text.codePoints().allMatch(OrderConfirmed::blank)) {
            throw new UnprocessableEventException(BillingMessage.BILLING0301E.format(field, "only blanks, the first",
                    String.format("%04X", text.codePointAt(0)), "0", shortened(text)));
        }
        return text;
    }

    /**
     * The display rules of an order id wherever one arrives outside {@link #parse} (the mailer's event, the API's
     * filter), the more specific first, as the contract applies them.
     *
     * @param field the field's or parameter's name, for the reason
     * @param text  its value
     * @return the value, when {@link #shownAsIs} ({@code BILLING0120E}) and {@link #visible} ({@code BILLING0301E})
     *         pass it
     * @throws UnprocessableEventException from the first rule it breaks
     */
    public static String shownOrderId(String field, String text) {
        return visible(field, shownAsIs(field, text));
    }

    /** @return whether the code point has Unicode's Default_Ignorable_Code_Point property (Unicode 15.1) */
    private static boolean defaultIgnorable(int cp) {
        return cp == 0x00AD || cp == 0x034F || cp == 0x061C || cp == 0x115F || cp == 0x1160 || cp == 0x17B4
                || cp == 0x17B5 || (cp >= 0x180B && cp <= 0x180F) || (cp >= 0x200B && cp <= 0x200F)
                || (cp >= 0x202A && cp <= 0x202E) || (cp >= 0x2060 && cp <= 0x206F) || cp == 0x3164
                || (cp >= 0xFE00 && cp <= 0xFE0F) || cp == 0xFEFF || cp == 0xFFA0 || (cp >= 0xFFF0 && cp <= 0xFFF8)
                || (cp >= 0x1BCA0 && cp <= 0x1BCA3) || (cp >= 0x1D173 && cp <= 0x1D17A)
                || (cp >= 0xE0000 && cp <= 0xE0FFF);
    }

    /** @return whether the code point is one of Unicode's 66 noncharacters (U+FDD0 to U+FDEF, U+xxFFFE, U+xxFFFF) */
    private static boolean noncharacter(int cp) {
        return (cp >= 0xFDD0 && cp <= 0xFDEF) || (cp & 0xFFFE) == 0xFFFE;
    }

    /** @return whether the code point is a combining mark (general category Mn, Mc or Me) */
    private static boolean combining(int cp) {
        int type = Character.getType(cp);
        return type == Character.NON_SPACING_MARK || type == Character.COMBINING_SPACING_MARK
                || type == Character.ENCLOSING_MARK;
    }

    /** @return whether the code point is shown as empty space: a space separator, other white space, U+2800 */
    private static boolean blank(int cp) {
        return Character.isSpaceChar(cp) || Character.isWhitespace(cp) || cp == 0x2800;
    }

    /** @return what the character is when it reorders or breaks displayed text, else null */
    private static String reordering(char c) {
        if ((c >= '\u202A' && c <= '\u202E') || (c >= '\u2066' && c <= '\u2069') || c == '\u200E' || c == '\u200F'
                || c == '\u061C') {
            return "bidirectional control";
        }
        if (c == '\u2028' || c == '\u2029') {
            return c == '\u2028' ? "line separator" : "paragraph separator";
        }
        return null;
    }

    private static String shortened(String text) {
        return Printable.of(text, 60);
    }

    /** @return the text's length in UTF-8, counted to its end without encoding it (a lone surrogate as 3 bytes), so
     *          that a refusal states the real size */
    public static long utf8Length(String text) {
        long bytes = 0;
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c < 0x80) {
                bytes += 1;
            } else if (c < 0x800) {
                bytes += 2;
            } else if (Character.isHighSurrogate(c) && i + 1 < text.length()
                    && Character.isLowSurrogate(text.charAt(i + 1))) {
                bytes += 4;
                i++;
            } else {
                bytes += 3;
            }
        }
        return bytes;
    }
}
