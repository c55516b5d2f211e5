package io.github.jakartainbox.inbox.failure;

import io.github.jakartainbox.inbox.sqlstate.SqlStates;
import java.sql.SQLException;

/** Classifies what made an attempt fail. */
public final class Failures {

    private Failures() {
    }

    /** @return the exception that explains the failure, without the wrappers added on the way out */
    static Throwable cause(Throwable failure) {
        return SqlStates.unwrapped(failure);
    }

    /**
     * @return a description for logs and the dead-letter table: the class and message of the cause and, when a
     *         database error lies deeper (a constraint violated at commit, wrapped in a RollbackException), that
     *         error's message too; at most 4000 characters, storable in PostgreSQL text
     */
    public static String describe(Throwable failure) {
        Throwable cause = cause(failure);
        StringBuilder text = new StringBuilder(one(cause));
        SQLException database = null;
        for (Throwable t = cause.getCause(); t != null && t != t.getCause(); t = t.getCause()) {
            if (t instanceof SQLException sql) {
                database = sql;
            }
        }
        if (database == null && cause.getCause() != null && !(cause instanceof SQLException)) {
            Throwable root = cause;
            while (root.getCause() != null && root.getCause() != root) {
                root = root.getCause();
            }
            text.append("; caused by ").append(one(root));
        } else if (database != null) {
            text.append("; caused by ").append(one(database));
        }
        return storable(text.length() > MAX_CHARS ? text.substring(0, MAX_CHARS) : text.toString());
    }

    private static final int MAX_CHARS = 4000;

    /** A text that starts with a message id ({@code INBOX0207E: ...}, {@code BILLING0101E: ...}) names itself. */
    private static final java.util.regex.Pattern WITH_ID = java.util.regex.Pattern.compile("^[A-Z]{4,10}\\d{4}[IWE]: .*",
            java.util.regex.Pattern.DOTALL);

    /** @return whether the text starts with a message id ({@code INBOX0207E: ...}) */
    public static boolean namesItself(String text) {
        return text != null && WITH_ID.matcher(text).matches();
    }

    private static String one(Throwable t) {
        if (t.getMessage() == null) {
            return t.getClass().getName();
        }
        // the id leads the dead letter's error text, so that operators can group and search by it
        return WITH_ID.matcher(t.getMessage()).matches() ? t.getMessage() : t.getClass().getName() + ": " + t.getMessage();
    }

    /** @return the text with U+0000, which PostgreSQL text cannot hold, replaced by U+FFFD */
    public static String storable(String text) {
        return text == null || text.indexOf('\0') < 0 ? text : text.replace('\0', '\uFFFD');
    }
}
