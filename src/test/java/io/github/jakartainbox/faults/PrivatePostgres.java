package io.github.jakartainbox.faults;

import io.github.jakartainbox.testing.Db;
import io.github.jakartainbox.testing.LocalPostgres;
import java.io.IOException;
import java.nio.file.Path;
import java.sql.SQLException;
import java.time.Duration;

/**
 * The fault suite's own PostgreSQL cluster, made fresh by {@code initdb} for each suite run on 127.0.0.1:{@value
 * #PORT} (trust authentication), so that restarting it or killing its connections never disturbs the machine's
 * PostgreSQL on 5432. Its files live in {@code /var/tmp/jakarta-inbox-faults} ({@code -Dfaults.pg.dir}
 * overrides), its binaries those of {@code -Dfaults.pg.bin} or the machine's ({@link LocalPostgres}).
 */
final class PrivatePostgres {

    static final int PORT = 15432;
    private static final String SETTINGS = "max_connections=100";

    private final LocalPostgres cluster;

    /** The suite's primary, in {@code <dir>/data}. */
    PrivatePostgres() {
        this(new LocalPostgres(Path.of(System.getProperty("faults.pg.dir", "/var/tmp/jakarta-inbox-faults")), "data",
                PORT, "faults.pg.bin"));
    }

    private PrivatePostgres(LocalPostgres cluster) {
        this.cluster = cluster;
    }

    /** Stops what a crashed earlier run left, makes a new cluster and starts it. */
    void start() throws IOException, InterruptedException {
        cluster.create("the fault suite");
        cluster.start(SETTINGS);
    }

    /** Stops the server and starts it again after {@code down}: every connection breaks, nothing answers meanwhile. */
    void restart(Duration down) throws IOException, InterruptedException {
        cluster.stop();
        Thread.sleep(down.toMillis());
        cluster.start(SETTINGS);
    }

    /** Stops the server if it runs (fast shutdown: connections are closed, transactions roll back). */
    void stop() throws IOException, InterruptedException {
        cluster.stop();
    }

    /**
     * Ends every connection to the database but the caller's, as {@code pg_terminate_backend} does to a service
     * whose connections an operator or a failover kills.
     *
     * @return how many were ended
     */
    long terminateConnections(String database) {
        return db("postgres").number("SELECT count(*) FILTER (WHERE pg_terminate_backend(pid)) FROM pg_stat_activity "
                + "WHERE datname = ? AND pid <> pg_backend_pid()", database);
    }

    /** Creates the database afresh. */
    void recreate(String database) throws SQLException {
        Db.recreate(PORT, database);
    }

    /** @return JDBC access to one database of this cluster */
    Db db(String database) {
        return Db.overJdbc(cluster.port(), database);
    }

    /**
     * Makes a streaming standby of this cluster ({@code pg_basebackup -R}, asynchronous unless {@link
     * #synchronousStandby}) in {@code <dir>/<directory>} and starts it on {@code port}.
     *
     * @return the standby, running
     */
    PrivatePostgres standby(String directory, int port) throws IOException, InterruptedException {
        LocalPostgres standby = cluster.sibling(directory, port);
        cluster.baseBackup(standby);
        standby.start(SETTINGS);
        return new PrivatePostgres(standby);
    }

    /**
     * Makes every commit wait until a standby has it ({@code synchronous_standby_names = '*'},
     * {@code synchronous_commit = on}), or no longer.
     */
    void synchronousStandby(boolean on) {
        Db db = db("postgres");
        db.execute("ALTER SYSTEM SET synchronous_standby_names = '" + (on ? "*" : "") + "'");
        db.execute("ALTER SYSTEM SET synchronous_commit = on");
        db.execute("SELECT pg_reload_conf()");
    }

    /**
     * Ends the server as a crash does: {@code kill -9} of the postmaster and every process it started; what it did
     * not send to a standby is gone with it. Its files are deleted.
     */
    void kill() throws IOException, InterruptedException {
        cluster.kill();
    }

    /**
     * Promotes this standby in the place of a primary that is gone: stopped if it runs, started on {@link #PORT}
     * with no primary to stream from (it replays the WAL it has), left there as a read-only hot standby for {@code
     * readOnly}, then {@code pg_ctl promote}. The read-only time is what clients see when the primary's address
     * reaches a replica before the failover manager promotes it: connections work, every write fails with SQLState
     * 25006.
     *
     * @param readOnly how long the standby serves read-only on {@link #PORT} before its promotion
     */
    void promoteInPlaceOfPrimary(Duration readOnly) throws IOException, InterruptedException {
        cluster.stop();
        cluster.detach(PORT);
        cluster.start(SETTINGS);
        Thread.sleep(readOnly.toMillis());
        cluster.promote();
    }
}
