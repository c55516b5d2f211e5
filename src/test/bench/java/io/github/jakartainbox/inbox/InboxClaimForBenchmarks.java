package io.github.jakartainbox.inbox;

import java.sql.Connection;
import java.sql.SQLException;
import javax.sql.DataSource;

/**
 * The claim's statements for the benchmarks in package {@code io.github.jakartainbox.bench}, which run outside a
 * container: {@link InboxClaim#claim} itself needs CDI and an active JTA transaction, so this runs its statements
 * ({@link InboxClaim#claimOn}) on a connection whose transaction the caller owns.
 */
public final class InboxClaimForBenchmarks {

    private InboxClaimForBenchmarks() {
    }

    /** Creates the inbox tables with the library's own Flyway migrations (plain mode). */
    public static void migrate(DataSource dataSource) {
        InboxDatabase.flyway(dataSource, false).migrate();
    }

    /** @return the claim statement, as the library runs it in plain mode */
    public static String claimSql() {
        return InboxClaim.CLAIM_SQL;
    }

    /**
     * @return {@code true} for a new event; {@code false} for a duplicate (same fingerprint, or none stored)
     * @throws IllegalStateException when the stored fingerprint differs (the library would dead-letter the event)
     */
    public static boolean claim(Connection connection, String consumer, String eventId, byte[] fingerprint)
            throws SQLException {
        InboxClaim.Result result = InboxClaim.claimOn(connection, consumer, eventId, fingerprint, null);
        if (result == InboxClaim.Result.CONFLICTING_PAYLOAD) {
            throw new IllegalStateException("conflicting payload for " + eventId);
        }
        return result == InboxClaim.Result.NEW;
    }
}
