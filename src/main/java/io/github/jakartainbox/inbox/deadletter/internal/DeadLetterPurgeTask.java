package io.github.jakartainbox.inbox.deadletter.internal;

import io.github.jakartainbox.inbox.InboxConfig;
import io.github.jakartainbox.inbox.spi.PurgeTask;
import jakarta.enterprise.context.ApplicationScoped;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import org.eclipse.microprofile.config.ConfigProvider;

/**
 * Deletes dead letters resolved (re-driven, processed, discarded) longer ago than
 * {@value InboxConfig#DEAD_LETTER_RETENTION_NAME} (default P30D), as part of the inbox purge: their history goes with
 * them (cascade), their payloads when no other dead letter or parked record shares them. Open dead letters, and
 * resolved ones that a key's sequence still refers to, are never deleted. Rows are taken {@code FOR UPDATE SKIP
 * LOCKED}, so an operator's re-drive or discard never waits on the purge.
 *
 * <p>A payload deleted while another delivery stores the same bytes again cannot be lost: the foreign key of
 * {@code payload_ref} fails whichever transaction commits second (that delivery is attempted again; or this batch
 * fails, and the next run tries it again).
 */
@ApplicationScoped
public class DeadLetterPurgeTask implements PurgeTask {

    /** One batch: the resolved rows, then the payloads only they held; answers the dead letters deleted. */
    static final String DELETE_SQL = "WITH gone AS (DELETE FROM inbox_dead_letter d WHERE d.id = ANY (ARRAY("
            + "SELECT x.id FROM inbox_dead_letter x "
            + "WHERE coalesce(x.redriven_at, x.discarded_at) < now() - make_interval(secs => ?) "
            + "AND NOT EXISTS (SELECT 1 FROM inbox_key_sequence s WHERE s.head_dead_letter_id = x.id) "
            + "AND NOT EXISTS (SELECT 1 FROM inbox_parked p WHERE p.dead_letter_id = x.id) "
            + "LIMIT ? FOR UPDATE SKIP LOCKED)) RETURNING d.id, d.payload_ref), "
            + "freed AS (DELETE FROM inbox_dead_letter_payload p "
            + "WHERE p.payload_ref IN (SELECT payload_ref FROM gone WHERE payload_ref IS NOT NULL) "
            + "AND NOT EXISTS (SELECT 1 FROM inbox_dead_letter d WHERE d.payload_ref = p.payload_ref "
            + "AND d.id NOT IN (SELECT id FROM gone)) "
            + "AND NOT EXISTS (SELECT 1 FROM inbox_parked k WHERE k.payload_ref = p.payload_ref) RETURNING 1) "
            + "SELECT (SELECT count(*) FROM gone), (SELECT count(*) FROM freed)";

    @Override
    public String name() {
        return "dead letters";
    }

    @Override
    public int deleteBatch(Connection connection, int batchSize) throws SQLException {
        return deleteBatch(connection, InboxConfig.DEAD_LETTER_RETENTION.get(ConfigProvider.getConfig()), batchSize);
    }

    /**
     * @param retention resolved longer ago than this (by the database's clock): deleted
     * @return the dead letters deleted
     */
    static int deleteBatch(Connection connection, Duration retention, int batchSize) throws SQLException {
        try (PreparedStatement delete = connection.prepareStatement(DELETE_SQL)) {
            delete.setDouble(1, retention.toMillis() / 1000.0);
            delete.setInt(2, batchSize);
            try (ResultSet rs = delete.executeQuery()) {
                rs.next();
                return rs.getInt(1);
            }
        }
    }
}
