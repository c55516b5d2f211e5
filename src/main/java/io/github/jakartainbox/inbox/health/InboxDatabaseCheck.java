package io.github.jakartainbox.inbox.health;

import io.github.jakartainbox.inbox.InboxConfig;
import io.github.jakartainbox.inbox.InboxStatistics;
import io.github.jakartainbox.inbox.retention.InboxPurge;
import io.github.jakartainbox.inbox.retention.RetentionCheck;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.util.Arrays;
import java.util.Set;
import java.util.TreeSet;
import javax.naming.InitialContext;
import javax.naming.NamingException;
import javax.sql.DataSource;
import org.eclipse.microprofile.config.Config;
import org.eclipse.microprofile.config.ConfigProvider;
import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.HealthCheckResponseBuilder;
import org.eclipse.microprofile.health.Readiness;

/**
 * Readiness check {@value #NAME}: the inbox datasource answers, takes writes, and the inbox schema holds every
 * migration this application ships ({@code db/inbox}, plus {@code db/inbox-monthly} with
 * {@code inbox.partitioning=monthly}; history table {@code inbox_schema_history}). DOWN while PostgreSQL is down or
 * refuses writes (read-only, {@code HEALTH0003E}): consumers cannot claim events then, and wait. There is no liveness check on the database: a restart would not bring it back.
 *
 * <p>Data, for operators: {@code purge-overdue} (and the last success and error; {@code purge-last-run}
 * {@value #NOT_RUN_YET} until this server's purge has run, an error recorded before then not shown), {@code dead-letters.<consumer>}
 * (open dead letters) and {@code dead-letters.<consumer>.oldest-age} (ISO-8601, since the oldest one first
 * failed), {@code sequences.<consumer>} and {@code sequences.<consumer>.oldest-parked-age} (dead-letter order by
 * key: open sequences, and the age of the oldest record parked behind one), {@code retention.<consumer>} and {@code retention.<consumer>.too-short} (the last
 * {@link RetentionCheck}). An overdue purge does not make the check DOWN: taking servers out of service would not help the purge,
 * and every server of the database would go at once; alert on {@code purge-overdue} (or the metric
 * {@code inbox_purge_overdue}) instead.
 */
@Readiness
@ApplicationScoped
public class InboxDatabaseCheck implements HealthCheck {

    /** The check's name in {@code /health/ready}. */
    public static final String NAME = "inbox-database";

    private static final int QUERY_TIMEOUT_SECONDS = 5;

    /**
     * A write that changes nothing: PostgreSQL refuses it in a read-only transaction whatever rows it matches (25006),
     * and it takes only the table's row-exclusive lock, which no statement of the inbox waits for.
     */
    static final String WRITE_PROBE = "UPDATE inbox_purge_state SET owner = owner WHERE false";

    /** The {@code purge-last-run} datum until this server's purge has run since the application started. */
    static final String NOT_RUN_YET = "not run yet since this server started";

    @Inject
    InboxStatistics statistics;
    @Inject
    RetentionCheck retention;
    @Inject
    InboxPurge purge;

    private volatile Set<String> expectedVersions;

