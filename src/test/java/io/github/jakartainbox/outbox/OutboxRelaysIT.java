package io.github.jakartainbox.outbox;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.jakartainbox.testing.Db;
import io.github.jakartainbox.testing.Deployments;
import io.github.jakartainbox.testing.TopicReader;
import jakarta.enterprise.inject.spi.CDI;
import jakarta.transaction.UserTransaction;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import javax.naming.InitialContext;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.eclipse.microprofile.config.ConfigProvider;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.shrinkwrap.api.spec.WebArchive;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Several relays at once on one outbox: the server's own and two more, each with its own producer and lease owner,
 * as other servers would run them. Every row is published, none twice, each key's rows in order.
 */
@ExtendWith(ArquillianExtension.class)
class OutboxRelaysIT {

    private final Db db = Db.lazy();

    @Deployment
    static WebArchive deployment() {
        return Deployments.billingWithProbes().addClass(OutboxRelaysIT.class);
    }

    @Test
    void threeRelaysAtOncePublishEveryRowOnceAndKeepPerKeyOrder() throws Exception {
        String topic = "outbox-relays-" + UUID.randomUUID();
        int keys = 8;
        int perKey = 60;
        Outbox outbox = CDI.current().select(Outbox.class).get();
        RelayWorker.Settings settings = new RelayWorker.Settings(100, Duration.ofSeconds(30), Duration.ofMillis(100),
                Duration.ofSeconds(1), 5);
        ExecutorService threads = Executors.newFixedThreadPool(2);
        List<KafkaProducer<String, String>> producers = new ArrayList<>();
        try {
            long total = (long) keys * perKey;
            javax.sql.DataSource dataSource = CDI.current().select(OutboxDatabase.class).get().dataSource();
            List<RelayWorker> others = new ArrayList<>();
            for (int i = 0; i < 2; i++) {
                KafkaProducer<String, String> producer = new KafkaProducer<>(OutboxRelay.producerProperties(
                        ConfigProvider.getConfig()), new StringSerializer(), new StringSerializer());
                producers.add(producer);
                others.add(new RelayWorker(dataSource, producer, settings));
            }
            // the other relays poll hard while the rows are committed in several transactions
            List<Future<Integer>> running = new ArrayList<>();
            for (RelayWorker relay : others) {
                running.add(threads.submit(() -> {
                    int delivered = 0;
                    long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
                    while (System.nanoTime() < deadline && delivered(dataSource, topic) < total) {
                        delivered += Math.max(0, relay.drain());
                        Thread.sleep(5); // a relay's polling: this loop does the work, it waits for no one
                    }
                    return delivered;
                }));
            }
            UserTransaction tx = (UserTransaction) new InitialContext().lookup("java:comp/UserTransaction");
            for (int batch = 0; batch < perKey / 10; batch++) {
                tx.begin();
                for (int n = batch * 10; n < batch * 10 + 10; n++) {
                    for (int k = 0; k < keys; k++) {
                        int seq = n;
                        outbox.record(topic, "key-" + k, id -> "{\"event_id\":\"" + id + "\",\"seq\":" + seq + "}");
                    }
                }
                tx.commit();
            }
            assertEquals(total, db.await(Duration.ofSeconds(90), n -> n == total, "SELECT count(*) FROM outbox "
                    + "WHERE topic = ? AND delivered_at IS NOT NULL", topic), "every row delivered");
            for (Future<Integer> f : running) {
                f.get();
            }
        } finally {
            threads.shutdownNow();
            producers.forEach(KafkaProducer::close);
        }
        List<TopicReader.Rec> records = TopicReader.read(topic, r -> true);
        Set<String> ids = new HashSet<>();
        Map<String, Integer> lastSeq = new HashMap<>();
        for (TopicReader.Rec r : records) {
            assertTrue(ids.add(r.eventIdHeader()), "published twice: " + r.eventIdHeader());
            int seq = Integer.parseInt(r.value().replaceAll(".*\"seq\":(\\d+).*", "$1"));
            Integer before = lastSeq.put(r.key(), seq);
            assertTrue(before == null || before < seq, "key " + r.key() + ": " + seq + " after " + before);
        }
        assertEquals(keys * perKey, records.size(), "every row published once");
    }

    private static long delivered(javax.sql.DataSource dataSource, String topic) throws java.sql.SQLException {
        try (java.sql.Connection c = dataSource.getConnection(); java.sql.PreparedStatement ps = c.prepareStatement(
                "SELECT count(*) FROM outbox WHERE topic = ? AND delivered_at IS NOT NULL")) {
            ps.setString(1, topic);
            try (java.sql.ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getLong(1);
            }
        }
    }
}
