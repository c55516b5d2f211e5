package io.github.jakartainbox.billing;

import io.github.jakartainbox.inbox.InboxStatistics;
import jakarta.annotation.security.RolesAllowed;
import jakarta.enterprise.context.RequestScoped;
import jakarta.inject.Inject;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.NotFoundException;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import java.sql.SQLException;
import java.util.List;

/** {@code GET /billing/api/inbox}: per-consumer figures (processed, duplicates skipped, dead-lettered, retries),
 *  and the retention purge's state. */
@Path("/inbox")
@RequestScoped
@Produces(MediaType.APPLICATION_JSON)
@RolesAllowed({Roles.READER, Roles.OPERATOR})
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

    /**
     * {@code GET /billing/api/inbox/purge}: the retention purge's state (last run, rows deleted, last error,
     * overdue); 404 only if the state row the migration creates is missing.
     *
     * @return the state
     */
    @GET
    @Path("/purge")
    public InboxStatistics.PurgeStatus purge() {
        return statistics.purgeStatus().orElseThrow(() -> new NotFoundException("no purge state"));
    }
}
