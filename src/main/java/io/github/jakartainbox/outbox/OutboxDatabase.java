package io.github.jakartainbox.outbox;

import io.github.jakartainbox.inbox.DatabaseFailures;
import io.github.jakartainbox.inbox.InboxConfig;
import jakarta.annotation.Priority;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.context.Initialized;
import jakarta.enterprise.event.Observes;
import jakarta.interceptor.Interceptor;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import javax.naming.InitialContext;
import javax.naming.NamingException;
import javax.sql.DataSource;
import org.eclipse.microprofile.config.Config;
import org.eclipse.microprofile.config.ConfigProvider;
import org.flywaydb.core.Flyway;
import org.flywaydb.core.api.configuration.FluentConfiguration;
import org.flywaydb.database.postgresql.PostgreSQLConfigurationExtension;

/**
 * The datasource the outbox writes through: the inbox's ({@code inbox.datasource}, default {@code jdbc/inbox}), so
 * that the outbox row, the inbox row and the business change share one connection and commit in one phase. Its
 * tables are the outbox's own: made or checked by its Flyway migrations ({@code io/github/jakartainbox/outbox/db/
 * migration}, history table {@code outbox_schema_history}) at application start, as {@code inbox.schema.migrate}
 * says for the inbox's, so that an application with the inbox jar alone gets no outbox tables.
 */
@ApplicationScoped
class OutboxDatabase {

    /** The outbox's migrations, under its own package path so that the outbox jar takes them by rule. */
    static final String MIGRATIONS = "classpath:io/github/jakartainbox/outbox/db/migration";
    /** An empty callback location: Flyway fails on a missing one, and the default db/callback is the application's. */
    static final String CALLBACKS = "classpath:io/github/jakartainbox/outbox/db/callback";

    private volatile DataSource dataSource;
    private volatile boolean tablesReady;

    /**
     * Early, before the relay starts and the messaging connectors deliver: the tables made or checked. A database
     * that gives no connection, whatever the reason (down, full, a wrong password), does not fail the start, as it
     * does not fail the inbox's (INBOX0013W): the relay makes them at its first poll that reaches it, and readiness
     * says DOWN meanwhile. A schema that cannot be made or is wrong does fail it.
     */
    void onStart(@Observes @Priority(Interceptor.Priority.PLATFORM_BEFORE) @Initialized(ApplicationScoped.class)
                 Object applicationStarted) {
        try (Connection probe = dataSource().getConnection()) {
            probe.isValid(1);
        } catch (SQLException e) {
            OutboxMessage.OUTBOX0203W.log(e.toString());
            return;
        }
        try {
            tables();
        } catch (IllegalStateException e) {
            if (!DatabaseFailures.unavailable(e.getCause())) {
                throw e;
            }
            OutboxMessage.OUTBOX0203W.log(e.getCause().toString());
        }
    }

    /**
     * @return the inbox datasource
     * @throws IllegalStateException when it is not in JNDI (OUTBOX0002E says what to do)
     */
    DataSource dataSource() {
        DataSource ready = dataSource;
        if (ready != null) {
            return ready;
        }
        // the inbox's key (docs/configuration.md, "Inbox keys"): one datasource for the inbox, the outbox and the business tables
        String jndiName = InboxConfig.DATASOURCE.find(ConfigProvider.getConfig()).orElseThrow();
        try {
            ready = (DataSource) new InitialContext().lookup(jndiName);
        } catch (NamingException | ClassCastException e) {
            throw new IllegalStateException(OutboxMessage.OUTBOX0002E.format(jndiName, e.toString()), e);
        }
        dataSource = ready;
        return ready;
    }

    /**
     * Makes or checks the outbox's tables, once; outside any transaction (Flyway commits on its own).
     *
     * @throws IllegalStateException (OUTBOX0009E) when they cannot be made or are not there; its cause is the
     *                               database's failure, which {@link DatabaseFailures#unavailable} tells from a
     *                               wrong schema
     */
    synchronized void tables() {
        if (tablesReady) {
            return;
        }
        Config config = ConfigProvider.getConfig();
        String jndiName = InboxConfig.DATASOURCE.get(config);
        DataSource source = dataSource();
        try {
            if (InboxConfig.SCHEMA_MIGRATE.get(config)) {
                flyway(source).migrate();
                OutboxMessage.OUTBOX0008I.log(jndiName);
            } else {
                try (Connection connection = source.getConnection(); Statement statement = connection.createStatement()) {
                    statement.execute("SELECT id, event_id, topic, delivered_at, given_up_at FROM outbox WHERE false");
                    statement.execute("SELECT id, owner, leased_until FROM outbox_relay_state WHERE false");
                }
            }
        } catch (SQLException | RuntimeException e) {
            Throwable cause = e instanceof org.flywaydb.core.api.FlywayException && e.getCause() != null
                    ? e.getCause() : e;
            throw new IllegalStateException(OutboxMessage.OUTBOX0009E.format(jndiName, e.toString()),
                    cause);
        }
        tablesReady = true;
    }

    /**
     * @param dataSource the inbox datasource
     * @return the outbox's Flyway: its own history table and migrations, the session-level lock the inbox's uses
     */
    static Flyway flyway(DataSource dataSource) {
        FluentConfiguration configuration = Flyway.configure(OutboxDatabase.class.getClassLoader())
                .dataSource(dataSource)
                .locations(MIGRATIONS)
                .callbackLocations(CALLBACKS)
                .failOnMissingLocations(true)
                .table("outbox_schema_history")
                .baselineOnMigrate(true)
                .baselineVersion("0");
        configuration.getConfigurationExtension(PostgreSQLConfigurationExtension.class).setTransactionalLock(false);
        return configuration.load();
    }
}
