package io.github.jakartainbox.inbox.sqlstate;

import jakarta.transaction.TransactionalException;
import java.lang.reflect.InvocationTargetException;
import java.sql.SQLException;
import java.sql.SQLNonTransientConnectionException;
import java.sql.SQLRecoverableException;
import java.sql.SQLTransientConnectionException;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;

/**
 * How a database error reads, from its exception types and its SQLState (PostgreSQL, "Appendix A. PostgreSQL Error
 * Codes"): the ground under {@code DatabaseFailures} (the API) and {@code failure.FailureKind} (the retry policy's).
 */
public final class SqlStates {

    /** What a SQLState says about trying again. */
    public enum Reading {
        /** The database could not be reached or used at all. */
        OUTAGE,
        /** The statement could succeed if run again a little later. */
        TRANSIENT,
        /** The data cannot be stored as it is. */
        PERMANENT,
        /** A state this does not classify. */
        OTHER
    }

    private SqlStates() {
    }

    /**
     * @param failure what was thrown
     * @return the failure without the wrappers that carry it ({@code TransactionalException}, {@code
     *         CompletionException}, {@code ExecutionException}, {@code InvocationTargetException})
     */
    public static Throwable unwrapped(Throwable failure) {
        Throwable current = failure;
        while ((current instanceof TransactionalException || current instanceof CompletionException
                || current instanceof ExecutionException || current instanceof InvocationTargetException)
                && current.getCause() != null) {
            current = current.getCause();
        }
        return current;
    }

    /**
     * @param failure what was thrown
     * @return whether its cause chain says that no connection could be had, or that the connection was refused or
     *         lost ({@link DatabaseUnavailableException}, the {@code java.sql} connection exception types)
     */
    public static boolean connectionLost(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof DatabaseUnavailableException || t instanceof SQLTransientConnectionException
                    || t instanceof SQLNonTransientConnectionException || t instanceof SQLRecoverableException) {
                return true;
            }
        }
        return false;
    }

    /**
     * @param state a five-character SQLState
     * @return what it says: class 08, 57P01 to 57P03 and 25006 an outage; 40001, 40P01, 55P03, 57014 and class 53
     *         transient; classes 22, 23 and 54 permanent
     */
    public static Reading read(String state) {
        if (state.startsWith("08") || state.equals("57P01") || state.equals("57P02") || state.equals("57P03")
                || state.equals("25006")) {
            return Reading.OUTAGE;
        }
        if (state.equals("40001") || state.equals("40P01") || state.equals("55P03") || state.equals("57014")
                || state.startsWith("53")) {
            return Reading.TRANSIENT;
        }
        if (state.startsWith("22") || state.startsWith("23") || state.startsWith("54")) {
            return Reading.PERMANENT;
        }
        return Reading.OTHER;
    }

    /**
     * @param failure what was thrown
     * @return the SQLState of the first database error in its cause chain (following {@link
     *         SQLException#getNextException()} too), {@code null} when there is none
     */
    public static String of(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof SQLException sql) {
                for (SQLException e = sql; e != null; e = e.getNextException() == e ? null : e.getNextException()) {
                    if (e.getSQLState() != null && e.getSQLState().length() == 5) {
                        return e.getSQLState();
                    }
                }
            }
        }
        return null;
    }
}
