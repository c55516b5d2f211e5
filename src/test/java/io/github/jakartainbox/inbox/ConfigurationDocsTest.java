package io.github.jakartainbox.inbox;

import io.github.jakartainbox.inbox.kafka.InboxKafkaConnector;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.jakartainbox.docs.Markdown;
import io.github.jakartainbox.billing.BillingConfig;
import io.github.jakartainbox.outbox.OutboxConfig;
import java.io.IOException;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * docs/configuration.md's tables are the catalogues in code, not copies: each lists exactly the keys the code reads,
 * with the default the code uses.
 */
class ConfigurationDocsTest {

    private static final Path PAGE = Path.of("docs/configuration.md");

    /** @return key -> the row's cells, from the first table under the heading, in the table's order */
    private static Map<String, List<String>> rows(String heading) {
        Map<String, List<String>> rows = new LinkedHashMap<>();
        for (List<String> cells : Markdown.table(Markdown.read(PAGE), heading)) {
            String key = Markdown.key(cells.get(0));
            assertTrue(rows.put(key, cells) == null, heading + ": " + key + " is listed twice");
        }
        return rows;
    }

    private static String shown(String defaultValue) {
        return defaultValue == null ? "none" : defaultValue.isEmpty() ? "empty" : "`" + defaultValue + "`";
    }

    private static boolean sameDefault(String cell, String defaultValue) {
        String shown = shown(defaultValue);
        return cell.equals(shown) || cell.startsWith(shown + " (") || (shown.equals("none") && cell.startsWith("none "));
    }

    @Test
    void inboxKeysAreTheCatalogueWithScopeAndDefault() {
        Map<String, List<String>> rows = rows("Inbox keys");
        for (InboxConfig.Key<?> key : InboxConfig.keys()) {
            List<String> row = rows.get(key.name());
            assertTrue(row != null, key.name() + " is in the inbox key table");
            assertEquals(key.scope().text(), row.get(1), key.name() + ": scope");
            assertTrue(sameDefault(row.get(2), key.defaultText().orElse(null)),
                    key.name() + ": default " + shown(key.defaultText().orElse(null)) + ", found " + row.get(2));
        }
        assertEquals(InboxConfig.keys().stream().map(InboxConfig.Key::name).collect(Collectors.toList()),
                List.copyOf(rows.keySet()), "the table lists the catalogue's keys, no others, in its order");
    }

    @Test
    void outboxKeysAreOutboxConfigWithTheirDefaults() {
        Map<String, String> catalogue = new TreeMap<>(); // key -> default, null when none is declared
        for (ConfigKey<?> key : OutboxConfig.keys()) {
            catalogue.put(key.name(), key.defaultText().orElse(null));
        }
        catalogue.put(OutboxConfig.KAFKA_PREFIX + "*", null);
        assertTrue(catalogue.size() >= 9, "OutboxConfig was read: " + catalogue);
        Map<String, List<String>> rows = rows("Outbox keys");
        assertEquals(catalogue.keySet(), new TreeSet<>(rows.keySet()), "the table lists OutboxConfig's keys, no others");
        catalogue.forEach((key, defaultValue) -> assertTrue(defaultValue == null
                        || sameDefault(rows.get(key).get(1), defaultValue),
                key + ": default " + shown(defaultValue) + ", found " + rows.get(key).get(1)));
    }

    /**
     * The connector's own attributes, and the Kafka consumer keys it reads or defaults itself; each typed attribute's
     * default as its catalogue declares it.
     */
    @Test
    void connectorAttributesAreThoseTheConnectorReads() throws Exception {
        Class<?> attributes = Class.forName(InboxKafkaConnector.class.getPackageName() + ".ChannelAttributes");
        Field own = attributes.getDeclaredField("OWN");
        own.setAccessible(true);
        @SuppressWarnings("unchecked")
        Set<String> read = new TreeSet<>((Set<String>) own.get(null));
        read.removeAll(Set.of("connector", "channel-name")); // set by Reactive Messaging, never by hand
        Matcher kafkaKeys = Pattern.compile("kafka\\(?\\)?\\.(?:getProperty|putIfAbsent)\\(\"([a-z.]+)\"")
                .matcher(Files.readString(Path.of("src/main/java/io/github/jakartainbox/inbox/kafka/InboxKafkaConnector.java")));
        while (kafkaKeys.find()) {
            read.add(kafkaKeys.group(1));
        }
        assertTrue(read.contains("group.id") && read.contains("group.max-size"), "the connector was read: " + read);
        Map<String, List<String>> rows = rows("`inbox-kafka` channel attributes");
        assertEquals(read, new TreeSet<>(rows.keySet()), "the table lists the attributes the connector reads, no others");
        Field keys = attributes.getDeclaredField("KEYS");
        keys.setAccessible(true);
        for (Object key : (List<?>) keys.get(null)) {
            ConfigKey<?> typed = (ConfigKey<?>) key;
            typed.defaultText().ifPresent(defaultValue -> assertTrue(
                    sameDefault(rows.get(typed.name()).get(1), defaultValue),
                    typed.name() + ": default " + defaultValue + ", found " + rows.get(typed.name()).get(1)));
        }
    }

