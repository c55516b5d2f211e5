package io.github.jakartainbox.billing;

import io.github.jakartainbox.inbox.InboxStatistics;
import jakarta.enterprise.context.RequestScoped;
import jakarta.inject.Inject;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import java.sql.SQLException;
import java.util.List;

/** {@code GET /billing/api/inbox}: per-consumer figures (processed, duplicates skipped, dead-lettered, retries). */
@Path("/inbox")
@RequestScoped
@Produces(MediaType.APPLICATION_JSON)
public class InboxResource {

    @Inject
    InboxStatistics statistics;

    /**
     * @return one entry per consumer
     * @throws SQLException when the database cannot be read (answered as 500)
     */
    @GET
    public List<InboxStatistics.ConsumerFigures> figures() throws SQLException {
        return statistics.figures();
    }
}
