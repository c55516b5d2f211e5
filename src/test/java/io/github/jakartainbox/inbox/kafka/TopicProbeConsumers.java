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
 * The probes of {@link RecreatedTopicIT}, each on its own {@code inbox-kafka} channel (configured by that test's
 * deployment only): each records the order it processed in table {@code topic_probe}, in the inbox's transaction.
 */
@ApplicationScoped
public class TopicProbeConsumers {

    @Resource(lookup = "jdbc/billing")
    DataSource dataSource;

    @Incoming("probe-topic-recreated")
    @Idempotent(consumer = "probe-topic-recreated")
    public void recreated(String json) throws SQLException {
        record("probe-topic-recreated", json);
    }

    @Incoming("probe-topic-widened")
    @Idempotent(consumer = "probe-topic-widened")
    public void widened(String json) throws SQLException {
        record("probe-topic-widened", json);
    }

    private void record(String consumer, String json) throws SQLException {
        try (Connection c = dataSource.getConnection();
             PreparedStatement insert = c.prepareStatement(
                     "INSERT INTO topic_probe (consumer, order_id) VALUES (?, ?)")) {
            insert.setString(1, consumer);
            insert.setString(2, OrderConfirmed.parse(json).orderId());
            insert.executeUpdate();
        }
    }
}
