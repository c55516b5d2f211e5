package io.github.jakartainbox.inbox;

/**
 * Thrown by an idempotent consumer when a system its effect needs besides the database (an SMTP server, an HTTP
 * API) is unavailable as a whole: no connection, a refused or reset connection, a reply that says the service is
 * not available (SMTP 421). The event is not at fault, so the inbox treats it as it treats a database outage: the
 * attempt's transaction rolls back, no attempt is used up, and the delivery is tried again after a wait that backs
 * off from {@code inbox.consumer.<name>.retry.delay} up to {@code retry.max-delay}, for as long as it takes
 * ({@code INBOX0227W} each time). The partition waits meanwhile, which is right when nothing of it could be done.
 *
 * <p>Throw {@link UnprocessableEventException} instead when the downstream system refused this event for good (an
 * SMTP 5xx reply to its recipient), and any other exception when this event failed for a reason that may pass (an
 * SMTP 4xx reply to its recipient): those use up attempts ({@code retry.max-attempts}) and end in a dead letter, so
 * that one event does not hold up the others for ever.
 */
public class DownstreamUnavailableException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    /**
     * @param reason which system is unavailable and why, as its client reported it; logged with each wait
     * @param cause  the client's exception, {@code null} when there is none
     */
    public DownstreamUnavailableException(String reason, Throwable cause) {
        super(reason, cause);
    }
}
