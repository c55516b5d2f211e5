package io.github.jakartainbox.inbox;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;

/**
 * The claim: one {@code INSERT ... ON CONFLICT DO NOTHING} through the JTA-enlisted datasource, in the caller's
 * transaction. PostgreSQL decides between racing transactions: an insert that meets an uncommitted row with the
 * same key waits for that transaction; when it commits the insert does nothing (duplicate), when it rolls back
 * the insert proceeds. No unique violation is raised, so the transaction stays usable after a duplicate
 * (PostgreSQL docs, "INSERT ... ON CONFLICT", and "Transaction Isolation", Read Committed).
 */
@ApplicationScoped
class InboxClaim {

    static final String CLAIM_SQL = "INSERT INTO inbox (consumer, event_id, processed_at) VALUES (?, ?, now()) "
            + "ON CONFLICT (consumer, event_id) DO NOTHING";

    @Inject
    InboxDatabase database;
    @Inject
    InboxTransactions transactions;

    /**
     * @param consumer the consumer name
     * @param eventId  the normalized event id
     * @return {@code true} when this transaction now owns the event (process it), {@code false} when the
     *         consumer has already processed it (skip it)
     * @throws SQLException          when the statement fails; the transaction must then roll back
     * @throws IllegalStateException when no JTA transaction is active: an inbox row committed apart from the
     *                               business change would be wrong
     */
    boolean claim(String consumer, String eventId) throws SQLException {
        if (!transactions.isActive()) {
            throw new IllegalStateException("The inbox claim needs an active JTA transaction, so that the inbox row "
                    + "commits or rolls back together with the business change.");
        }
        try (Connection connection = database.dataSource().getConnection();
             PreparedStatement insert = connection.prepareStatement(CLAIM_SQL)) {
            insert.setString(1, consumer);
            insert.setString(2, eventId);
            return insert.executeUpdate() == 1;
        }
    }
}
