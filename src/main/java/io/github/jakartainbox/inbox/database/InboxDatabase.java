package io.github.jakartainbox.inbox.database;

import io.github.jakartainbox.inbox.InboxConfig;
import io.github.jakartainbox.inbox.InboxStatistics;
import io.github.jakartainbox.inbox.sqlstate.DatabaseUnavailableException;
import io.github.jakartainbox.inbox.logging.InboxLog;
import io.github.jakartainbox.inbox.logging.InboxMessage;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.context.Initialized;
import jakarta.annotation.Priority;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;
import jakarta.interceptor.Interceptor;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.logging.Level;
import javax.naming.InitialContext;
import javax.naming.NamingException;
import javax.sql.DataSource;
import org.eclipse.microprofile.config.Config;
import org.eclipse.microprofile.config.ConfigProvider;
import org.flywaydb.core.Flyway;
import org.flywaydb.core.api.configuration.FluentConfiguration;
import org.flywaydb.database.postgresql.PostgreSQLConfigurationExtension;

/**
 * The inbox's datasource ({@code inbox.datasource}), looked up once, with its tables created or checked
 * before first use: at application start, and again lazily should a message arrive first.
 */
@ApplicationScoped
public class InboxDatabase implements InboxStatistics.Tables {

    /** The inbox's migrations, under the library's own package path so that the library jar takes them by rule. */
    static final String MIGRATIONS = "classpath:io/github/jakartainbox/inbox/db/migration";
    /** The partitioned mode's migrations ({@code inbox.partitioning=monthly}). */
    static final String MONTHLY_MIGRATIONS = "classpath:io/github/jakartainbox/inbox/db/migration-monthly";
    /** An empty callback location: Flyway fails on a missing one, and the default db/callback is the application's. */
    static final String CALLBACKS = "classpath:io/github/jakartainbox/inbox/db/callback";

    private volatile DataSource dataSource;
    private volatile boolean partitioned;
    /**
     * The datasource's JNDI name and settings, read on the application's thread at start: a connector's thread (a
     * delivery that prepares the tables after an outage at start) may not see the application's configuration.
     */
    private volatile Config startConfig;

    @Inject
    InboxTransactions transactions;

    /** Early, before the messaging connectors start delivering. */
    void onStart(@Observes @Priority(Interceptor.Priority.PLATFORM_BEFORE) @Initialized(ApplicationScoped.class)
                 Object applicationStarted) {
        startConfig = ConfigProvider.getConfig();
        try {
            dataSource();
        } catch (IllegalStateException e) {
            if (!(e.getCause() instanceof DatabaseUnavailableException)) {
                throw e; // misconfigured: the deployment fails, saying what is wrong
            }
            // an outage is no reason to fail the deployment: nothing would start it again once the database is back
            InboxMessage.INBOX0013W.log(InboxConfig.DATASOURCE.get(startConfig),
                    e.getCause().getCause().getMessage());
        }
    }

    /**
     * @return the JTA datasource holding the inbox
     * @throws IllegalStateException when the datasource is not in JNDI or the tables are missing (message
     *                               INBOX0002E or INBOX0003E says what to do), or when it cannot serve a
     *                               two-phase commit or an ON CONFLICT claim (INBOX0800E, INBOX0801E:
     *                               {@link TwoPhaseCheck}); with a {@link DatabaseUnavailableException} as its cause
     *                               when no connection could be had to make or check them (an outage: try again later)
     */
    public DataSource dataSource() {
        DataSource ready = dataSource;
        return ready != null ? ready : prepare();
    }

    /**
     * @return a connection of the inbox datasource (enlisted in the caller's JTA transaction, if any)
     * @throws DatabaseUnavailableException when none can be had, whatever PostgreSQL's reason (down, not accepting
     *                                      connections, too many clients, authentication): never the event's fault
     */
    @Override
    public Connection connection() throws DatabaseUnavailableException {
        DataSource source = dataSource();
        try {
            return source.getConnection();
        } catch (SQLException e) {
            throw new DatabaseUnavailableException(e);
        }
    }

    /** @return whether the inbox is partitioned by month ({@code inbox.partitioning=monthly}) */
    public boolean partitioned() {
        dataSource();
        return partitioned;
    }

