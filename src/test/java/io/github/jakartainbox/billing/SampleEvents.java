package io.github.jakartainbox.billing;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Properties;
import java.util.Random;
import io.github.jakartainbox.testing.UuidV7;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.Future;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * Sends sample {@code orders.confirmed} events, duplicates included, the way an at-least-once producer would.
 * Event ids are UUIDv7 (time-ordered, and usable by the partitioned inbox).
 *
 * Run it with {@code bin/sample-events --events 1000 --duplicates 300} (docs/running.md, "Sample events").
 * Options: {@code --events N} distinct events (default 10), {@code --duplicates N} extra deliveries of
 * randomly chosen events (default 3), {@code --bad} two malformed records besides (one without an event id, one with
 * an amount that is no amount: each consumer dead-letters them), {@code --topic T} (default orders.confirmed),
 * {@code --bootstrap host:port} (default {@code KAFKA_BOOTSTRAP_SERVERS}, else 127.0.0.1:9092), {@code --seed N} for
 * a repeatable order, {@code --run ID} to choose the run id. Prints the run id: every order id of the run starts
 * with it. A wrong argument ends it with one line and status 2; a broker that does not answer within
 * {@link #BROKER_WAIT}, with one line and status 1.
 */
public final class SampleEvents {

    /** One event: its id, order and JSON value. */
    public record Event(String eventId, String orderId, String json) {
    }

    private SampleEvents() {
    }

    /** One line of usage, printed after a wrong argument (bin/sample-events checks the same before Maven starts). */
    static final String USAGE = "usage: bin/sample-events [--events N] [--duplicates N] [--bad] [--topic T] "
            + "[--bootstrap host:port] [--seed N] [--run ID]";

    /** How long the tool waits for the broker's first answer before it gives up with a line of its own. */
    static final Duration BROKER_WAIT = Duration.ofSeconds(5);

    /** Kept so that the level set on it lasts (java.util.logging holds loggers weakly). */
    private static final Logger KAFKA_LOG = Logger.getLogger("org.apache.kafka");

    /**
     * The tool's options.
     *
     * @param run {@code null} for one made from the seed
     */
    record Options(int events, int duplicates, boolean bad, String topic, String bootstrap, long seed, String run) {

        /**
         * @param args             the command line
         * @param defaultBootstrap the broker when {@code --bootstrap} is not given
         * @param defaultSeed      the seed when {@code --seed} is not given
         * @return the options
         * @throws IllegalArgumentException naming the wrong argument
         */
        static Options parse(String[] args, String defaultBootstrap, long defaultSeed) {
            int events = 10;
            int duplicates = 3;
            boolean bad = false;
            String topic = "orders.confirmed";
            String bootstrap = defaultBootstrap;
            long seed = defaultSeed;
            String run = null;
            for (int i = 0; i < args.length; i++) {
                String option = args[i];
                if (option.equals("--bad")) {
                    bad = true;
                    continue;
                }
                if (!List.of("--events", "--duplicates", "--topic", "--bootstrap", "--seed", "--run").contains(option)) {
                    throw new IllegalArgumentException("unknown argument " + option);
                }
                if (i + 1 == args.length || args[i + 1].isEmpty()) {
                    throw new IllegalArgumentException(option + " needs a value");
                }
                String value = args[++i];
                switch (option) {
                    case "--events" -> events = count(option, value);
                    case "--duplicates" -> duplicates = count(option, value);
                    case "--topic" -> topic = value;
                    case "--bootstrap" -> bootstrap = value;
                    case "--seed" -> seed = number(option, value);
                    default -> run = value;
                }
            }
            return new Options(events, duplicates, bad, topic, bootstrap, seed, run);
        }

        private static int count(String option, String value) {
            if (!value.matches("[0-9]{1,9}")) {
                throw new IllegalArgumentException(option + " " + value + ": not a whole number from 0 to 999999999");
            }
            return Integer.parseInt(value);
        }

        private static long number(String option, String value) {
            if (!value.matches("-?[0-9]{1,18}")) {
                throw new IllegalArgumentException(option + " " + value + ": not a whole number");
            }
            return Long.parseLong(value);
        }
    }

    public static void main(String[] args) throws Exception {
        // the producer's INFO lines (its whole configuration, ~100 lines) say nothing to the user of this tool
        KAFKA_LOG.setLevel(Level.WARNING);
        Options options;
        try {
            options = Options.parse(args,
                    System.getenv().getOrDefault("KAFKA_BOOTSTRAP_SERVERS", "127.0.0.1:9092"), System.nanoTime());
        } catch (IllegalArgumentException e) {
            System.err.println("sample-events: " + e.getMessage() + "; " + USAGE);
            System.exit(2);
            return;
        }
        String run = options.run() != null ? options.run() : "run-" + Long.toHexString(options.seed() & 0xffffffL);
        List<Event> distinct = events(run, options.events());
        List<Event> deliveries =
                new ArrayList<>(withDuplicates(distinct, options.duplicates(), new Random(options.seed())));
        if (options.bad()) {
            deliveries.addAll(badRecords(run));
        }
        Properties wait = new Properties();
        wait.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, String.valueOf(BROKER_WAIT.toMillis()));
        try (KafkaProducer<String, String> producer = producer(options.bootstrap(), wait)) {
            try {
                // one wait for the broker: each send of a broker that never answers would wait max.block.ms again
                producer.partitionsFor(options.topic());
            } catch (TimeoutException e) {
                System.err.println("sample-events: no Kafka broker answered on " + options.bootstrap() + " within "
                        + BROKER_WAIT.toSeconds() + " s. Start one with bin/kafka-broker start, or point "
                        + "KAFKA_BOOTSTRAP_SERVERS or --bootstrap at yours.");
                producer.close(Duration.ZERO);
                System.exit(1);
            }
            send(producer, options.topic(), deliveries);
        }
        System.out.printf("sent %d deliveries of %d distinct events%s to %s (run id %s: order ids %s-*)%n",
                deliveries.size(), distinct.size(), options.bad() ? " and 2 malformed records" : "", options.topic(),
                run, run);
    }

    /**
     * Two records every consumer must dead-letter: order {@code <run>-no-event-id} has no {@code event_id}
     * (INBOX0210E), order {@code <run>-bad-amount} has the amount {@code "12,90"} (BILLING0106E).
     *
     * @param run a prefix shared by the order ids
     * @return the two records, keyed by their order ids
     */
    public static List<Event> badRecords(String run) {
        String noId = run + "-no-event-id";
        String missing = "{\"order_id\":\"" + noId + "\",\"customer_email\":\"" + noId
                + "@example.com\",\"amount\":\"129.90\",\"currency\":\"EUR\"}";
        Event badAmount = event(UuidV7.at(Instant.now()), run + "-bad-amount", "12,90", "EUR");
        return List.of(new Event(null, noId, missing), badAmount);
    }

    /**
     * @param run   a prefix shared by the order ids
     * @param count how many distinct events
     * @return events with fresh UUID event ids
     */
    public static List<Event> events(String run, int count) {
        List<Event> list = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            String orderId = run + "-" + i;
            list.add(event(UuidV7.at(Instant.now()), orderId, "129.90", "EUR"));
        }
        return list;
    }

    /**
     * Several events per order, for checks of per-key order: order {@code run-k} has events with {@code sequence} 1 to
     * {@code perKey} (a JSON member the consumers ignore), each with a customer of its own ({@code run-k-s@example.com}),
     * so that each invoice's record and mail can be told apart. Records are keyed by order id, so one order's events
     * share a partition.
     *
     * @param run    a prefix shared by the order ids
     * @param count  how many distinct events
     * @param perKey how many events each order gets (the last order may get fewer)
     * @return the events, each order's in sequence order
     */
    public static List<Event> keyedEvents(String run, int count, int perKey) {
        List<Event> list = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            String orderId = run + "-" + i / perKey;
            int sequence = i % perKey + 1;
            String eventId = UuidV7.at(Instant.now());
            String json = "{\"event_id\":\"" + eventId + "\",\"order_id\":\"" + orderId + "\",\"sequence\":" + sequence
                    + ",\"customer_email\":\"" + orderId + "-" + sequence + "@example.com\",\"amount\":\"129.90\","
                    + "\"currency\":\"EUR\"}";
            list.add(new Event(eventId, orderId, json));
        }
        return list;
    }

    /**
     * @return an event whose JSON carries the given fields
     */
    public static Event event(String eventId, String orderId, String amount, String currency) {
        String json = "{\"event_id\":\"" + eventId + "\",\"order_id\":\"" + orderId
                + "\",\"customer_email\":\"" + orderId + "@example.com\",\"amount\":\"" + amount
                + "\",\"currency\":\"" + currency + "\"}";
        return new Event(eventId, orderId, json);
    }

    /**
     * @return every event once, plus {@code extra} re-deliveries of random events, shuffled
     */
    public static List<Event> withDuplicates(List<Event> events, int extra, Random random) {
        List<Event> all = new ArrayList<>(events);
        for (int i = 0; i < extra && !events.isEmpty(); i++) {
            all.add(events.get(random.nextInt(events.size())));
        }
        Collections.shuffle(all, random);
        return all;
    }

    /**
     * @return each event delivered between 1 and {@code maxDeliveries} times (uniformly chosen), shuffled
     */
    public static List<Event> repeated(List<Event> events, int maxDeliveries, Random random) {
        List<Event> all = new ArrayList<>();
        for (Event e : events) {
            for (int i = 1 + random.nextInt(maxDeliveries); i > 0; i--) {
                all.add(e);
            }
        }
        Collections.shuffle(all, random);
        return all;
    }

    public static KafkaProducer<String, String> producer(String bootstrap) {
        return producer(bootstrap, new Properties());
    }

    /** @param extra producer properties set over the defaults */
    static KafkaProducer<String, String> producer(String bootstrap, Properties extra) {
        Properties props = new Properties();
        props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        props.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        props.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        props.put(ProducerConfig.ACKS_CONFIG, "all");
        props.put(ProducerConfig.LINGER_MS_CONFIG, "5");
        // One request in flight per connection: on a topic created just before, a first batch refused with
        // NOT_LEADER_OR_FOLLOWER could otherwise be overtaken by the next one, and the broker (4.1) then rejects its
        // retries as out of order until they expire: KAFKA-15591, seen in the fault suite as "Expiring N records"
        props.put(ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, "1");
        props.putAll(extra);
        return new KafkaProducer<>(props);
    }

    /** Sends the events in order, keyed by order id, and waits until the broker has them all. */
    public static void send(KafkaProducer<String, String> producer, String topic, List<Event> events)
            throws Exception {
        List<Future<RecordMetadata>> sent = new ArrayList<>();
        for (Event e : events) {
            sent.add(producer.send(new ProducerRecord<>(topic, e.orderId(), e.json())));
        }
        for (Future<RecordMetadata> f : sent) {
            f.get();
        }
    }
}
