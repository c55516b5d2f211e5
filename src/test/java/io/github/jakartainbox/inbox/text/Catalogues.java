package io.github.jakartainbox.inbox.text;

import io.github.jakartainbox.docs.Markdown;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** The project's message catalogues as docs/messages.md lists them, with their ranges, for the tests that check them. */
public final class Catalogues {

    private static final Pattern RANGE = Pattern.compile("`([A-Z]+)(\\d{4})` - `([A-Z]+)(\\d{4})`");

    /**
     * One catalogue and its range of ids.
     *
     * @param type   the enum
     * @param prefix the ids' prefix, such as {@code INBOX}
     * @param from   the lowest number
     * @param to     the highest number
     */
    public record Catalogue(Class<?> type, String prefix, int from, int to) {

        /** @return whether the id is in this range */
        public boolean holds(String id) {
            if (!id.startsWith(prefix) || !id.substring(prefix.length()).matches("\\d{4}[IWE]")) {
                return false;
            }
            int number = Integer.parseInt(id.substring(prefix.length(), prefix.length() + 4));
            return number >= from && number <= to;
        }

        /** @return its messages */
        public List<CataloguedMessage> messages() {
            List<CataloguedMessage> messages = new ArrayList<>();
            for (Object message : type.getEnumConstants()) {
                messages.add((CataloguedMessage) message);
            }
            return messages;
        }
    }

    private Catalogues() {
    }

    /** @return the catalogues of docs/messages.md's table "Catalogues", in its order */
    public static List<Catalogue> all() {
        List<Catalogue> all = new ArrayList<>();
        for (List<String> cells : Markdown.table(Markdown.read(Path.of("docs/messages.md")), "Catalogues")) {
            String type = cells.get(0).replace("`", "");
            Matcher range = RANGE.matcher(cells.get(1));
            if (!range.matches() || !range.group(1).equals(range.group(3))) {
                throw new AssertionError("a range is `PREFIX0001` - `PREFIX0599`: " + cells.get(1));
            }
            try {
                all.add(new Catalogue(Class.forName(type), range.group(1), Integer.parseInt(range.group(2)),
                        Integer.parseInt(range.group(4))));
            } catch (ClassNotFoundException e) {
                throw new AssertionError("docs/messages.md names catalogue " + type + ", which is not there", e);
            }
        }
        return all;
    }

    /** @return every message of every catalogue */
    public static List<CataloguedMessage> messages() {
        List<CataloguedMessage> messages = new ArrayList<>();
        all().forEach(c -> messages.addAll(c.messages()));
        return messages;
    }
}
