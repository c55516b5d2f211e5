package io.github.jakartainbox.testkit;

import io.github.jakartainbox.inbox.Idempotent;
import io.github.jakartainbox.testing.probes.KitProbeConsumers;
import jakarta.annotation.Resource;
import jakarta.enterprise.context.ApplicationScoped;
import java.sql.SQLException;
import javax.sql.DataSource;
import org.eclipse.microprofile.reactive.messaging.Incoming;

/**
 * The test kit's share-group subject ({@code IdempotencyCheckIT}): consumer "probe-kit-share" on an
 * {@code inbox-kafka} channel with {@code group.type=share} and two share consumers, configured by the test's
 * deployment; one row in {@code kit_probe_effect} per call, through the inbox.
 */
@ApplicationScoped
public class KitShareProbe {

    @Resource(lookup = "jdbc/billing")
    DataSource billing;

    @Incoming("probe-kit-share")
    @Idempotent(consumer = "probe-kit-share")
    public void idempotent(String json) throws SQLException {
        KitProbeConsumers.record(billing, "probe-kit-share", json);
    }
}
