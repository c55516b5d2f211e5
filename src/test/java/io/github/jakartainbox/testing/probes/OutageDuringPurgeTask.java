package io.github.jakartainbox.testing.probes;

import io.github.jakartainbox.inbox.retention.InboxPurge;
import io.github.jakartainbox.inbox.spi.PurgeTask;
import io.github.jakartainbox.testing.Db;
import io.github.jakartainbox.testing.Waiting;
import jakarta.enterprise.concurrent.ManagedExecutorService;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.spi.CDI;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import javax.naming.InitialContext;

/**
 * A purge task of the tests (InboxPurgeIT, PurgeLeaseAtStopIT): does nothing, unless a test armed it; then, once,
 * it runs the test's action (a database outage that begins during a purge run) and fails the batch.
 */
@ApplicationScoped
public class OutageDuringPurgeTask implements PurgeTask {

    private static final AtomicReference<Runnable> ARMED = new AtomicReference<>();
    private static volatile boolean struck;

    /** @return whether an armed outage ran to its end (the database then refused connections) */
    private static boolean struck() {
        return struck;
    }

    /** @param outage what the next batch runs before it fails */
    private static void arm(Runnable outage) {
        ARMED.set(outage);
    }

    /** @return whether the armed outage has not run yet */
    private static boolean armed() {
        return ARMED.get() != null;
    }

    /**
     * In the container: starts purge runs (this thread's, or the timer's) until one meets an outage of
     * {@code database} (connections refused, its sessions terminated), then lets connections in again. The run
     * cannot give its lease back: the database refused when it ended. The outage runs on a managed thread of its
     * own: the purge's batch runs in a JTA transaction, which the outage's statements must not join (they would roll
     * back with it).
     *
     * @param database the database the server's inbox datasource uses
     * @return whether a run met the outage
     */
    public static boolean cutAPurgeRunByAnOutage(String database) throws Exception {
        Db admin = Db.adminInContainer();
        Runnable outage = () -> {
            admin.execute("ALTER DATABASE " + database + " ALLOW_CONNECTIONS false");
            admin.number("SELECT count(*) FILTER (WHERE pg_terminate_backend(pid, 10000)) FROM pg_stat_activity "
                    + "WHERE datname = ? AND pid <> pg_backend_pid()", database);
        };
        ManagedExecutorService managed = (ManagedExecutorService) new InitialContext()
                .lookup("java:comp/DefaultManagedExecutorService");
        arm(() -> {
            try {
                managed.submit(outage).get(60, TimeUnit.SECONDS);
            } catch (Exception e) {
                throw new IllegalStateException("the outage could not be started", e);
            }
        });
        InboxPurge purge = CDI.current().select(InboxPurge.class).get();
        try {
            Waiting.reached(Waiting.await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(50)), () -> {
                purge.purgeExpired();
                return !armed();
            });
            return struck();
        } finally {
            admin.execute("ALTER DATABASE " + database + " ALLOW_CONNECTIONS true");
        }
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
