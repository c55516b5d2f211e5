package io.github.jakartainbox.inbox.kafka;

import io.github.jakartainbox.billing.order.OrderConfirmed;
import io.github.jakartainbox.inbox.Idempotent;
import jakarta.annotation.Resource;
import jakarta.enterprise.context.ApplicationScoped;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import javax.sql.DataSource;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.eclipse.microprofile.reactive.messaging.Incoming;
import org.eclipse.microprofile.reactive.messaging.Message;

/**
 * The grouped-delivery probes of {@link io.github.jakartainbox.inbox.kafka.GroupedDeliveryIT}, one per supported signature,
 * each on its own {@code inbox-kafka} channel (configured by that test's deployment only). Each records the order
 * and the PostgreSQL transaction id ({@code txid_current()}) it ran in, in table {@code group_probe}, through the
 * inbox's datasource: one transaction id per group. An order whose id ends with "-poison" fails on every attempt.
 */
@ApplicationScoped
public class GroupProbeConsumers {

    @Resource(lookup = "jdbc/billing")
    DataSource dataSource;

    @Incoming("probe-group-payload")
    @Idempotent(consumer = "probe-group-payload")
    public void payload(String json) throws SQLException {
        record("probe-group-payload", json, null);
    }

    @Incoming("probe-group-recount")
    @Idempotent(consumer = "probe-group-recount")
    public void recount(String json) throws SQLException {
        record("probe-group-recount", json, null);
    }

    @Incoming("probe-group-stage")
    @Idempotent(consumer = "probe-group-stage")
    public CompletionStage<Void> stage(String json) throws SQLException {
        record("probe-group-stage", json, null);
        return CompletableFuture.completedFuture(null);
    }

    @Incoming("probe-group-message")
    @Idempotent(consumer = "probe-group-message")
    public CompletionStage<Void> message(Message<String> message) throws SQLException {
        // the record behind the message, as with liberty-kafka
        ConsumerRecord<?, ?> record = message.unwrap(ConsumerRecord.class);
        record("probe-group-message", message.getPayload(), record.topic() + "-" + record.partition() + "@"
                + record.offset());
        return message.ack();
    }

    @Incoming("probe-group-txn")
    @Idempotent(consumer = "probe-group-txn")
    public void transactional(String json) throws SQLException {
        record("probe-group-txn", json, null);
    }

    @Incoming("probe-group-compact")
    @Idempotent(consumer = "probe-group-compact")
    public void compacted(String json) throws SQLException {
        record("probe-group-compact", json, null);
    }

    private void record(String consumer, String json, String position) throws SQLException {
        String orderId = OrderConfirmed.parse(json).orderId();
        try (Connection c = dataSource.getConnection();
             PreparedStatement insert = c.prepareStatement(
                     "INSERT INTO group_probe (consumer, order_id, txid, position) VALUES (?, ?, txid_current(), ?)")) {
            insert.setString(1, consumer);
            insert.setString(2, orderId);
            insert.setString(3, position);
            insert.executeUpdate();
        }
        if (orderId.endsWith("-poison")) {
            throw new IllegalStateException("poison order " + orderId);
        }
    }
}