    /**
     * The example's table: every {@code <variable>} of server.xml with its default there, every variable server.xml
     * refers to without declaring it (the passwords), and every {@code billing.*} key the example's code reads.
     */
    @Test
    void exampleKeysAreServerXmlVariablesAndTheBillingKeysInCode() throws IOException {
        String serverXml = Files.readString(Path.of("src/main/liberty/config/server.xml"));
        Map<String, String> expected = new TreeMap<>();
        Matcher variables = Pattern.compile("<variable name=\"([^\"]+)\" defaultValue=\"([^\"]*)\"").matcher(serverXml);
        while (variables.find()) {
            expected.put(variables.group(1), variables.group(2));
        }
        Matcher references = Pattern.compile("\\$\\{([a-z][a-z0-9.-]*)}").matcher(serverXml);
        while (references.find()) {
            String name = references.group(1);
            if (!name.startsWith("server.") && !name.startsWith("wlp.") && !name.startsWith("shared.") && !expected.containsKey(name)) {
                expected.put(name, null);
            }
        }
        Pattern literal = Pattern.compile("\"(billing\\.[a-z-]+(?:\\.[a-z-]+)+)\"");
        try (Stream<Path> sources = Files.walk(Path.of("src/main/java/io/github/jakartainbox/billing"))) {
            for (Path source : sources.filter(p -> p.toString().endsWith(".java")).toList()) {
                for (String line : Files.readAllLines(source)) {
                    Matcher m = literal.matcher(line);
                    while (m.find()) {
                        if (!line.contains("gauge(") && !line.contains("counter(")) { // metric names, not keys
                            expected.putIfAbsent(m.group(1), null);
                        }
                    }
                }
            }
        }
        assertTrue(expected.containsKey("db.host") && expected.containsKey("billing.mail.keep-connections"),
                "server.xml and the example's code were read: " + expected.keySet());
        Map<String, List<String>> rows = rows("The example's variables and keys");
        assertEquals(expected.keySet(), new TreeSet<>(rows.keySet()),
                "the table lists server.xml's variables and the example's billing.* keys, no others");
        List<String> wrong = new ArrayList<>();
        expected.forEach((key, defaultValue) -> {
            if (defaultValue != null && !sameDefault(rows.get(key).get(1), defaultValue)) {
                wrong.add(key + ": server.xml has " + shown(defaultValue) + ", the table " + rows.get(key).get(1));
            }
        });
        assertEquals(List.of(), wrong, "defaults as server.xml declares them");
    }

    /** The example's catalogue: each key in the example's table, with the catalogue's default. */
    @Test
    void exampleKeysAreBillingConfigWithTheirDefaults() {
        Map<String, List<String>> rows = rows("The example's variables and keys");
        List<String> wrong = new ArrayList<>();
        for (ConfigKey<?> key : BillingConfig.keys()) {
            List<String> row = rows.get(key.name());
            if (row == null) {
                wrong.add(key.name() + " is not in the table");
            } else if (key.defaultText().isPresent() && !sameDefault(row.get(1), key.defaultText().get())) {
                wrong.add(key.name() + ": the catalogue has " + shown(key.defaultText().get()) + ", the table "
                        + row.get(1));
            }
        }
        assertTrue(BillingConfig.keys().size() >= 18, "BillingConfig was read: " + BillingConfig.keys());
        assertEquals(List.of(), wrong, "the example's table against BillingConfig");
    }
}
