package io.github.jakartainbox.inbox;


/**
 * The event id of a delivery is missing, blank, too long or otherwise unusable (see {@code EventIds} for the
 * rules). Such a delivery is never processed and never deduplicated against another one: it is dead-lettered
 * with this message as the reason and acknowledged.
 */
public class InvalidEventIdException extends UnprocessableEventException {

    private static final long serialVersionUID = 1L;

    /**
     * @param reason what is wrong with the event id and where it was looked for
     */
    public InvalidEventIdException(String reason) {
        super(reason);
    }
}
