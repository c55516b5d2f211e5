package io.github.jakartainbox.inbox;

/**
 * Thrown by an idempotent consumer (or by the inbox itself) when an event can never be processed, whatever the
 * number of attempts: a malformed payload, a missing or invalid event id, a value outside the domain. The
 * inbox does not retry it: the transaction rolls back, the event goes straight to the dead-letter table with
 * this exception's message as the reason, and the message is acknowledged so the channel goes on.
 *
 * <p>Throw it only for permanent faults. A transient fault (a lock timeout, a lost connection) should surface
 * as any other exception, so that the configured retries apply.
 */
public class UnprocessableEventException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    /**
     * @param reason what is wrong with the event and, where it helps, what the producer should send instead;
     *               stored in the dead-letter table
     */
    public UnprocessableEventException(String reason) {
        super(reason);
    }

    /**
     * @param reason what is wrong with the event; stored in the dead-letter table
     * @param cause  the underlying parse or validation error
     */
    public UnprocessableEventException(String reason, Throwable cause) {
        super(reason, cause);
    }
}
