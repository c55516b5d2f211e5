package io.github.jakartainbox.billing;

import io.github.jakartainbox.inbox.Printable;
import jakarta.ws.rs.BadRequestException;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.util.Map;

/** Query parameters read strictly: a bad value is a 400 that says what is allowed, never a guess. */
final class QueryParams {

    private QueryParams() {
    }

    /**
     * @param text the {@code limit} parameter
     * @param max  the largest allowed
     * @return it as a number from 1 to {@code max}
     * @throws BadRequestException otherwise
     */
    static int limit(String text, int max) {
        try {
            int limit = Integer.parseInt(text.trim());
            if (limit >= 1 && limit <= max) {
                return limit;
            }
        } catch (NumberFormatException e) {
            // answered below
        }
        throw badRequest("limit must be a number from 1 to " + max + ", got " + Printable.of(text, 20));
    }

    /**
     * @param name the parameter's name
     * @param text its value, may be {@code null}
     * @return the value
     * @throws BadRequestException when it holds a control character (PostgreSQL text cannot hold U+0000)
     */
    static String text(String name, String text) {
        if (text != null && text.chars().anyMatch(Character::isISOControl)) {
            throw badRequest(name + " must not hold control characters, got " + Printable.of(text, 40));
        }
        return text;
    }

    static BadRequestException badRequest(String message) {
        return new BadRequestException(Response.status(Response.Status.BAD_REQUEST)
                .entity(Map.of("error", message)).type(MediaType.APPLICATION_JSON).build());
    }
}
