package io.github.jakartainbox.billing;

import io.github.jakartainbox.inbox.Printable;
import io.github.jakartainbox.inbox.StrictJson;
import io.github.jakartainbox.inbox.UnprocessableEventException;
import io.github.jakartainbox.inbox.Utf8;
import jakarta.json.JsonException;
import jakarta.json.JsonObject;
import jakarta.json.JsonString;
import jakarta.json.JsonValue;
import java.math.BigDecimal;
import java.util.Currency;
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
            throw new UnprocessableEventException("orders.confirmed value is empty (" + (value == null
                    ? "a tombstone or a null value" : "0 bytes") + ")");
        }
        if (value.length > MAX_BYTES) {
            throw new UnprocessableEventException("orders.confirmed value is " + value.length + " bytes, more than "
                    + "the " + MAX_BYTES + " an order event may have; the producer sent something else");
        }
        String json = Utf8.decode(value);
        if (json == null) {
            throw new UnprocessableEventException("orders.confirmed value is not valid UTF-8 text (JSON must be "
                    + "UTF-8); it is kept byte for byte in inbox_dead_letter.payload_bytes");
        }
        return parse(json);
    }

    /** Longest {@code order_id}, in characters: its btree index ({@code invoice_order_id_idx}) holds entries of up
     *  to 2704 bytes, and 200 characters are at most 800 bytes of UTF-8. */
    public static final int MAX_ORDER_ID_CHARS = 200;
    /** Longest {@code customer_email}, in characters: the longest address an SMTP path can carry (RFC 5321 section
     *  4.5.3.1.3: 256 octets including the angle brackets). */
    public static final int MAX_EMAIL_CHARS = 254;
    /** Longest {@code event_id}, in characters: what the inbox's {@code event_id} column accepts. */
    public static final int MAX_EVENT_ID_CHARS = 255;
    /** Most integer digits of {@code amount}: what {@code invoice.amount numeric(12,2)} holds. */
    public static final int MAX_AMOUNT_INTEGER_DIGITS = 10;

    /** The amount's only accepted form: ASCII digits, optionally a point and one or two ASCII digits. */
    private static final Pattern AMOUNT = Pattern.compile("[0-9]{1,40}(?:\\.[0-9]{1,2})?");
    private static final Pattern CURRENCY = Pattern.compile("[A-Z]{3}");

    /**
     * The contract of an {@code orders.confirmed} value, checked in full before any work, the same for every
     * consumer (README, "Bad input"): one JSON object by {@link StrictJson} (no member twice); {@code event_id},
     * {@code order_id}, {@code customer_email}, {@code amount} and {@code currency} non-empty JSON strings without
     * control characters (U+0000 to U+001F, U+007F to U+009F: PostgreSQL text cannot hold U+0000); {@code order_id}
     * at most {@value #MAX_ORDER_ID_CHARS} characters, {@code customer_email} at most {@value #MAX_EMAIL_CHARS} with
     * an {@code @}, {@code event_id} at most {@value #MAX_EVENT_ID_CHARS}; {@code amount} ASCII digits with at most
     * {@value #MAX_AMOUNT_INTEGER_DIGITS} of them before an optional point and one or two after it, more than zero
     * (no sign, exponent, spaces or other digits); {@code currency} an ISO 4217 code in upper case that is money.
     * Other members are ignored.
     *
     * @param json the record value as text
     * @return the event, its amount with scale 2
     * @throws UnprocessableEventException when the value breaks the contract; the message names the field and
     *                                     the rule
     */
    public static OrderConfirmed parse(String json) {
        if (json == null || json.isBlank()) {
            throw new UnprocessableEventException("orders.confirmed value is empty");
        }
        JsonObject object;
        try {
            object = StrictJson.readObject(json);
        } catch (JsonException e) {
            throw new UnprocessableEventException("orders.confirmed value " + e.getMessage(), e);
        }
        String eventId = text(object, "event_id", MAX_EVENT_ID_CHARS);
        String orderId = text(object, "order_id", MAX_ORDER_ID_CHARS);
        String email = text(object, "customer_email", MAX_EMAIL_CHARS);
        if (!email.contains("@")) {
            throw new UnprocessableEventException("customer_email '" + shortened(email) + "' is not an e-mail address");
        }
        String amountText = text(object, "amount", 64);
        if (!AMOUNT.matcher(amountText).matches()) {
            throw new UnprocessableEventException("amount must be a decimal string of ASCII digits with at most 2 "
                    + "decimals after a point, such as \"129.90\" (no sign, exponent, spaces or other digits), got "
                    + "\"" + shortened(amountText) + "\"");
        }
        BigDecimal amount = new BigDecimal(amountText);
        if (amount.signum() <= 0 || (long) amount.precision() - amount.scale() > MAX_AMOUNT_INTEGER_DIGITS) {
            throw new UnprocessableEventException("amount " + shortened(amountText) + " must be positive, with at "
                    + "most " + MAX_AMOUNT_INTEGER_DIGITS + " integer digits and 2 decimals");
        }
        String currency = text(object, "currency", 64);
        try {
            if (!CURRENCY.matcher(currency).matches()) {
                throw new IllegalArgumentException("not three capital letters");
            }
            Currency code = Currency.getInstance(currency);
            if (code.getDefaultFractionDigits() < 0) {
                // XXX (no currency), XAU (gold), XDR...: ISO 4217 codes that are no money to invoice in
                throw new IllegalArgumentException("not a currency");
            }
            currency = code.getCurrencyCode();
        } catch (IllegalArgumentException e) {
            throw new UnprocessableEventException("currency '" + shortened(currency) + "' is not an ISO 4217 "
                    + "currency code");
        }
        return new OrderConfirmed(eventId, orderId, email, amount.setScale(2), currency);
    }

    private static String text(JsonObject object, String field, int maxChars) {
        JsonValue value = object.get(field);
        if (!(value instanceof JsonString string) || string.getString().isBlank()) {
            throw new UnprocessableEventException("field '" + field + "' must be a non-empty JSON string, got "
                    + (value == null ? "nothing" : shortened(value.toString())));
        }
        String text = string.getString();
        if (text.length() > maxChars) {
            throw new UnprocessableEventException("field '" + field + "' has " + text.length() + " characters, more "
                    + "than the " + maxChars + " it may have: '" + shortened(text) + "'");
        }
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (Character.isISOControl(c)) {
                throw new UnprocessableEventException("field '" + field + "' holds control character U+"
                        + String.format("%04X", (int) c) + " at index " + i + (c == 0 ? ", which PostgreSQL text "
                        + "cannot store" : "") + ": '" + shortened(text) + "'");
            }
        }
        return text;
    }

    private static String shortened(String text) {
        return Printable.of(text, 60);
    }
}
