package com.example.payments;

import io.github.jakartainbox.inbox.Idempotent;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.json.Json;
import jakarta.json.JsonObject;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;
import java.io.StringReader;
import org.eclipse.microprofile.reactive.messaging.Incoming;

@ApplicationScoped
public class PaymentConsumer {

    @PersistenceContext
    EntityManager em;

    @Incoming("payments")
    @Idempotent(consumer = "payments")
    public void onPayment(String json) {
        JsonObject payment = Json.createReader(new StringReader(json)).readObject();
        // same transaction as the inbox row: both commit, or neither
        em.persist(new PaymentBooked(payment.getString("event_id"), payment.getString("payment_id")));
    }
}
