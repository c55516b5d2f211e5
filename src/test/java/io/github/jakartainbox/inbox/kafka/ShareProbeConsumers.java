package io.github.jakartainbox.inbox.kafka;

import io.github.jakartainbox.billing.order.OrderConfirmed;
import io.github.jakartainbox.inbox.Idempotent;
import jakarta.annotation.Resource;
import jakarta.enterprise.context.ApplicationScoped;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import javax.sql.DataSource;
import org.eclipse.microprofile.reactive.messaging.Incoming;

/**
 * The share-group probes of {@link ShareGroupIT}: {@code inbox-kafka} channels with {@code group.type=share} and
 * two copies ({@code concurrency}) each, so two share consumers of one group on one partition (configured by that
 * test's deployment only); {@code probe-share} runs one record per transaction, {@code probe-share-grouped} groups. Each delivery records its order and thread in table {@code share_probe}, in its transaction; an
 * order whose id ends with "-poison" fails on every attempt; one whose id ends with "-slow" holds its transaction for
 * {@link #SLOW_MILLIS} after its insert (longer than the lock {@link ShareGroupIT} sets on the group).
 */
@ApplicationScoped
public class ShareProbeConsumers {

    /** How long a "-slow" order's transaction runs after its insert. */
    static final long SLOW_MILLIS = 22_000;

    @Resource(lookup = "jdbc/billing")
    DataSource dataSource;

    @Incoming("probe-share")
    @Idempotent(consumer = "probe-share")
    public void payload(String json) throws SQLException {
        record(json);
    }

    /** The grouped share channel's method ({@code group.max-size} above 1): the same work, an inbox consumer of its own. */
    @Incoming("probe-share-grouped")
    @Idempotent(consumer = "probe-share-grouped")
    public void grouped(String json) throws SQLException {
        record(json);
    }

    private void record(String json) throws SQLException {
        String orderId = OrderConfirmed.parse(json).orderId();
        try (Connection c = dataSource.getConnection();
             PreparedStatement insert = c.prepareStatement(
                     "INSERT INTO share_probe (order_id, thread) VALUES (?, ?)")) {
            insert.setString(1, orderId);
            insert.setString(2, Thread.currentThread().getName());
            insert.executeUpdate();
        }
        if (orderId.endsWith("-slow")) {
            try {
                Thread.sleep(SLOW_MILLIS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while slow", e);
            }
        }
        if (orderId.endsWith("-poison")) {
            throw new IllegalStateException("poison order " + orderId);
        }
    }
}
