package io.github.jakartainbox.testing.probes;

import io.github.jakartainbox.inbox.Idempotent;
import jakarta.enterprise.context.ApplicationScoped;
import org.eclipse.microprofile.reactive.messaging.Incoming;

/**
 * Consumer "probe-health" on the test server's channel of the same name (its own topic, and a value deserializer
 * that fails on purpose): HealthIT shuts this channel down and expects readiness to say so.
 */
@ApplicationScoped
public class HealthProbeConsumer {

    @Incoming("probe-health")
    @Idempotent(consumer = "probe-health")
    public void consume(String value) {
        // nothing to do: the channel exists to be broken
    }
}
