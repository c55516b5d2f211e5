package io.github.jakartainbox.inbox.spi;

/**
 * What the inbox reports about one delivery while it handles it; the OpenTelemetry span of the delivery, or
 * {@link #NONE}. Not an API for applications: the inbox calls it, on the delivering thread, in this order:
 * {@link #eventId}, any number of {@link #retry}, at most one {@link #outcome}, then {@link #end} exactly once.
 */
public interface DeliverySpan {

    /** Reports nothing; what the inbox uses when tracing is off. It holds no state, so it is shared. */
    DeliverySpan NONE = new DeliverySpan() {
    };

    /** @param eventId the delivery's event id, once it is read */
    default void eventId(String eventId) {
    }

    /**
     * @param attempt the attempt that failed, from 1 (0 for a wait that used up no attempt: the database was away)
     * @param failure why it failed; the attempt is retried
     */
    default void retry(int attempt, Throwable failure) {
    }

    /**
     * @param outcome how the delivery ended
     * @param cause   the failure behind a dead letter or a failure that left the inbox, else {@code null}
     */
    default void outcome(DeliveryOutcome outcome, Throwable cause) {
    }

    /** Ends the span and restores the thread's previous trace context. */
    default void end() {
    }
}
