package io.github.jakartainbox.billing.operator;

import io.github.jakartainbox.billing.BillingMessage;
import io.github.jakartainbox.inbox.text.Printable;
import jakarta.ws.rs.BadRequestException;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.time.Duration;
import java.util.Collection;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * Query and path parameters read strictly, each with a bound: a bad value is a 400 whose body starts with a message
 * id ({@code BILLING0236E} numbers, {@code BILLING0237E} durations, {@code BILLING0238E} texts) and says what is
 * allowed, never a guess, and never a value the database would refuse with a 500 (an {@code olderThan} of
 * {@code P99999999999D} was a PostgreSQL "timestamp out of range").
 */
final class QueryParams {

    /** The longest duration a query may look back: ten years (PostgreSQL's timestamps would end at 294276 AD). */
    static final Duration MAX_DURATION = Duration.ofDays(3650);

    /** A number the API reads: 1 to 19 ASCII digits (a {@code bigint} has at most 19), then range-checked. */
    private static final Pattern DIGITS = Pattern.compile("[0-9]{1,19}");

    private QueryParams() {
    }

    /**
     * @param text the {@code limit} parameter
     * @param max  the largest allowed
     * @return it as a number from 1 to {@code max}
     * @throws BadRequestException otherwise ({@code BILLING0236E})
     */
    static int limit(String text, int max) {
        return (int) number("limit", text, 1, max);
    }

    /**
     * @param name the path parameter's name, for the answer
     * @param text its value
     * @return the row id it names, 1 to {@link Long#MAX_VALUE}
     * @throws BadRequestException when it is not such a number: non-numeric, negative, zero or larger than a
     *                             {@code bigint} ({@code BILLING0236E}; it was a 404 with an empty body)
     */
    static long id(String name, String text) {
        return number(name, text, 1, Long.MAX_VALUE);
    }

    /**
     * The one way the API reads a number from a request (query and path parameters, headers): ASCII digits only.
     * {@link Long#parseLong} also takes other scripts' digits ({@code ?limit=%D9%A1}, ARABIC-INDIC DIGIT ONE, was 1)
     * and a leading {@code +}; neither is a number of this API.
     *
     * @param name the parameter's name, for the answer
     * @param text its value, may be {@code null}
     * @param min  the smallest allowed
     * @param max  the largest allowed
     * @return the number, from {@code min} to {@code max}
     * @throws BadRequestException otherwise ({@code BILLING0236E}, naming the parameter)
     */
    static long number(String name, String text, long min, long max) {
        long value = asciiNumber(text);
        if (value >= min && value <= max) {
            return value;
        }
        throw badRequest(BillingMessage.BILLING0236E.format(name, String.valueOf(min), String.valueOf(max),
                Printable.of(text, 30)));
    }

    /**
     * @param text a decimal number of 1 to 19 ASCII digits ({@code 0-9} only: no sign, blank or other script)
     * @return its value, or -1 when it is none or more than {@link Long#MAX_VALUE}
     */
    static long asciiNumber(String text) {
        if (text == null || !DIGITS.matcher(text).matches()) {
            return -1;
        }
        try {
            return Long.parseLong(text); // only ASCII digits reach here
        } catch (NumberFormatException tooLarge) {
            return -1;
        }
    }

    /**
     * @param name the parameter's name
     * @param text its value, may be {@code null}
     * @param max  the most characters it may have
     * @return the value
     * @throws BadRequestException when it holds a control character (PostgreSQL text cannot hold U+0000) or is
     *                             longer than {@code max} ({@code BILLING0238E})
     */
    static String text(String name, String text, int max) {
        if (text != null && text.length() > max) {
            throw badRequest(BillingMessage.BILLING0238E.format(name, "must have at most " + max + " characters",
                    text.length() + " characters: " + Printable.of(text, 40)));
        }
        if (text != null && text.chars().anyMatch(Character::isISOControl)) {
            throw badRequest(BillingMessage.BILLING0238E.format(name, "must not hold control characters",
                    Printable.of(text, 40)));
        }
        return text;
    }

    /**
     * @param name    the parameter's name
     * @param text    its value
     * @param allowed the values it may have
     * @return the value
     * @throws BadRequestException when it is none of them ({@code BILLING0238E})
     */
    static String oneOf(String name, String text, Collection<String> allowed) {
        if (text == null || !allowed.contains(text)) {
            throw badRequest(BillingMessage.BILLING0238E.format(name, "must be one of " + String.join(", ", allowed),
                    Printable.of(text, 60)));
        }
        return text;
    }

    /**
     * @param name the parameter's name
     * @param text an ISO-8601 duration
     * @return it, from zero to {@link #MAX_DURATION}
     * @throws BadRequestException otherwise: not a duration, negative, or longer ({@code BILLING0237E})
     */
    static Duration duration(String name, String text) {
        try {
            Duration value = Duration.parse(text.trim());
            if (!value.isNegative() && value.compareTo(MAX_DURATION) <= 0) {
                return value;
            }
        } catch (RuntimeException e) {
            // DateTimeParseException, also for a number that overflows: answered below
        }
        throw badRequest(BillingMessage.BILLING0237E.format(name, "P" + MAX_DURATION.toDays() + "D",
                Printable.of(text, 30)));
    }

    /** @return a 400 with {@code {"error": message}} */
    static BadRequestException badRequest(String message) {
        return new BadRequestException(Response.status(Response.Status.BAD_REQUEST)
                .entity(Map.of("error", message)).type(MediaType.APPLICATION_JSON).build());
    }
}
