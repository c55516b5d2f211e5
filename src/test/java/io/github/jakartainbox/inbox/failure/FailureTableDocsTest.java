package io.github.jakartainbox.inbox.failure;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.jakartainbox.inbox.logging.InboxMessage;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * docs/dead-letters.md's table of failure kinds against the code: one row per {@link FailureKind}, and each message
 * id a row names is in the catalogue and logged or written by the delivery code.
 */
class FailureTableDocsTest {

    private static final Path PAGE = Path.of("docs/dead-letters.md");
    private static final Pattern ID = Pattern.compile("INBOX[0-9]{4}[EWI]");

    @Test
    void theFailureTableHasOneRowPerKind() throws IOException {
        Set<String> kinds = Arrays.stream(FailureKind.values()).map(k -> k.name().toLowerCase(Locale.ROOT))
                .collect(Collectors.toCollection(TreeSet::new));
        assertEquals(kinds, new TreeSet<>(rows().keySet()), "kinds in " + PAGE);
    }

    @Test
    void everyIdTheTableNamesIsCataloguedAndUsed() throws IOException {
        String code = mainSources();
        rows().forEach((kind, text) -> {
            Matcher id = ID.matcher(text);
            assertTrue(id.find(), kind + ": the row names the message it logs");
            id.reset();
            while (id.find()) {
                String name = id.group();
                assertTrue(Arrays.stream(InboxMessage.values()).anyMatch(m -> m.name().equals(name)),
                        kind + ": " + name + " is in InboxMessage");
                assertTrue(code.contains("InboxMessage." + name)
                                || Pattern.compile("[^A-Za-z]" + name + "\\.(format|log)").matcher(code).find(),
                        kind + ": " + name + " is used by the code");
            }
        });
    }

    /** @return the table's rows by kind: the text of the row's other cells */
    private static Map<String, String> rows() throws IOException {
        String page = Files.readString(PAGE);
        int start = page.indexOf("| kind | what | what happens |");
        assertFalse(start < 0, "the failure table in " + PAGE);
        Map<String, String> rows = new LinkedHashMap<>();
        List<String> lines = page.substring(start).lines().skip(2).takeWhile(l -> l.startsWith("|")).toList();
        for (String line : lines) {
            String[] cells = line.split("\\|", 3);
            rows.put(cells[1].trim(), cells[2]);
        }
        return rows;
    }

    private static String mainSources() throws IOException {
        try (Stream<Path> files = Files.walk(Path.of("src/main/java/io/github/jakartainbox/inbox"))) {
            return files.filter(p -> p.toString().endsWith(".java"))
                    .filter(p -> !p.getFileName().toString().equals("InboxMessage.java"))
                    .map(p -> {
                        try {
                            return Files.readString(p);
                        } catch (IOException e) {
                            throw new UncheckedIOException(e);
                        }
                    }).collect(Collectors.joining("\n"));
        }
    }
}
