package io.github.jakartainbox.it;

import io.github.jakartainbox.inbox.spi.PurgeTask;
import jakarta.enterprise.context.ApplicationScoped;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A purge task of the tests (InboxPurgeIT): does nothing, unless a test armed it; then, once, it runs the test's
 * action (a database outage that begins during a purge run) and fails the batch.
 */
@ApplicationScoped
public class OutageDuringPurgeTask implements PurgeTask {

    private static final AtomicReference<Runnable> ARMED = new AtomicReference<>();
    private static volatile boolean struck;

    /** @return whether an armed outage ran to its end (the database then refused connections) */
    static boolean struck() {
        return struck;
    }

    /** @param outage what the next batch runs before it fails */
    static void arm(Runnable outage) {
        ARMED.set(outage);
    }

    /** @return whether the armed outage has not run yet */
    static boolean armed() {
        return ARMED.get() != null;
    }

    @Override
    public String name() {
        return "outage-during-purge (tests)";
    }

    @Override
    public int deleteBatch(Connection connection, int batchSize) throws SQLException {
        Runnable outage = ARMED.getAndSet(null);
        if (outage == null) {
            return 0;
        }
        outage.run();
        struck = true;
        throw new SQLException("the database went away during the purge run (test)", "08006");
    }
}
