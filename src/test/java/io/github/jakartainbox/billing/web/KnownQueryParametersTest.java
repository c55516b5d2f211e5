package io.github.jakartainbox.billing.web;

import static org.junit.jupiter.api.Assertions.assertEquals;

import jakarta.ws.rs.QueryParam;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The query parameter names a resource method takes, in the order the refusal lists them. */
class KnownQueryParametersTest {

    @SuppressWarnings("unused")
    void list(@QueryParam("open") String open, @QueryParam("limit") String limit, String body,
              @QueryParam("consumer") String consumer) {
    }

    /** Set.copyOf kept them in hash order, which changes from run to run: the message listed "open, limit, consumer". */
    @Test
    void theNamesAreTheQueryParamsSorted() throws Exception {
        assertEquals(List.of("consumer", "limit", "open"), List.copyOf(KnownQueryParameters.queryParameters(
                getClass().getDeclaredMethod("list", String.class, String.class, String.class, String.class))));
    }
}