    @Override
    public HealthCheckResponse call() {
        Config config = ConfigProvider.getConfig();
        String jndiName = InboxConfig.DATASOURCE.get(config);
        boolean migrate = InboxConfig.SCHEMA_MIGRATE.get(config);
        HealthCheckResponseBuilder response = HealthCheckResponse.named(NAME).up().withData("datasource", jndiName);
        try {
            DataSource dataSource = (DataSource) new InitialContext().lookup(jndiName);
            try (Connection connection = dataSource.getConnection(); Statement statement = connection.createStatement()) {
                statement.setQueryTimeout(QUERY_TIMEOUT_SECONDS);
                if (migrate) {
                    Set<String> expected = expectedVersions();
                    Set<String> applied = new TreeSet<>();
                    try (ResultSet rs = statement.executeQuery("SELECT version FROM inbox_schema_history "
                            + "WHERE success AND version IS NOT NULL")) {
                        while (rs.next()) {
                            applied.add(rs.getString(1));
                        }
                    }
                    Set<String> pending = new TreeSet<>(expected);
                    pending.removeAll(applied);
                    String expectedVersion = highest(expected);
                    response.withData("schema-version", highest(applied)).withData("schema-expected", expectedVersion);
                    if (!pending.isEmpty()) {
                        response.down().withData("reason", HealthMessage.HEALTH0002E.format(jndiName, highest(applied),
                                expectedVersion, String.join(", ", pending)));
                    }
                } else {
                    statement.execute("SELECT consumer, event_id, processed_at FROM inbox WHERE false");
                    response.withData("schema-version", "not checked (inbox.schema.migrate=false)");
                }
                deadLetters(statement, response);
                sequences(statement, response);
                try {
                    // what every claim needs: a write. A read-only database (SQLSTATE 25006: default_transaction_read_only,
                    // a standby behind the primary's address) answers reads while every consumer waits on it
                    statement.executeUpdate(WRITE_PROBE);
                } catch (SQLException e) {
                    return response.down().withData("reason", HealthMessage.HEALTH0003E.format(jndiName,
                            e.getMessage())).build();
                }
            }
        } catch (NamingException | SQLException | RuntimeException e) {
            return response.down().withData("reason", HealthMessage.HEALTH0001E.format(jndiName, e.getMessage())).build();
        }
        for (RetentionCheck.ConsumerRetention r : retention.last()) {
            String key = "retention." + r.consumer();
            response.withData(key, "inbox " + r.inboxRetention() + ", required more than "
                    + (r.required() == null ? "unknown" : r.required()) + " (topic " + r.topic() + " retention.ms "
                    + r.topicRetention() + ", offsets.retention.minutes " + r.offsetsRetention() + "; source: "
                    + r.source() + ")");
            response.withData(key + ".too-short", r.tooShort());
        }
        if (!purge.ranSinceStart()) {
            response.withData("purge-last-run", NOT_RUN_YET);
        }
        statistics.purgeStatus().ifPresent(purge -> {
            response.withData("purge-overdue", purge.overdue());
            response.withData("purge-last-success", String.valueOf(purge.lastFinishedAt()));
            if (purge.lastError() != null) {
                response.withData("purge-last-error", purge.lastError());
            }
        });
        return response.build();
    }

    private static void deadLetters(Statement statement, HealthCheckResponseBuilder response) throws SQLException {
        try (ResultSet rs = statement.executeQuery("SELECT consumer, count(*), min(first_failed_at), now() "
                + "FROM inbox_dead_letter WHERE redriven_at IS NULL AND discarded_at IS NULL GROUP BY consumer")) {
            while (rs.next()) {
                String key = "dead-letters." + rs.getString(1);
                response.withData(key, rs.getLong(2));
                OffsetDateTime oldest = rs.getObject(3, OffsetDateTime.class);
                OffsetDateTime now = rs.getObject(4, OffsetDateTime.class);
                if (oldest != null) {
                    response.withData(key + ".oldest-age", Duration.between(oldest, now).withNanos(0).toString());
                }
            }
        }
    }

    /**
     * Dead-letter order by key: per consumer with open sequences, {@code sequences.<consumer>} (how many are open)
     * and {@code sequences.<consumer>.oldest-parked-age} (ISO-8601, since its oldest parked record was parked; absent
     * while no record waits behind a head). A schema without the tables (version 15, {@code inbox.schema.migrate=false})
     * has none.
     */
    private static void sequences(Statement statement, HealthCheckResponseBuilder response) throws SQLException {
        try (ResultSet rs = statement.executeQuery("SELECT to_regclass('inbox_key_sequence') IS NOT NULL")) {
            rs.next();
            if (!rs.getBoolean(1)) {
                return;
            }
        }
        try (ResultSet rs = statement.executeQuery("SELECT s.consumer, count(DISTINCT s.id), "
                + "min(p.parked_at) FILTER (WHERE p.dead_letter_id IS NULL), now() FROM inbox_key_sequence s "
                + "LEFT JOIN inbox_parked p ON p.sequence_id = s.id GROUP BY s.consumer")) {
            while (rs.next()) {
                String key = "sequences." + rs.getString(1);
                response.withData(key, rs.getLong(2));
                OffsetDateTime oldest = rs.getObject(3, OffsetDateTime.class);
                OffsetDateTime now = rs.getObject(4, OffsetDateTime.class);
                if (oldest != null) {
                    response.withData(key + ".oldest-parked-age", Duration.between(oldest, now).withNanos(0)
                            .toString());
                }
            }
        }
    }

    /** The versions of the migrations the library ships, read once (classpath only). */
    private Set<String> expectedVersions() {
        Set<String> known = expectedVersions;
        if (known == null) {
            known = statistics.shippedSchemaVersions();
            expectedVersions = known;
        }
        return known;
    }

    private static String highest(Set<String> versions) {
        return versions.stream().max((a, b) -> compare(a, b)).orElse("none");
    }

    private static int compare(String a, String b) {
        long[] x = Arrays.stream(a.split("\\.")).mapToLong(Long::parseLong).toArray();
        long[] y = Arrays.stream(b.split("\\.")).mapToLong(Long::parseLong).toArray();
        return Arrays.compare(x, y);
    }
}
