package io.github.jakartainbox.inbox;

import io.github.jakartainbox.inbox.sqlstate.SqlStates;

/**
 * How the inbox reads a database failure, for application code that wants to answer the same way (for example a
 * REST endpoint that should answer 503 rather than 500 while the database is away).
 */
public final class DatabaseFailures {

    private DatabaseFailures() {
    }

    /**
     * Whether a failure means that the database cannot be used right now, so that trying again later can succeed:
     * no connection could be had, the connection was refused, lost or terminated, or the database does not accept
     * connections (SQLState class 08, 57P01 to 57P03, 55000 with no connection, {@code java.sql} connection exception
     * types, the inbox's own no-connection failure), the server takes no writes (25006, a standby behind the
     * primary's address during a failover), or the server is short of resources or the statement waited too
     * long (class 53, 55P03, 57014, 40001, 40P01). The SQLStates are PostgreSQL's ("Appendix A. PostgreSQL Error
     * Codes"); the cause chain is followed, and each {@link java.sql.SQLException#getNextException()} too.
     *
     * @param failure what was thrown; {@code null} gives {@code false}
     * @return {@code true} when the failure says the database is unavailable or overloaded, not that the request or
     *         the data is wrong
     */
    public static boolean unavailable(Throwable failure) {
        if (failure == null) {
            return false;
        }
        Throwable cause = SqlStates.unwrapped(failure);
        boolean declared = cause instanceof UnprocessableEventException || cause instanceof DownstreamUnavailableException;
        String state = SqlStates.of(failure);
        SqlStates.Reading reading = state == null ? SqlStates.Reading.OTHER : SqlStates.read(state);
        return !declared && (SqlStates.connectionLost(failure) || reading == SqlStates.Reading.OUTAGE
                || reading == SqlStates.Reading.TRANSIENT)
                || "55000".equals(state); // "database ... is not currently accepting connections"
    }
}
