package io.github.jakartainbox.outbox;

/** The outbox could not record or read its rows (the database refused or could not be reached). */
public class OutboxException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    /**
     * @param message what failed and what to do
     * @param cause   the database error
     */
    public OutboxException(String message, Throwable cause) {
        super(message, cause);
    }
}
