package io.github.jakartainbox.inbox.kafka;

import io.github.jakartainbox.inbox.Idempotent;
import jakarta.annotation.Resource;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.json.Json;
import jakarta.json.JsonObject;
import java.io.StringReader;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import javax.sql.DataSource;
import org.eclipse.microprofile.reactive.messaging.Incoming;

/**
 * The consumers of {@link KeyOrderIT}, with {@code dead-letter.order=key}: a grouped channel and a per-record one
 * ({@code group.max-size=1}). Each event {@code {"event_id", "key", "seq"}} adds a row to {@code key_order_effect}
 * in the inbox's transaction; an event whose id is in {@code key_order_poison} fails on every attempt (a poison
 * payload, until the test "fixes" it by deleting that row).
 */
@ApplicationScoped
public class KeyOrderProbe {

    @Resource(lookup = "jdbc/billing")
    DataSource dataSource;

    @Incoming("probe-key-grouped")
    @Idempotent(consumer = "probe-key-grouped")
    public void grouped(String json) throws SQLException {
        effect("probe-key-grouped", json);
    }

    @Incoming("probe-key-single")
    @Idempotent(consumer = "probe-key-single")
    public void single(String json) throws SQLException {
        effect("probe-key-single", json);
    }

    private void effect(String consumer, String json) throws SQLException {
        JsonObject event = Json.createReader(new StringReader(json)).readObject();
        String eventId = event.getString("event_id");
        try (Connection c = dataSource.getConnection()) {
            try (PreparedStatement poison = c.prepareStatement(
                    "SELECT count(*) FROM key_order_poison WHERE event_id = ?")) {
                poison.setString(1, eventId);
                try (ResultSet rs = poison.executeQuery()) {
                    rs.next();
                    if (rs.getLong(1) > 0) {
                        throw new IllegalStateException("poison event " + eventId);
                    }
                }
            }
            try (PreparedStatement insert = c.prepareStatement("INSERT INTO key_order_effect "
                    + "(consumer, record_key, seq, event_id) VALUES (?, ?, ?, ?)")) {
                insert.setString(1, consumer);
                insert.setString(2, event.getString("key"));
                insert.setInt(3, event.getInt("seq"));
                insert.setString(4, eventId);
                insert.executeUpdate();
            }
        }
    }
}