    private synchronized DataSource prepare() {
        if (dataSource != null) {
            return dataSource;
        }
        if (transactions.active()) {
            // Flyway commits on its own connection state: it cannot run inside a global transaction
            throw new IllegalStateException(InboxMessage.INBOX0008E.format());
        }
        Config config = startConfig != null ? startConfig : ConfigProvider.getConfig();
        String jndiName = InboxConfig.DATASOURCE.get(config);
        DataSource found;
        try {
            found = (DataSource) new InitialContext().lookup(jndiName);
        } catch (NamingException | ClassCastException e) {
            throw logged(InboxMessage.INBOX0002E.format(jndiName, e.toString()), e);
        }
        try (Connection probe = found.getConnection()) {
            // whatever PostgreSQL's reason (down, not accepting connections, full, authentication): not ready yet
        } catch (SQLException e) {
            throw new IllegalStateException(InboxMessage.INBOX0013W.format(jndiName, e.getMessage()),
                    new DatabaseUnavailableException(e));
        }
        boolean migrate;
        boolean monthly;
        try {
            migrate = InboxConfig.SCHEMA_MIGRATE.get(config);
            monthly = InboxConfig.PARTITIONING.get(config).equals("monthly");
        } catch (IllegalStateException e) {
            throw logged(e.getMessage(), null);
        }
        try {
            if (migrate) {
                flyway(found, monthly).migrate();
                InboxMessage.INBOX0001I.log(jndiName);
            } else {
                try (Connection connection = found.getConnection(); Statement statement = connection.createStatement()) {
                    statement.execute("SELECT consumer, event_id, processed_at FROM inbox WHERE false");
                    statement.execute("SELECT consumer, event_id, payload_ref, error, attempts, deliveries, payload_sha256, "
                            + "redrive_claimed_at, redrive_claimed_by FROM inbox_dead_letter WHERE false");
                    statement.execute("SELECT payload_ref, payload, payload_bytes FROM inbox_dead_letter_payload "
                            + "WHERE false");
                    statement.execute("SELECT last_finished_at FROM inbox_purge_state WHERE false");
                    statement.execute("SELECT consumer_group, topic, kafka_partition, next_offset "
                            + "FROM inbox_kafka_offset WHERE false");
                    if (monthly) {
                        statement.execute("SELECT event_month FROM inbox WHERE false");
                    }
                }
            }
            checkMode(found, monthly);
        } catch (SQLException | RuntimeException e) {
            throw logged(InboxMessage.INBOX0003E.format(jndiName, e.toString()), e);
        }
        List<String> problems;
        try {
            problems = TwoPhaseCheck.check(found, jndiName);
        } catch (SQLException e) {
            throw logged(InboxMessage.INBOX0003E.format(jndiName, e.toString()), e);
        }
        if (!problems.isEmpty()) {
            throw logged(String.join(" ", problems), null);
        }
        partitioned = monthly;
        dataSource = found;
        return found;
    }

    @Override
    public java.util.SortedSet<String> shippedSchemaVersions() {
        java.util.SortedSet<String> versions = new java.util.TreeSet<>();
        for (org.flywaydb.core.api.MigrationInfo migration : flyway(dataSource(), partitioned()).info().all()) {
            if (migration.getVersion() != null && migration.getScript() != null
                    && migration.getScript().endsWith(".sql") && migration.getState().isResolved()) {
                versions.add(migration.getVersion().getVersion());
            }
        }
        return versions;
    }

    /**
     * The inbox's Flyway: its own history table, and a session-level (not transactional) migration lock, because
     * {@code CREATE INDEX CONCURRENTLY} waits for every open transaction, the lock's included.
     *
     * @param dataSource the inbox datasource
     * @param monthly    whether to apply the partitioned-mode migration too
     * @return the configured Flyway
     */
    public static Flyway flyway(DataSource dataSource, boolean monthly) {
        FluentConfiguration configuration = Flyway.configure(InboxDatabase.class.getClassLoader())
                .dataSource(dataSource)
                .locations(monthly ? new String[] {MIGRATIONS, MONTHLY_MIGRATIONS} : new String[] {MIGRATIONS})
                .callbackLocations(CALLBACKS)
                .failOnMissingLocations(true)
                .table("inbox_schema_history")
                // version 8 made the outbox's tables before the outbox had migrations of its own
                .ignoreMigrationPatterns("*:missing", "*:future")
                // V6 ships after V100: a database partitioned before it must still get it
                .outOfOrder(true)
                .baselineOnMigrate(true)
                .baselineVersion("0");
        configuration.getConfigurationExtension(PostgreSQLConfigurationExtension.class).setTransactionalLock(false);
        return configuration.load();
    }

    /** The table's actual shape must match inbox.partitioning, or every claim would fail. */
    private static void checkMode(DataSource dataSource, boolean monthly) throws SQLException {
        try (Connection connection = dataSource.getConnection(); Statement statement = connection.createStatement();
             java.sql.ResultSet rs = statement.executeQuery("SELECT relkind::text FROM pg_class WHERE oid = 'inbox'::regclass")) {
            boolean isPartitioned = rs.next() && "p".equals(rs.getString(1));
            if (isPartitioned != monthly) {
                throw new IllegalStateException(InboxMessage.INBOX0010E.format(
                        isPartitioned ? "partitioned by month" : "not partitioned", monthly ? "monthly" : "none",
                        isPartitioned ? "monthly" : "none"));
            }
        }
    }

    private static IllegalStateException logged(String message, Exception cause) {
        InboxLog.LOG.log(Level.SEVERE, message);
        return new IllegalStateException(message, cause);
    }
}
