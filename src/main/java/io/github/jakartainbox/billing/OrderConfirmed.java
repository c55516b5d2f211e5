package io.github.jakartainbox.billing;

import io.github.jakartainbox.inbox.Printable;
import io.github.jakartainbox.inbox.UnprocessableEventException;
import io.github.jakartainbox.inbox.Utf8;
import jakarta.json.Json;
import jakarta.json.JsonObject;
import jakarta.json.JsonString;
import jakarta.json.JsonValue;
import jakarta.json.stream.JsonParser;
import java.io.StringReader;
import java.math.BigDecimal;
import java.util.Currency;

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

    /**
     * @param json the record value as text
     * @return the event
     * @throws UnprocessableEventException when the value is not such an event; the message names the field
     */
    public static OrderConfirmed parse(String json) {
        if (json == null || json.isBlank()) {
            throw new UnprocessableEventException("orders.confirmed value is empty");
        }
        JsonObject object;
        try (JsonParser parser = Json.createParser(new StringReader(json))) {
            if (parser.next() != JsonParser.Event.START_OBJECT) {
                throw new UnprocessableEventException("orders.confirmed value is not a JSON object");
            }
            object = parser.getObject();
            if (parser.hasNext()) {
                throw new UnprocessableEventException("orders.confirmed value is not valid JSON: more follows the "
                        + "JSON object (" + parser.getLocation() + ")");
            }
        } catch (UnprocessableEventException e) {
            throw e;
        } catch (RuntimeException e) {
            // JsonException, or the parser's own limits (nesting depth) as a plain RuntimeException
            throw new UnprocessableEventException("orders.confirmed value is not valid JSON: "
                    + Printable.of(e.getMessage(), 200), e);
        }
        String orderId = text(object, "order_id");
        String email = text(object, "customer_email");
        if (!email.contains("@")) {
            throw new UnprocessableEventException("customer_email '" + shortened(email) + "' is not an e-mail address");
        }
        String amountText = text(object, "amount");
        BigDecimal amount;
        try {
            amount = new BigDecimal(amountText);
        } catch (NumberFormatException e) {
            throw new UnprocessableEventException("amount must be a decimal string such as \"129.90\", got "
                    + shortened(amountText));
        }
        // checked on precision and scale only: toPlainString() of 1e999999999 would be a billion characters
        if (amount.signum() <= 0 || amount.scale() > 2 || (long) amount.precision() - amount.scale() > 10) {
            throw new UnprocessableEventException("amount " + shortened(amountText)
                    + " must be positive, with at most 10 integer digits and 2 decimals");
        }
        String currency = text(object, "currency");
        try {
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
        return new OrderConfirmed(text(object, "event_id"), orderId, email, amount, currency);
    }

    private static String text(JsonObject object, String field) {
        JsonValue value = object.get(field);
        if (!(value instanceof JsonString string) || string.getString().isBlank()) {
            throw new UnprocessableEventException("field '" + field + "' must be a non-empty JSON string, got "
                    + (value == null ? "nothing" : shortened(value.toString())));
        }
        return string.getString();
    }

    private static String shortened(String text) {
        return Printable.of(text, 60);
    }
}
