package io.github.jakartainbox.inbox.deadletter.internal;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;

/**
 * The statements of table {@code inbox_dead_letter_history} (schema version 11): one entry per failed delivery into a
 * dead letter, per re-drive and per discard, the newest {@link #LIMIT} kept per dead letter.
 */
public final class DeadLetterHistory {

    /** How many entries a dead letter keeps, the newest ({@code InboxDeadLetters.HISTORY_LIMIT}). */
    public static final int LIMIT = 50;

    /** The longest error text an entry keeps: the row itself keeps the last one in full (up to 4000). */
    public static final int MAX_ERROR_CHARS = 500;

    /** Deletes a dead letter's entries older than its newest {@link #LIMIT}. */
    public static final String TRIM_SQL = "DELETE FROM inbox_dead_letter_history WHERE dead_letter_id = ? AND id < ("
            + "SELECT min(id) FROM (SELECT id FROM inbox_dead_letter_history WHERE dead_letter_id = ? "
            + "ORDER BY id DESC LIMIT " + LIMIT + ") newest)";

    private DeadLetterHistory() {
    }

    /**
     * Keeps the newest {@link #LIMIT} entries of a dead letter, on the caller's connection.
     *
     * @param connection   the connection that just added an entry
     * @param deadLetterId the dead letter's id
     * @throws SQLException when the delete fails
     */
    public static void trim(Connection connection, long deadLetterId) throws SQLException {
        try (PreparedStatement delete = connection.prepareStatement(TRIM_SQL)) {
            delete.setLong(1, deadLetterId);
            delete.setLong(2, deadLetterId);
            delete.executeUpdate();
        }
    }

    /** @return the error cut to {@link #MAX_ERROR_CHARS} characters */
    public static String shortError(String error) {
        return error == null || error.length() <= MAX_ERROR_CHARS ? error : error.substring(0, MAX_ERROR_CHARS);
    }
}
