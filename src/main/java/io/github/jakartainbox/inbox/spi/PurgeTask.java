package io.github.jakartainbox.inbox.spi;

import java.sql.Connection;
import java.sql.SQLException;

/**
 * More rows for the inbox purge to delete, under its lease and schedule ({@code inbox.purge.schedule}): an
 * application-scoped bean implementing this is called after the inbox's own rows, batch after batch until a batch
 * deletes fewer than asked, each batch in its own transaction.
 */
public interface PurgeTask {

    /** @return a short name for logs */
    String name();

    /**
     * Deletes one batch of expired rows.
     *
     * @param connection the purge's connection, inside the batch's transaction
     * @param batchSize  the most rows to delete ({@code inbox.purge.batch-size})
     * @return the rows deleted
     * @throws SQLException when the database refuses; the run ends and logs INBOX0302E
     */
    int deleteBatch(Connection connection, int batchSize) throws SQLException;
}
