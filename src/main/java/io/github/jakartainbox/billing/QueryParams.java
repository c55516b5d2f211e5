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

    static BadRequestException badRequest(String message) {
        return new BadRequestException(Response.status(Response.Status.BAD_REQUEST)
                .entity(Map.of("error", message)).type(MediaType.APPLICATION_JSON).build());
    }
}
