package io.github.jakartainbox.billing.operator;

import io.github.jakartainbox.billing.web.Roles;
import io.github.jakartainbox.inbox.InboxStatistics;
import io.github.jakartainbox.inbox.retention.RetentionCheck;
import jakarta.annotation.security.RolesAllowed;
import jakarta.enterprise.context.RequestScoped;
import jakarta.inject.Inject;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.NotFoundException;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import java.sql.SQLException;
import java.time.Duration;
import java.time.OffsetDateTime;
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
    @Inject
    RetentionCheck retention;

    /**
     * @return one entry per consumer
     * @throws SQLException when the database cannot be read (answered as 500)
     */
    @GET
    public List<InboxStatistics.ConsumerFigures> figures() throws SQLException {
        return statistics.figures();
    }

    /**
     * The purge's state with the retention figures of each consumer.
     *
     * @param lastStartedAt  when the last run started
     * @param lastFinishedAt when the last successful run finished
     * @param lastDeleted    rows removed by the last successful run
     * @param totalDeleted   rows removed by all runs
     * @param totalBatches   DELETE transactions of all runs
     * @param lastError      why the last run failed, {@code null} when it succeeded
     * @param lastErrorAt    when it failed
     * @param overdue        no successful run within {@code overdueAfter}, or the last run failed
     * @param overdueAfter   {@code inbox.purge.overdue-after}
     * @param retention      per Kafka consumer: inbox retention against the topic's and the broker's (last check)
     */
    public record PurgeView(OffsetDateTime lastStartedAt, OffsetDateTime lastFinishedAt, long lastDeleted,
                            long totalDeleted, long totalBatches, String lastError, OffsetDateTime lastErrorAt,
                            boolean overdue, Duration overdueAfter, List<RetentionCheck.ConsumerRetention> retention) {
    }

    /**
     * {@code GET /billing/api/inbox/purge}: the retention purge's state (last run, rows deleted, last error,
     * overdue) and the retention figures read from the broker at start and after each purge run; 404 only if the
     * state row the migration creates is missing.
     *
     * @return the state
     */
    @GET
    @Path("/purge")
    public PurgeView purge() {
        InboxStatistics.PurgeStatus s = statistics.purgeStatus().orElseThrow(() -> new NotFoundException("no purge state"));
        return new PurgeView(s.lastStartedAt(), s.lastFinishedAt(), s.lastDeleted(), s.totalDeleted(), s.totalBatches(),
                s.lastError(), s.lastErrorAt(), s.overdue(), s.overdueAfter(), retention.last());
    }
}
