package com.example.payments;

import io.github.jakartainbox.inbox.Idempotent;
import jakarta.annotation.Resource;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.json.Json;
import jakarta.json.JsonObject;
import java.io.StringReader;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import javax.sql.DataSource;
import org.eclipse.microprofile.reactive.messaging.Incoming;

/**
 * Another team's consumer, built on the inbox's coordinates alone (AdopterIT): each payment event books one row in the
 * team's own table, in the transaction the inbox begins.
 */
@ApplicationScoped
public class PaymentConsumer {

    @Resource(lookup = "jdbc/payments")
    DataSource payments;

    @Incoming("payments")
    @Idempotent(consumer = "payments")
    public void onPayment(String json) throws SQLException {
        JsonObject payment = Json.createReader(new StringReader(json)).readObject();
        try (Connection connection = payments.getConnection();
             PreparedStatement insert = connection.prepareStatement(
                     "INSERT INTO payment_booked (event_id, payment_id) VALUES (?, ?)")) {
            insert.setString(1, payment.getString("event_id"));
            insert.setString(2, payment.getString("payment_id"));
            insert.executeUpdate();
        }
    }
}
