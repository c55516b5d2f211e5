package io.github.jakartainbox.inbox.claim;

import io.github.jakartainbox.inbox.database.InboxDatabase;
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

    /**
     * A group's claim as the grouped delivery runs it ({@link InboxClaim#claimAllOn}), every event with the same
     * fingerprint.
     *
     * @return how many of the events were new
     * @throws IllegalStateException when a stored fingerprint differs (the library would dead-letter that event)
     */
    public static int claimAll(Connection connection, String consumer, String[] eventIds, byte[] fingerprint)
            throws SQLException {
        java.util.List<InboxClaim.Claim> claims = java.util.Arrays.stream(eventIds)
                .map(id -> new InboxClaim.Claim(id, fingerprint, null)).toList();
        int claimed = 0;
        InboxClaim.Result[] results = InboxClaim.claimAllOn(connection, consumer, claims);
        for (int i = 0; i < results.length; i++) {
            if (results[i] == InboxClaim.Result.CONFLICTING_PAYLOAD) {
                throw new IllegalStateException("conflicting payload for " + eventIds[i]);
            }
            claimed += results[i] == InboxClaim.Result.NEW ? 1 : 0;
        }
        return claimed;
    }
}
