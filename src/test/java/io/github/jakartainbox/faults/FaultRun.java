package io.github.jakartainbox.faults;

import io.github.jakartainbox.billing.SampleEvents;
import io.github.jakartainbox.billing.SampleEvents.Event;
import io.github.jakartainbox.testing.UuidV7;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Random;
import java.util.UUID;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * One scenario's traffic and names: a fresh topic with {@value #PARTITIONS} partitions, fresh consumer groups and
 * a fresh database, all named after a short run id; the distinct good events, each delivered 1 to
 * {@value #MAX_DELIVERIES} times, and poison messages (also repeated), shuffled together; and the canary sent
 * after the faults.
 */
final class FaultRun {

    static final int PARTITIONS = 3;
    static final int MAX_DELIVERIES = 4;
    /** Part of every poison message's order id, so that its dead letter can be found by payload. */
    static final String POISON = "-poison-";

    final String fault;
    final String id;
    final String topic;
    final String billingGroup;
    final String analyticsGroup;
    /** The run's {@code invoices.issued} topic (the relay publishes to it, the mailer reads it) and mailer group. */
    final String issuedTopic;
    final String mailerGroup;
    final String database;
    final List<Event> events;
    final List<Event> poison;
    final List<Event> records;
    final Event canary;
    final long startedAt = System.nanoTime();
    /** Offsets the rewind reset for group billing (records it received again), -1 when there was no rewind. */
    long rewound = -1;
    /** Records the orders topic held when a scenario deleted it (all consumed before), counted as produced. */
    long deletedRecords;
    /**
     * Set by a failover scenario: the database lost commits whose side effects (an {@code invoices.issued} record, a
     * mail) had already left, so their orders' replay makes a second invoice record and mail, which no offset rule can
     * undo: counted, not failed; and the mailer dead-letters the records of invoices the failover lost.
     */
    boolean sideEffectsOfLostCommits;
    /**
     * Set by the failover scenario in {@code offset-store=kafka} mode, which shows what that mode loses: the scenario
     * then asserts that events were lost (else it did not cause the fault it is about), not that none was.
     */
    boolean lossExpected;
    /**
     * Set by the failover scenario in share mode: a share group's progress is the broker's, so the events whose
     * commits the failover lost are gone; the scenario prints how many and asserts nothing else.
     */
    boolean lossTolerated;
    /** Lines of INBOX0612W and INBOX0613W (lost commits found) in the server's logs before the failover. */
    long lostCommitLinesBefore = -1;
    /** The delivery mode of the order channels: {@link #GROUPED} (inbox-kafka, the default) or {@link #PER_MESSAGE}. */
    final String mode;
    /**
     * Whether the records go through transactional producers: chunks in committed Kafka transactions, plain chunks
     * between them, and after some chunks an aborted transaction of {@link #aborted} events that must never be
     * processed (scenario 10).
     */
    final boolean transactional;
    /** The broker or cluster the run's topics are on (scenario 16: the three-broker cluster). */
    String bootstrap = PrivateKafka.BOOTSTRAP;
    /** Events written only in aborted Kafka transactions: no consumer may process them. */
    final List<Event> aborted = new ArrayList<>();

    /** Events per order (record key): 1, or several in sequence for the per-key order check ({@link KeyOrder}). */
    final int perKey;
    /** Each good event's sequence number within its order (1 when {@link #perKey} is 1). */
    final Map<String, Integer> sequence = new HashMap<>();
    /**
     * Orders with a poison record in the middle of their sequence (scenario 20): the order id (the record key) and the
     * sequence number the poison took, its place among the order's events.
     */
    final Map<String, Integer> poisonAt = new HashMap<>();
    /** Settings of the servers added to {@link #environment()} for every start of the run. */
    final Map<String, String> settings = new HashMap<>();
    /** Checks a fault adds to the scenario's own (asserted with them). */
    final List<org.junit.jupiter.api.function.Executable> checks = new ArrayList<>();

    /** The example's default: inbox-kafka, up to group.max-size records per transaction. */
    static final String GROUPED = "grouped";
    /** liberty-kafka, one message per transaction (the mode before issue 11). */
    static final String PER_MESSAGE = "per-message";
    /**
     * Issue 42: inbox-kafka in share-group mode (the example's configuration profile {@code share}), the run's groups
     * share groups, the orders topic of {@value #SHARE_PARTITIONS} partition for more consumers than partitions.
     */
    static final String SHARE = "share";
    static final int SHARE_PARTITIONS = 1;
    /**
     * The orders whose billing handler scenario 24 makes slow ({@code billing.test.slow-orders}): one in 100, the
     * events numbered 100, 200 and so on.
     */
    static final String SLOW = ".*-[0-9]*[1-9]00";

    /** @return the partitions of the run's orders topic: {@value #SHARE_PARTITIONS} in share mode */
    int partitions() {
        return SHARE.equals(mode) ? SHARE_PARTITIONS : PARTITIONS;
    }

    /** @return whether the order channels read share groups */
    boolean share() {
        return SHARE.equals(mode);
    }

    /**
     * @param fault  what the scenario injects
     * @param events how many distinct good events
     * @param poison how many poison messages among them
     */
    FaultRun(String fault, int events, int poison, Random random) {
        this(fault, events, poison, random, GROUPED, false);
    }

    /**
     * @param mode          {@link #GROUPED} or {@link #PER_MESSAGE}
     * @param transactional whether {@link #send} writes through transactional producers, with aborted transactions
     */
    FaultRun(String fault, int events, int poison, Random random, String mode, boolean transactional) {
        this(fault, events, poison, random, mode, transactional, false);
    }

    /**
     * @param mailFaults whether some customers' addresses name an SMTP fault ({@link MailFault}): 1 % of the events
     *                   each (at least 3), taken from the first events
     */
    FaultRun(String fault, int events, int poison, Random random, String mode, boolean transactional,
             boolean mailFaults) {
        this(fault, events, poison, random, mode, transactional, mailFaults, 1);
    }

    /**
     * @param perKey events per order (record key); above 1, each order's events carry a {@code sequence} and the
     *               records are arranged so that each event's first delivery comes after its predecessor's
     *               ({@link #inKeyOrder}): the order the effects must follow ({@link KeyOrder})
     */
    FaultRun(String fault, int events, int poison, Random random, String mode, boolean transactional,
             boolean mailFaults, int perKey) {
        this(fault, events, poison, random, mode, transactional, mailFaults, perKey, false);
    }

    /**
     * @param poisonInSequences whether the {@code poison} messages take the place of an event in the middle of an
     *                          order's sequence (with {@link #perKey} above 2), with the order's id as their record
     *                          key, instead of being orders of their own ({@link #poisonAt})
     */
    FaultRun(String fault, int events, int poison, Random random, String mode, boolean transactional,
             boolean mailFaults, int perKey, boolean poisonInSequences) {
        this.mode = mode;
        this.transactional = transactional;
        this.fault = fault;
        this.id = "f" + UUID.randomUUID().toString().substring(0, 8);
        this.topic = "orders.confirmed." + id;
        this.billingGroup = "billing-" + id;
        this.analyticsGroup = "analytics-" + id;
        this.issuedTopic = "invoices.issued." + id;
        this.mailerGroup = "mailer-" + id;
        this.database = "faults_" + id;
        this.perKey = perKey;
        List<Event> good = perKey > 1 ? SampleEvents.keyedEvents(id, events, perKey)
                : mailFaults ? withMailFaults(SampleEvents.events(id, events), id) : SampleEvents.events(id, events);
        this.events = poisonInSequences ? new ArrayList<>(good) : good;
        for (int i = 0; i < this.events.size(); i++) {
            sequence.put(this.events.get(i).eventId(), perKey > 1 ? i % perKey + 1 : 1);
        }
        this.poison = poisonInSequences ? poisonInSequences(good, poison, perKey) : poison(id, poison);
        List<Event> all = new ArrayList<>(SampleEvents.repeated(this.events, MAX_DELIVERIES, random));
        all.addAll(SampleEvents.repeated(this.poison, MAX_DELIVERIES, random));
        Collections.shuffle(all, random);
        this.records = List.copyOf(perKey > 1 ? inKeyOrder(all, random) : all);
        this.canary = SampleEvents.event(UuidV7.at(Instant.now()), id + "-canary", "1.00", "EUR");
    }

    /**
     * Rearranges one order's records among the places the shuffle gave that order: its events' first deliveries in
     * sequence order, each redelivery at a random place after its event's first delivery (so also after later events
     * of the order: duplicates out of order, which the inbox skips). Other orders' records stay where they are.
     */
    private List<Event> inKeyOrder(List<Event> shuffled, Random random) {
        Map<String, List<Integer>> places = new HashMap<>();
        Map<String, List<Event>> byKey = new HashMap<>();
        for (int i = 0; i < shuffled.size(); i++) {
            Event e = shuffled.get(i);
            if (rank(e) != null) {
                places.computeIfAbsent(e.orderId(), k -> new ArrayList<>()).add(i);
                byKey.computeIfAbsent(e.orderId(), k -> new ArrayList<>()).add(e);
            }
        }
        List<Event> arranged = new ArrayList<>(shuffled);
        byKey.forEach((key, records) -> {
            List<Event> firsts = new ArrayList<>(records.stream().distinct().toList());
            firsts.sort(java.util.Comparator.comparing(this::rank));
            List<Event> order = new ArrayList<>(firsts);
            List<Event> again = new ArrayList<>(records);
            firsts.forEach(again::remove); // one occurrence each: what is left are the redeliveries
            for (Event e : again) {
                int first = order.indexOf(e);
                order.add(first + 1 + random.nextInt(order.size() - first), e);
            }
            List<Integer> at = places.get(key);
            for (int i = 0; i < at.size(); i++) {
                arranged.set(at.get(i), order.get(i));
            }
        });
        return arranged;
    }

    /**
     * @return an event's place in its order's sequence: a good event's sequence number, or the place of a poison
     *         record in the middle of a sequence; {@code null} for a poison message of its own
     */
    private Integer rank(Event e) {
        Integer s = e.eventId() == null ? null : sequence.get(e.eventId());
        if (s != null) {
            return s;
        }
        return poisonAt.containsKey(e.orderId()) && e.json().contains(POISON) ? poisonAt.get(e.orderId()) : null;
    }

    /**
     * Replaces the middle event of {@code count} orders, spread over all orders, by a poison record with the order's
     * key and the replaced event's sequence number, failing on every delivery in turn as {@link #poison} does (its JSON
     * also names it, {@code "note":"<run>-poison-<i>"}, so that its dead letter is told from good ones). The replaced
     * events leave {@link #events}; each order keeps its other events' sequence numbers, so the poison is a gap that
     * {@link KeyOrder} steps over.
     */
    private List<Event> poisonInSequences(List<Event> all, int count, int perKey) {
        if (count == 0) {
            return List.of();
        }
        if (perKey < 3) {
            throw new IllegalArgumentException("a poison in the middle of a sequence needs 3 or more events per key");
        }
        int orders = all.size() / perKey;
        if (count > orders) {
            throw new IllegalArgumentException(count + " poisoned orders of " + orders);
        }
        int middle = (perKey + 1) / 2;
        List<Event> list = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            Event replaced = all.get((int) ((long) i * orders / count) * perKey + middle - 1);
            events.remove(replaced);
            sequence.remove(replaced.eventId());
            poisonAt.put(replaced.orderId(), middle);
            String json = "{\"note\":\"" + id + POISON + i + "\"," + replaced.json().substring(1);
            list.add(switch (i % 3) {
                case 0 -> new Event(replaced.eventId(), replaced.orderId(),
                        json.substring(0, json.indexOf("\"amount\"")) + "\"amount\":");
                case 1 -> new Event(replaced.eventId(), replaced.orderId(),
                        json.replace("\"amount\":\"129.90\"", "\"amount\":true"));
                default -> new Event(null, replaced.orderId(),
                        json.replace("\"event_id\":\"" + replaced.eventId() + "\",", ""));
            });
        }
        return list;
    }

    /**
     * SMTP faults chosen by the customer's address (the order id is the address's local part): what the suite's
     * SMTP proxy does to a mail for such a customer, and what the mailer must make of it.
     */
    enum MailFault {
        /** 550 to RCPT: dead-lettered at once, never sent, the invoice's mail_status failed */
        REFUSED("refused-", "failed"),
        /** 451 to RCPT twice, then accepted: sent once */
        DEFERRED("deferred-", "sent"),
        /**
         * the connection dropped in the middle of the data once, nothing accepted: sent once when the client's write
         * meets the drop; uncertain, not sent again, when the whole message was already in the connection's buffers
         * (the client cannot tell this from a drop after the end of data), so no copy at the server
         */
        CUT("cut-", "sent"),
        /** the final reply held 1 s, under the final-reply timeout: sent once */
        SLOW("slow-", "sent"),
        /** the final reply held 6 s, over the final-reply timeout: accepted, not sent again, mail_status uncertain */
        STALLED("stalled-", "uncertain"),
        /** the connection dropped after the end of data: accepted, not sent again, mail_status uncertain */
        DROPPED("dropped-", "uncertain");

        final String prefix;
        /** the invoice's {@code mail_status} at the end */
        final String status;

        MailFault(String prefix, String status) {
            this.prefix = prefix;
            this.status = status;
        }

        /** @return the fault an address names, {@code null} for an ordinary customer */
        static MailFault of(String email) {
            for (MailFault f : values()) {
                if (email.startsWith(f.prefix)) {
                    return f;
                }
            }
            return null;
        }
    }

    /** The first events, 1 % each (at least 3), get customers whose address names a {@link MailFault}. */
    private static List<Event> withMailFaults(List<Event> events, String run) {
        int each = Math.max(3, events.size() / 100);
        List<Event> list = new ArrayList<>(events);
        int i = 0;
        for (MailFault fault : MailFault.values()) {
            for (int k = 0; k < each && i < list.size(); k++, i++) {
                Event e = list.get(i);
                list.set(i, SampleEvents.event(e.eventId(), fault.prefix + run + "-" + k, "129.90", "EUR"));
            }
        }
        return list;
    }

    /**
     * Poison messages that fail on every delivery, in turn: malformed JSON that still carries an event id, an
     * {@code amount} of the wrong type (a boolean), an order without any event id.
     */
    private static List<Event> poison(String run, int count) {
        List<Event> list = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            String orderId = run + POISON + i;
            String eventId = UuidV7.at(Instant.now());
            String json = SampleEvents.event(eventId, orderId, "10.00", "EUR").json();
            list.add(switch (i % 3) {
                case 0 -> new Event(eventId, orderId, json.substring(0, json.indexOf("\"amount\"")) + "\"amount\":");
                case 1 -> new Event(eventId, orderId, json.replace("\"amount\":\"10.00\"", "\"amount\":true"));
                default -> new Event(null, orderId, json.replace("\"event_id\":\"" + eventId + "\",", ""));
            });
        }
        return list;
    }

    /**
     * @return the environment of the scenario's servers: database, broker, topic and groups of the order channels,
     *         the run's {@code invoices.issued} topic (recorded by billing, read by the mailer) and mailer group, and
     *         the suite's SMTP server
     */
    Map<String, String> environment() {
        Map<String, String> env = new HashMap<>(base());
        env.putAll(settings);
        if (PER_MESSAGE.equals(mode)) {
            env.put("MP_MESSAGING_INCOMING_ORDERS_BILLING_CONNECTOR", "liberty-kafka");
            env.put("MP_MESSAGING_INCOMING_ORDERS_ANALYTICS_CONNECTOR", "liberty-kafka");
        }
        if (share()) {
            env.put("MP_CONFIG_PROFILE", SHARE);
            // the profile's own group ids (%share.) are replaced by the run's, under both names a lookup may take
            env.put("_SHARE_MP_MESSAGING_INCOMING_ORDERS_BILLING_GROUP_ID", billingGroup);
            env.put("_SHARE_MP_MESSAGING_INCOMING_ORDERS_ANALYTICS_GROUP_ID", analyticsGroup);
        }
        return env;
    }

    private Map<String, String> base() {
        return Map.ofEntries(Map.entry("DB_HOST", "127.0.0.1"),
                Map.entry("DB_PORT", String.valueOf(PrivatePostgres.PORT)), Map.entry("DB_NAME", database),
                Map.entry("DB_USER", "postgres"), Map.entry("DB_PASSWORD", "unused-with-trust-auth"),
                Map.entry("KAFKA_BOOTSTRAP_SERVERS", bootstrap),
                Map.entry("MP_MESSAGING_INCOMING_ORDERS_BILLING_TOPIC", topic),
                Map.entry("MP_MESSAGING_INCOMING_ORDERS_BILLING_GROUP_ID", billingGroup),
                Map.entry("MP_MESSAGING_INCOMING_ORDERS_ANALYTICS_TOPIC", topic),
                Map.entry("MP_MESSAGING_INCOMING_ORDERS_ANALYTICS_GROUP_ID", analyticsGroup),
                Map.entry("BILLING_INVOICES_ISSUED_TOPIC", issuedTopic),
                Map.entry("MP_MESSAGING_INCOMING_INVOICES_MAILER_TOPIC", issuedTopic),
                Map.entry("MP_MESSAGING_INCOMING_INVOICES_MAILER_GROUP_ID", mailerGroup),
                // order-status too: else it reads the integration tests' topic, which the suite's broker does not have
                Map.entry("MP_MESSAGING_INCOMING_ORDERS_STATUS_TOPIC", topic),
                Map.entry("MP_MESSAGING_INCOMING_ORDERS_STATUS_GROUP_ID", "order-status-" + id),
                Map.entry("SMTP_HOST", "127.0.0.1"), Map.entry("SMTP_PORT", String.valueOf(PrivateSmtp.PORT)));
    }

    /**
     * @param extra settings added for one server start, e.g. the relay switched off
     * @return {@link #environment()} with {@code extra}
     */
    Map<String, String> environment(Map<String, String> extra) {
        Map<String, String> env = new HashMap<>(environment());
        env.putAll(extra);
        return env;
    }

    /**
     * Sends the records (or the canary) and waits until the broker has them. A transactional run sends chunks of 50
     * in turn plain, in a committed Kafka transaction, and in a committed one followed by an aborted one of 3 new
     * events (each partition then holds commit and abort markers between plain records).
     */
    void send(List<Event> list) throws Exception {
        try (KafkaProducer<String, String> producer = SampleEvents.producer(bootstrap)) {
            if (!transactional || list.size() == 1) {
                SampleEvents.send(producer, topic, list);
                return;
            }
            Properties p = new Properties();
            p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
            p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
            p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
            p.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, "faults-" + id);
            try (KafkaProducer<String, String> tx = new KafkaProducer<>(p)) {
                tx.initTransactions();
                for (int from = 0, chunk = 0; from < list.size(); from += 50, chunk++) {
                    List<Event> part = list.subList(from, Math.min(list.size(), from + 50));
                    if (chunk % 3 == 0) {
                        SampleEvents.send(producer, topic, part);
                        continue;
                    }
                    tx.beginTransaction();
                    for (Event e : part) {
                        tx.send(new ProducerRecord<>(topic, e.orderId(), e.json()));
                    }
                    tx.commitTransaction();
                    if (chunk % 3 == 2) {
                        tx.beginTransaction();
                        for (int i = 0; i < 3; i++) {
                            Event ghost = SampleEvents.event(UuidV7.at(Instant.now()), id + "-aborted-" + aborted.size(),
                                    "99.00", "EUR");
                            aborted.add(ghost);
                            tx.send(new ProducerRecord<>(topic, ghost.orderId(), ghost.json()));
                        }
                        tx.flush(); // in the log, then aborted
                        tx.abortTransaction();
                    }
                }
            }
        }
    }

    /**
     * Sends the records, every {@code every}-th with the re-drive headers any producer can write: aimed at one
     * consumer of the topic, billing and analytics in turn, and naming dead letter 1, 2, 3 (the run's poison rows, of
     * other events) or 99999 (none). No such record is a re-drive the database confirms: both consumers must process
     * each event once.
     *
     * @return how many records carried a forged aim
     */
    int sendWithForgedAims(List<Event> list, int every) throws Exception {
        int forged = 0;
        List<java.util.concurrent.Future<?>> sent = new ArrayList<>();
        try (KafkaProducer<String, String> producer = SampleEvents.producer(bootstrap)) {
            for (int i = 0; i < list.size(); i++) {
                Event e = list.get(i);
                ProducerRecord<String, String> record = new ProducerRecord<>(topic, e.orderId(), e.json());
                if (i % every == 0) {
                    String aim = forged % 2 == 0 ? "analytics" : "billing";
                    String deadLetter = forged % 4 == 3 ? "99999" : String.valueOf(forged % 4 + 1);
                    record.headers().add("inbox-redrive-consumer", aim.getBytes(java.nio.charset.StandardCharsets.UTF_8));
                    record.headers().add("inbox-redrive-dead-letter",
                            deadLetter.getBytes(java.nio.charset.StandardCharsets.UTF_8));
                    forged++;
                }
                sent.add(producer.send(record));
            }
            for (java.util.concurrent.Future<?> f : sent) {
                f.get();
            }
        }
        return forged;
    }

    /** @return the good events' ids and the canary's: what each consumer must process exactly once */
    List<String> expectedIds() {
        List<String> ids = new ArrayList<>(events.size() + 1);
        events.forEach(e -> ids.add(e.eventId()));
        ids.add(canary.eventId());
        return ids;
    }

    /** @return good records sent, canary included: deliveries each consumer either processes or skips */
    long goodRecords() {
        java.util.Set<Event> bad = new java.util.HashSet<>(poison);
        return records.stream().filter(r -> !bad.contains(r)).count() + 1;
    }
}
