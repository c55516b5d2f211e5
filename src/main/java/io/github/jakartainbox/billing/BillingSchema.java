package io.github.jakartainbox.billing;

import jakarta.annotation.Priority;
import jakarta.annotation.Resource;
import jakarta.enterprise.concurrent.ManagedExecutorService;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.context.Initialized;
import jakarta.enterprise.event.Observes;
import jakarta.interceptor.Interceptor;
import jakarta.transaction.Status;
import jakarta.transaction.TransactionSynchronizationRegistry;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import javax.sql.DataSource;
import org.flywaydb.core.Flyway;
import org.flywaydb.core.api.configuration.FluentConfiguration;

/**
 * The billing tables (db/billing/*.sql), created or upgraded by Flyway at application start, before the
 * consumers touch them (history table {@code billing_schema_history}).
 */
@ApplicationScoped
public class BillingSchema {

    @Resource(lookup = "jdbc/billing")
    DataSource dataSource;
    @Resource
    TransactionSynchronizationRegistry transactions;
    /** runs the migration apart from a consumer's transaction (a thread of its own has none) */
    @Resource
    ManagedExecutorService executor;

    private volatile boolean migrated;

    /** Early, before the messaging connectors start delivering. */
    void onStart(@Observes @Priority(Interceptor.Priority.PLATFORM_BEFORE) @Initialized(ApplicationScoped.class)
                 Object applicationStarted) {
        try (Connection probe = dataSource.getConnection()) {
            // the database answers: migrate now, and let a failed migration fail the deployment
        } catch (SQLException e) {
            // an outage: start anyway; the first consumer to need the tables migrates them (ensureMigrated)
            BillingMessage.BILLING0212W.log(e.getMessage());
            return;
        }
        migrate();
    }

    /**
     * Returns once the tables exist. Consumers call it inside their transaction, where Flyway cannot run, so
     * there the migration (the start event's, or a new one when the database was down at start) runs on a managed
     * thread of its own, and this waits for it up to a minute.
     *
     * @throws IllegalStateException when the tables are still not there after a minute, or the migration failed
     *                               (its cause); the attempt is retried
     */
    public void ensureMigrated() {
        if (migrated) {
            return;
        }
        if (transactions.getTransactionStatus() == Status.STATUS_NO_TRANSACTION) {
            migrate();
            return;
        }
        try {
            executor.submit(this::migrate).get(1, TimeUnit.MINUTES);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(BillingMessage.BILLING0205E.format(), e);
        } catch (ExecutionException | TimeoutException e) {
            throw new IllegalStateException(BillingMessage.BILLING0205E.format(), e.getCause() == null ? e : e.getCause());
        }
    }

    private synchronized void migrate() {
        if (migrated) {
            return;
        }
        flyway(dataSource).load().migrate();
        migrated = true;
    }

    /** The billing tables' Flyway configuration on {@code dataSource} (also used by tests). */
    public static FluentConfiguration flyway(DataSource dataSource) {
        return Flyway.configure(BillingSchema.class.getClassLoader())
                .dataSource(dataSource)
                .locations("classpath:db/billing")
                .failOnMissingLocations(true)
                .table("billing_schema_history")
                .baselineOnMigrate(true)
                .baselineVersion("0");
    }
}
