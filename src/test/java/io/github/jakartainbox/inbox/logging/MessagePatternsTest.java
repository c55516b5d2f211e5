package io.github.jakartainbox.inbox.logging;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.Field;
import java.text.MessageFormat;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * Every log and error text of every catalogue (inbox, outbox, billing, health, retention) comes out of
 * {@link MessageFormat} whole. In a MessageFormat pattern a single apostrophe starts a quoted literal, so in
 * {@code "every server's purge ... ({0})"} the {@code {0}} was printed as is and the apostrophe vanished
 * (INBOX0309W, OUTBOX0006E did that); an apostrophe must be written {@code ''}.
 */
class MessagePatternsTest {

    private static final Pattern PLACE = Pattern.compile("\\{(\\d+)(,[^}]*)?}");

    /** @return every message of every catalogue: id, pattern */
    private static Map<String, String> catalogue() throws Exception {
        Map<String, String> patterns = new LinkedHashMap<>();
        for (String type : List.of("io.github.jakartainbox.inbox.logging.InboxMessage",
                "io.github.jakartainbox.outbox.OutboxMessage", "io.github.jakartainbox.billing.BillingMessage")) {
            Class<?> catalogue = Class.forName(type);
            Field pattern = catalogue.getDeclaredField("pattern");
            pattern.setAccessible(true);
            for (Object message : catalogue.getEnumConstants()) {
                patterns.put(((Enum<?>) message).name(), (String) pattern.get(message));
            }
        }
        patterns.putAll(map("io.github.jakartainbox.inbox.health.Messages", "TEXTS"));
        patterns.putAll(map("io.github.jakartainbox.inbox.retention.RetentionCheck", "MESSAGES"));
        assertTrue(patterns.size() > 100, "the catalogues were read: " + patterns.size());
        return patterns;
    }

    @Test
    void everyPlaceholderIsFilledAndEveryApostropheKept() throws Exception {
        Map<String, String> patterns = catalogue();

        List<String> broken = new ArrayList<>();
        patterns.forEach((id, pattern) -> {
            Matcher places = PLACE.matcher(pattern);
            int count = 0;
            while (places.find()) {
                count = Math.max(count, Integer.parseInt(places.group(1)) + 1);
            }
            Object[] args = new Object[count];
            for (int i = 0; i < count; i++) {
                args[i] = "<arg" + i + ">";
            }
            String text = MessageFormat.format(pattern, args);
            long apostrophes = pattern.chars().filter(c -> c == '\'').count();
            boolean allFilled = true;
            places.reset();
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
     * An id's number names one message: INBOX0610W and INBOX0610I both existed for a while, so "INBOX0610" in a log
     * search or a runbook meant two things. The severity letter is not part of the number.
     */
    @Test
    void eachMessageNumberIsUsedOnce() throws Exception {
        Map<String, List<String>> byNumber = new LinkedHashMap<>();
        for (String id : catalogue().keySet()) {
            byNumber.computeIfAbsent(id.substring(0, id.length() - 1), k -> new ArrayList<>()).add(id);
        }
        List<List<String>> shared = byNumber.values().stream().filter(ids -> ids.size() > 1).toList();
        assertEquals(List.of(), shared, "message numbers used by more than one message");
    }

    @SuppressWarnings("unchecked")
    private static Map<String, String> map(String type, String field) throws Exception {
        Field texts = Class.forName(type).getDeclaredField(field);
        texts.setAccessible(true);
        return (Map<String, String>) texts.get(null);
    }
}
