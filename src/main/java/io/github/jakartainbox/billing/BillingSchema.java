package io.github.jakartainbox.billing;

import jakarta.annotation.Priority;
import jakarta.annotation.Resource;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.context.Initialized;
import jakarta.enterprise.event.Observes;
import jakarta.interceptor.Interceptor;
import jakarta.transaction.Status;
import jakarta.transaction.TransactionSynchronizationRegistry;
import javax.sql.DataSource;
import org.flywaydb.core.Flyway;

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

    private volatile boolean migrated;

    /** Early, before the messaging connectors start delivering. */
    void onStart(@Observes @Priority(Interceptor.Priority.PLATFORM_BEFORE) @Initialized(ApplicationScoped.class)
                 Object applicationStarted) {
        migrate();
    }

    /**
     * Returns once the tables exist. Consumers call it inside their transaction, where Flyway cannot run, so
     * there it waits (up to a minute) for the migration the start event runs.
     *
     * @throws IllegalStateException when the tables are still not there after a minute; the attempt is retried
     */
    public void ensureMigrated() {
        if (migrated) {
            return;
        }
        if (transactions.getTransactionStatus() == Status.STATUS_NO_TRANSACTION) {
            migrate();
            return;
        }
        for (int i = 0; i < 600 && !migrated; i++) {
            try {
                Thread.sleep(100);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        if (!migrated) {
            throw new IllegalStateException(BillingMessage.BILLING0205E.format());
        }
    }

    private synchronized void migrate() {
        if (migrated) {
            return;
        }
        Flyway.configure(BillingSchema.class.getClassLoader())
                .dataSource(dataSource)
                .locations("classpath:db/billing")
                .failOnMissingLocations(true)
                .table("billing_schema_history")
                .baselineOnMigrate(true)
                .baselineVersion("0")
                .load()
                .migrate();
        migrated = true;
    }
}
