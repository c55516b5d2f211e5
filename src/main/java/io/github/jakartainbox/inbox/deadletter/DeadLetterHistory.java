package io.github.jakartainbox.inbox.deadletter;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;

/**
 * The statements of table {@code inbox_dead_letter_history} (schema version 11): one entry per failed delivery into a
 * dead letter, per re-drive and per discard, the newest {@link InboxDeadLetters#HISTORY_LIMIT} kept per dead letter.
 */
final class DeadLetterHistory {

    /** The longest error text an entry keeps: the row itself keeps the last one in full (up to 4000). */
    static final int MAX_ERROR_CHARS = 500;

    /** Deletes a dead letter's entries older than its newest {@link InboxDeadLetters#HISTORY_LIMIT}. */
    static final String TRIM_SQL = "DELETE FROM inbox_dead_letter_history WHERE dead_letter_id = ? AND id < ("
            + "SELECT min(id) FROM (SELECT id FROM inbox_dead_letter_history WHERE dead_letter_id = ? "
            + "ORDER BY id DESC LIMIT " + InboxDeadLetters.HISTORY_LIMIT + ") newest)";

    private DeadLetterHistory() {
    }

    /**
     * Keeps the newest {@link InboxDeadLetters#HISTORY_LIMIT} entries of a dead letter, on the caller's connection.
     *
     * @param connection   the connection that just added an entry
     * @param deadLetterId the dead letter's id
     * @throws SQLException when the delete fails
     */
    static void trim(Connection connection, long deadLetterId) throws SQLException {
        try (PreparedStatement delete = connection.prepareStatement(TRIM_SQL)) {
            delete.setLong(1, deadLetterId);
            delete.setLong(2, deadLetterId);
            delete.executeUpdate();
        }
    }

    /** @return the error cut to {@link #MAX_ERROR_CHARS} characters */
    static String shortError(String error) {
        return error == null || error.length() <= MAX_ERROR_CHARS ? error : error.substring(0, MAX_ERROR_CHARS);
    }
}
