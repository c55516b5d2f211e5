package io.github.jakartainbox.inbox.incoming;

import io.github.jakartainbox.inbox.spi.DeliveryOutcome;
import java.time.Duration;
import org.eclipse.microprofile.reactive.messaging.Message;

/**
 * What a connector's message says about its transport's own delivery count, and hears of how the inbox settled it
 * before its acknowledgement: a share group's record ({@code inbox-kafka}, {@code group.type=share}) is rejected
 * after a dead letter instead of accepted, and its redeliveries count as attempts. The connector's message itself
 * implements it (an {@code instanceof}, no exception on the hot path for other messages); a message without it is
 * settled by its acknowledgement alone.
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
     * @param carriers the messages that may carry the delivery (the method's message, the one the connector is
     *                 delivering on this thread), each may be {@code null}
     * @return the first that is a transport settlement, {@code null} when none is (not a share record, no message)
     */
    static TransportSettlement of(Message<?>... carriers) {
        for (Message<?> carrier : carriers) {
            if (carrier instanceof TransportSettlement settlement) {
                return settlement;
            }
        }
        return null;
    }
}
