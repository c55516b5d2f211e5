package io.github.jakartainbox.inbox.failure;

import io.github.jakartainbox.inbox.DownstreamUnavailableException;
import io.github.jakartainbox.inbox.UnprocessableEventException;
import io.github.jakartainbox.inbox.sqlstate.SqlStates;

/**
 * What kind of failure made an attempt fail, read from the exception and, for database errors, from the SQLState
 * (PostgreSQL, "Appendix A. PostgreSQL Error Codes"; the split follows Spring's {@code
 * TransientDataAccessException} / {@code NonTransientDataAccessException} families and its SQLState translator).
 */
public enum FailureKind {

    /**
     * The database could not be reached or used at all: no connection could be had ({@link
     * io.github.jakartainbox.inbox.sqlstate.DatabaseUnavailableException}, whatever PostgreSQL's reason), or the
     * connection was refused, lost or terminated (SQLState class 08; 57P01 admin shutdown, 57P02 crash shutdown, 57P03 cannot connect now), or the
     * server takes no writes (25006 read-only SQL transaction: a standby not yet promoted, or a former primary
     * demoted, behind the primary's address during a failover). Says nothing about the event: no attempt is used up
     * and the delivery waits for as long as it takes.
     */
    OUTAGE,

    /**
     * The statement could succeed if run again a little later: 40001 serialization failure, 40P01 deadlock, 55P03
     * lock not available ({@code lock_timeout}), 57014 query canceled ({@code statement_timeout}), class 53
     * insufficient resources. Retried with backoff for as long as the consumer's transient budget allows.
     */
    TRANSIENT,

    /**
     * The event cannot be stored as it is, whatever the number of attempts: class 22 data exception (such as
     * 22021, a U+0000 in text, or 22001, a value too long for its column), class 23 integrity constraint violation
     * on a business table, class 54 program limit exceeded (such as an index row too large), or an {@link
     * UnprocessableEventException} thrown by the method. Dead-lettered at once.
     */
    PERMANENT,

    /**
     * A system the effect needs besides the database is unavailable ({@link DownstreamUnavailableException}): as an
     * outage, no attempt is used up and the delivery waits for as long as it takes.
     */
    UNAVAILABLE,

    /** Anything else (the method threw, a commit failed for another reason): retried up to the attempt limit. */
    OTHER;

    /**
     * @param failure what an attempt threw
     * @return its kind
     */
    public static FailureKind of(Throwable failure) {
        Throwable cause = SqlStates.unwrapped(failure);
        if (cause instanceof UnprocessableEventException) {
            return PERMANENT;
        }
        if (cause instanceof DownstreamUnavailableException) {
            return UNAVAILABLE;
        }
        if (SqlStates.connectionLost(failure)) {
            return OUTAGE;
        }
        String state = sqlState(failure);
        return state == null ? OTHER : ofSqlState(state);
    }

    /**
     * @param state a five-character SQLState
     * @return its kind; {@link #OTHER} for a state this does not classify
     */
    static FailureKind ofSqlState(String state) {
        return valueOf(SqlStates.read(state).name());
    }

    /**
     * @param failure what an attempt threw
     * @return the SQLState of the first database error in its cause chain (following {@link
     *         java.sql.SQLException#getNextException()} too), {@code null} when there is none
     */
    public static String sqlState(Throwable failure) {
        return SqlStates.of(failure);
    }
}
