package io.github.jakartainbox.outbox;

import io.github.jakartainbox.inbox.spi.PurgeTask;
import jakarta.enterprise.context.ApplicationScoped;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import org.eclipse.microprofile.config.ConfigProvider;

/**
 * Deletes outbox rows delivered (or given up) longer ago than {@value OutboxConfig#RETENTION} (default P7D), as
 * part of the inbox purge; rows taken {@code FOR UPDATE SKIP LOCKED}, so the relay never waits on it.
 */
@ApplicationScoped
public class OutboxPurgeTask implements PurgeTask {

    static final String DELETE_SQL = "DELETE FROM outbox WHERE id = ANY (ARRAY("
            + "SELECT id FROM outbox WHERE delivered_at < now() - make_interval(secs => ?) "
            + "OR given_up_at < now() - make_interval(secs => ?) LIMIT ? FOR UPDATE SKIP LOCKED))";

    @Override
    public String name() {
        return "outbox";
    }

    @Override
    public int deleteBatch(Connection connection, int batchSize) throws SQLException {
        Duration retention = OutboxConfig.RETENTION.get(ConfigProvider.getConfig());
        try (PreparedStatement delete = connection.prepareStatement(DELETE_SQL)) {
            delete.setDouble(1, retention.toMillis() / 1000.0);
            delete.setDouble(2, retention.toMillis() / 1000.0);
            delete.setInt(3, batchSize);
            return delete.executeUpdate();
        }
    }
}
