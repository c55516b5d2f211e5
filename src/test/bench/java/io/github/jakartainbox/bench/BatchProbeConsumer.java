package io.github.jakartainbox.bench;

import jakarta.enterprise.context.ApplicationScoped;
import java.util.List;
import java.util.logging.Logger;
import org.eclipse.microprofile.reactive.messaging.Incoming;

/**
 * Asks Liberty's {@code liberty-kafka} connector for a batch, the way SmallRye's own Kafka connector is asked
 * ({@code batch=true} on the channel, a {@code List} parameter), and logs what arrives. Deployed only by
 * {@code bin/benchmark batch-probe} ({@link EndToEndBenchmark}).
 */
@ApplicationScoped
public class BatchProbeConsumer {

    private static final Logger LOG = Logger.getLogger(BatchProbeConsumer.class.getName());

    @Incoming("bench-batch")
    public void consume(List<String> values) {
        LOG.info("BENCHBATCH received " + values.getClass().getName() + " of " + values.size() + " records");
    }
}
