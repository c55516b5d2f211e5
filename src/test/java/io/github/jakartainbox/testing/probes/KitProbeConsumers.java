package io.github.jakartainbox.testing.probes;

import io.github.jakartainbox.inbox.Idempotent;
import jakarta.annotation.Resource;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.json.Json;
import jakarta.json.JsonObject;
import java.io.StringReader;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import javax.sql.DataSource;
import org.eclipse.microprofile.reactive.messaging.Incoming;

/**
 * The test kit's subjects ({@code IdempotencyCheckIT}), on channels of the test server.xml: each records one row in
 * {@code kit_probe_effect} per call, "probe-kit" through the inbox, "probe-kit-plain" without it (an append that is not
 * idempotent by construction).
 */
@ApplicationScoped
public class KitProbeConsumers {

    /** The table both write, made by the test. */
    public static final String TABLE = "CREATE TABLE IF NOT EXISTS kit_probe_effect (consumer text NOT NULL, "
            + "event_id text NOT NULL)";
    private static final String RUN = System.getenv().getOrDefault("IT_RUN_ID", "local");
    /** The topic of channel probe-kit. */
    public static final String IDEMPOTENT_TOPIC = "it.probe.kit." + RUN;
    /** The topic of channel probe-kit-plain. */
    public static final String PLAIN_TOPIC = "it.probe.kit-plain." + RUN;

    @Resource(lookup = "jdbc/billing")
    DataSource billing;

    @Incoming("probe-kit")
    @Idempotent(consumer = "probe-kit")
    public void idempotent(String json) throws SQLException {
        record("probe-kit", json);
    }

    @Incoming("probe-kit-plain")
    public void plain(String json) throws SQLException {
        record("probe-kit-plain", json);
    }

    private void record(String consumer, String json) throws SQLException {
        record(billing, consumer, json);
    }

    /**
     * Records one effect of a kit probe's call.
     *
     * @param billing  the datasource the call's transaction uses
     * @param consumer the probe's consumer name
     * @param json     the event, with its {@code event_id}
     * @throws SQLException when the insert fails
     */
    public static void record(DataSource billing, String consumer, String json) throws SQLException {
        JsonObject event = Json.createReader(new StringReader(json)).readObject();
        try (Connection connection = billing.getConnection();
             PreparedStatement insert = connection.prepareStatement(
                     "INSERT INTO kit_probe_effect (consumer, event_id) VALUES (?, ?)")) {
            insert.setString(1, consumer);
            insert.setString(2, event.getString("event_id"));
            insert.executeUpdate();
        }
    }
}
