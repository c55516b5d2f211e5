package io.github.jakartainbox.inbox;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/** README's configuration table and message list are the key catalogue and the message catalogue, not copies. */
class ReadmeCatalogueTest {

    private static final Path README = Path.of("README.md");
    private static final String HEADER = "| key | scope | default | meaning |";

    private static String readme() throws Exception {
        return Files.readString(README, StandardCharsets.UTF_8);
    }

    /** @return key -> {scope, default} from README's inbox key table */
    private static Map<String, List<String>> readmeKeys() throws Exception {
        String text = readme();
        int start = text.indexOf(HEADER);
        assertTrue(start >= 0, "README has the inbox key table");
        Map<String, List<String>> rows = new LinkedHashMap<>();
        for (String line : text.substring(start).lines().skip(2).toList()) {
            if (!line.startsWith("|")) {
                break;
            }
            String[] cells = line.split("\\s*\\|\\s*");
            rows.put(cells[1].replace("`", ""), List.of(cells[2], cells[3]));
        }
        return rows;
    }

    @Test
    void everyKeyOfTheCatalogueIsInReadmeWithItsScopeAndDefault() throws Exception {
        Map<String, List<String>> rows = readmeKeys();
        for (InboxConfig.Key<?> key : InboxConfig.keys()) {
            List<String> row = rows.get(key.name());
            assertTrue(row != null, key.name() + " is in README's table");
            assertEquals(key.scope().text(), row.get(0), key.name() + ": scope");
            String shown = key.defaultText().map(d -> "`" + d + "`").orElse("none");
            assertTrue(row.get(1).equals(shown) || (shown.equals("none") && row.get(1).startsWith("none ")),
                    key.name() + ": default " + shown + " in README, found " + row.get(1));
        }
        assertEquals(InboxConfig.keys().stream().map(InboxConfig.Key::name).collect(Collectors.toList()),
                List.copyOf(rows.keySet()), "README lists the catalogue's keys, no others, in its order");
    }

    @Test
    void everyMessageIdIsInReadmeAndReadmeNamesNoOther() throws Exception {
        Set<String> catalogue = Arrays.stream(InboxMessage.values()).map(Enum::name)
                .collect(Collectors.toCollection(TreeSet::new));
        Set<String> inReadme = new TreeSet<>();
        // a single id, or a range written "INBOX0210E - INBOX0215E"
        Matcher m = Pattern.compile("INBOX(\\d{4})[IWE](?:` - `INBOX(\\d{4})[IWE])?").matcher(readme());
        while (m.find()) {
            if (m.group(2) == null) {
                inReadme.add(m.group());
            } else {
                int from = Integer.parseInt(m.group(1));
                int to = Integer.parseInt(m.group(2));
                catalogue.stream().filter(id -> {
                    int n = Integer.parseInt(id.substring(5, 9));
                    return n >= from && n <= to;
                }).forEach(inReadme::add);
            }
        }
        assertEquals(catalogue, inReadme);
    }

    @Test
    void eachMessageIsLoggedAtTheLevelItsIdSays() {
        for (InboxMessage message : InboxMessage.values()) {
            char severity = message.name().charAt(message.name().length() - 1);
            int level = message.level().intValue();
            switch (severity) {
                case 'E' -> assertEquals(java.util.logging.Level.SEVERE.intValue(), level, message.name());
                case 'W' -> assertEquals(java.util.logging.Level.WARNING.intValue(), level, message.name());
                default -> assertTrue(level <= java.util.logging.Level.INFO.intValue(), message.name());
            }
            assertTrue(message.format("a", "b", "c", "d", "e", "f", "g").startsWith(message.name() + ": "));
        }
    }
}
