package io.github.jakartainbox.inbox;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Arrays;
import javax.sql.DataSource;

/**
 * The claim's statements for the benchmarks in package {@code io.github.jakartainbox.bench}, which run outside a
 * container: {@link InboxClaim#claim} itself needs CDI and an active JTA transaction, so this runs the same
 * statements in the same order on a connection whose transaction the caller owns ({@link InboxClaim#insert}, then,
 * only when nothing was inserted, {@link InboxClaim#FINGERPRINT_SQL}).
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
        if (InboxClaim.insert(connection, consumer, eventId, fingerprint, null)) {
            return true;
        }
        try (PreparedStatement select = connection.prepareStatement(InboxClaim.FINGERPRINT_SQL)) {
            select.setString(1, consumer);
            select.setString(2, eventId);
            try (ResultSet row = select.executeQuery()) {
                byte[] stored = row.next() ? row.getBytes(1) : null;
                if (fingerprint != null && stored != null && !Arrays.equals(stored, fingerprint)) {
                    throw new IllegalStateException("conflicting payload for " + eventId);
                }
                return false;
            }
        }
    }
}
