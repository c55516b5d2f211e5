package io.github.jakartainbox.inbox.logging;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.jakartainbox.inbox.text.CataloguedMessage;
import io.github.jakartainbox.inbox.text.Catalogues;
import java.text.MessageFormat;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.logging.Level;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * Every message of every catalogue (inbox, outbox, billing, health, retention) is logged at the level its id says,
 * is short, and comes out of {@link MessageFormat} whole. In a MessageFormat pattern a single apostrophe starts a
 * quoted literal, so in {@code "every server's purge ... ({0})"} the {@code {0}} is printed as is and the apostrophe
 * vanishes; an apostrophe must be written {@code ''}.
 */
class MessagePatternsTest {

    private static final Pattern PLACE = Pattern.compile("\\{(\\d+)(,[^}]*)?}");

    /** A message with every argument this long stays within {@link #MAX_LENGTH} characters. */
    private static final int TYPICAL_ARGUMENT = 12;
    private static final int MAX_LENGTH = 200;

    /** @return every message of every catalogue: id, pattern */
    private static Map<String, String> catalogue() {
        Map<String, String> patterns = new LinkedHashMap<>();
        for (CataloguedMessage message : Catalogues.messages()) {
            patterns.put(message.name(), message.pattern());
        }
        assertTrue(patterns.size() > 100, "the catalogues were read: " + patterns.size());
        return patterns;
    }

    /** @return the arguments the pattern's places take, each {@code <argN>} */
    private static Object[] placeholders(String pattern) {
        Matcher places = PLACE.matcher(pattern);
        int count = 0;
        while (places.find()) {
            count = Math.max(count, Integer.parseInt(places.group(1)) + 1);
        }
        Object[] args = new Object[count];
        for (int i = 0; i < count; i++) {
            args[i] = "<arg" + i + ">";
        }
        return args;
    }

    @Test
    void everyPlaceholderIsFilledAndEveryApostropheKept() {
        Map<String, String> patterns = catalogue();

        List<String> broken = new ArrayList<>();
        patterns.forEach((id, pattern) -> {
            String text = MessageFormat.format(pattern, placeholders(pattern));
            Matcher places = PLACE.matcher(pattern);
            long apostrophes = pattern.chars().filter(c -> c == '\'').count();
            boolean allFilled = true;
            while (places.find()) {
                allFilled &= text.contains("<arg" + places.group(1) + ">");
            }
            // each '' prints one apostrophe: a lone one disappears, and quotes what follows it
            if (!allFilled || text.chars().filter(c -> c == '\'').count() * 2 != apostrophes) {
                broken.add(id + " -> " + text);
            }
        });
        assertEquals(List.of(), broken, "patterns with a lone apostrophe (write it '') or a placeholder not filled");
    }

    /**
     * An id's number names one message, so that "INBOX0610" in a log search or a runbook means one thing. The
     * severity letter is not part of the number.
     */
    @Test
    void eachMessageNumberIsUsedOnce() {
        Map<String, List<String>> byNumber = new LinkedHashMap<>();
        for (String id : catalogue().keySet()) {
            byNumber.computeIfAbsent(id.substring(0, id.length() - 1), k -> new ArrayList<>()).add(id);
        }
        List<List<String>> shared = byNumber.values().stream().filter(ids -> ids.size() > 1).toList();
        assertEquals(List.of(), shared, "message numbers used by more than one message");
    }

    /** The severity letter of an id is its level: E severe, W warning, I information or finer. */
    @Test
    void eachMessageIsLoggedAtTheLevelItsIdSays() {
        for (CataloguedMessage message : Catalogues.messages()) {
            char severity = message.name().charAt(message.name().length() - 1);
            int level = message.level().intValue();
            switch (severity) {
                case 'E' -> assertEquals(Level.SEVERE.intValue(), level, message.name());
                case 'W' -> assertEquals(Level.WARNING.intValue(), level, message.name());
                default -> assertTrue(level <= Level.INFO.intValue(), message.name());
            }
            assertTrue(message.format("a", "b", "c", "d", "e", "f", "g").startsWith(message.name() + ": "));
        }
    }

    /**
     * A message is one or two sentences: what happened, with the values that identify the case. What it means and
     * what to do are docs/messages.md's cause and action.
     */
    @Test
    void eachMessageIsShortWithTypicalArguments() {
        List<String> tooLong = new ArrayList<>();
        for (CataloguedMessage message : Catalogues.messages()) {
            Object[] args = placeholders(message.pattern());
            Arrays.fill(args, "x".repeat(TYPICAL_ARGUMENT));
            String text = message.format(args);
            if (text.length() > MAX_LENGTH) {
                tooLong.add(text.length() + " " + text);
            }
        }
        assertEquals(List.of(), tooLong, "messages over " + MAX_LENGTH + " characters with arguments of "
                + TYPICAL_ARGUMENT + ": move the explanation to docs/messages.md");
    }
}
