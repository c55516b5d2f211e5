package io.github.jakartainbox.billing;

import jakarta.annotation.Resource;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.context.Initialized;
import jakarta.enterprise.event.Observes;
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

    private volatile boolean migrated;

    void onStart(@Observes @Initialized(ApplicationScoped.class) Object applicationStarted) {
        ensureMigrated();
    }

    /** Migrates once; cheap afterwards. Consumers call it in case a message arrives before the start event. */
    public void ensureMigrated() {
        if (!migrated) {
            migrate();
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
