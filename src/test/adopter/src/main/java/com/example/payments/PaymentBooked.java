package com.example.payments;

import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.GeneratedValue;
import jakarta.persistence.GenerationType;
import jakarta.persistence.Id;
import jakarta.persistence.Table;

/** One booked payment: the team's own table, written in the transaction the inbox begins. */
@Entity
@Table(name = "payment_booked")
public class PaymentBooked {

    @Id
    @GeneratedValue(strategy = GenerationType.IDENTITY)
    Long id;
    @Column(name = "event_id", nullable = false)
    String eventId;
    @Column(name = "payment_id", nullable = false)
    String paymentId;

    protected PaymentBooked() {
    }

    public PaymentBooked(String eventId, String paymentId) {
        this.eventId = eventId;
        this.paymentId = paymentId;
    }
}
