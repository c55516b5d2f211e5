package io.github.jakartainbox.testing.probes;

import io.github.jakartainbox.inbox.Idempotent;
import jakarta.annotation.Resource;
import jakarta.ejb.MessageDriven;
import jakarta.jms.JMSException;
import jakarta.jms.Message;
import jakarta.jms.MessageListener;
import jakarta.jms.TextMessage;
import jakarta.json.Json;
import jakarta.json.JsonObject;
import java.io.StringReader;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import javax.sql.DataSource;

/**
 * Message-driven bean of {@code JmsKeyOrderIT}, consumer {@code probe-jms-key} on queue {@code it.probe.jms.key}
 * (test server.xml: {@code dead-letter.order=key}, 1 attempt, one message at a time). Each message
 * {@code {"event_id", "key", "seq"}} adds a row to {@code key_order_effect} in the bean's transaction; a message whose
 * event id is in {@code key_order_poison} fails (until the test deletes that row). The tables are the test's.
 */
@MessageDriven(name = "JmsKeyOrderProbe")
public class JmsKeyOrderProbe implements MessageListener {

    @Resource(lookup = "jdbc/billing")
    DataSource dataSource;

    @Override
    @Idempotent(consumer = "probe-jms-key")
    public void onMessage(Message message) {
        try {
            JsonObject event = Json.createReader(new StringReader(((TextMessage) message).getText())).readObject();
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
                    insert.setString(1, "probe-jms-key");
                    insert.setString(2, message.getStringProperty("JMSXGroupID"));
                    insert.setInt(3, event.getInt("seq"));
                    insert.setString(4, eventId);
                    insert.executeUpdate();
                }
            }
        } catch (JMSException | SQLException e) {
            throw new IllegalStateException(e);
        }
    }
}
