package io.github.jakartainbox.billing;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;

/**
 * Re-drives dead letters: sends each one's stored payload, unchanged, as one record to the topic, then sets its
 * {@code redriven_at}. The payload keeps its event id, so consumers that processed the event skip it and the one
 * that failed processes it.
 *
 * <pre>
 * mvn -q test-compile exec:java -Dexec.classpathScope=test \
 *     -Dexec.mainClass=io.github.jakartainbox.billing.RedriveDeadLetters -Dexec.args="--ids 42,43"
 * </pre>
 * Options: {@code --ids} (required), {@code --topic} (orders.confirmed), {@code --bootstrap} (127.0.0.1:9092),
 * {@code --jdbc-url} (jdbc:postgresql://127.0.0.1:5432/billing), {@code --user} (postgres).
 */
public final class RedriveDeadLetters {

    private RedriveDeadLetters() {
    }

    public static void main(String[] args) throws Exception {
        List<Long> ids = new ArrayList<>();
        String topic = "orders.confirmed";
        String bootstrap = "127.0.0.1:9092";
        String url = "jdbc:postgresql://127.0.0.1:5432/billing";
        String user = "postgres";
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--ids" -> {
                    for (String id : args[++i].split(",")) {
                        ids.add(Long.parseLong(id.trim()));
                    }
                }
                case "--topic" -> topic = args[++i];
                case "--bootstrap" -> bootstrap = args[++i];
                case "--jdbc-url" -> url = args[++i];
                case "--user" -> user = args[++i];
                default -> throw new IllegalArgumentException("unknown option " + args[i]
                        + "; use --ids 1,2 --topic T --bootstrap host:port --jdbc-url URL --user U");
            }
        }
        if (ids.isEmpty()) {
            throw new IllegalArgumentException("--ids is required: the inbox_dead_letter ids to re-drive");
        }
        try (Connection db = DriverManager.getConnection(url, user, System.getenv().getOrDefault("PGPASSWORD", ""));
             KafkaProducer<String, String> producer = SampleEvents.producer(bootstrap);
             PreparedStatement read = db.prepareStatement(
                     "SELECT consumer, event_id, payload FROM inbox_dead_letter WHERE id = ?");
             PreparedStatement mark = db.prepareStatement(
                     "UPDATE inbox_dead_letter SET redriven_at = now() WHERE id = ?")) {
            for (long id : ids) {
                read.setLong(1, id);
                try (ResultSet rs = read.executeQuery()) {
                    if (!rs.next()) {
                        System.out.printf("dead letter %d: not found%n", id);
                        continue;
                    }
                    String payload = rs.getString(3);
                    if (payload == null) {
                        System.out.printf("dead letter %d: no payload stored, nothing to send%n", id);
                        continue;
                    }
                    producer.send(new ProducerRecord<>(topic, payload)).get();
                    mark.setLong(1, id);
                    mark.executeUpdate();
                    System.out.printf("dead letter %d (consumer %s, event %s): sent to %s%n", id, rs.getString(1),
                            rs.getString(2), topic);
                }
            }
        }
    }
}
