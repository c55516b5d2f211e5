package io.github.jakartainbox.inbox.incoming;

import io.github.jakartainbox.inbox.spi.DeliveryOutcome;
import java.time.Duration;
import org.eclipse.microprofile.reactive.messaging.Message;

/**
 * What a connector's message says about its transport's own delivery count, and hears of how the inbox settled it
 * before its acknowledgement: a share group's record ({@code inbox-kafka}, {@code group.type=share}) is rejected
 * after a dead letter instead of accepted, and its redeliveries count as attempts. The inbox reaches it through the
 * carrying message's {@code unwrap}; a message without one is settled by its acknowledgement alone.
 */
public interface TransportSettlement {

    /**
     * Told once, before the message is acknowledged.
     *
     * @param outcome how the inbox settled the delivery: processed, a duplicate, dead-lettered, ...
     */
    void settled(DeliveryOutcome outcome);

    /** @return attempts the transport made before this delivery (a share record's {@code deliveryCount() - 1}) */
    int priorAttempts();

    /**
     * @return the most deliveries the transport makes before it discards the message by itself (a share group's
     *         delivery count limit), {@link Integer#MAX_VALUE} when it keeps none
     */
    int deliveryLimit();

    /**
     * @return how long the transport holds the message for this delivery without renewing it (a share group's
     *         acquisition lock when renewal is off), after which it hands the message out again; {@code null} when
     *         it renews the hold or has none
     */
    Duration unrenewedLock();

    /**
     * @param carrier the message carrying a delivery, may be {@code null}
     * @return its transport's settlement, {@code null} when it has none (not a share record, or no message)
     */
    static TransportSettlement of(Message<?> carrier) {
        if (carrier == null) {
            return null;
        }
        try {
            return carrier.unwrap(TransportSettlement.class);
        } catch (RuntimeException e) {
            return null; // a message of another connector: unwrap refuses the type
        }
    }
}
