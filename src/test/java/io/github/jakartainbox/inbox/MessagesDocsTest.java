package io.github.jakartainbox.inbox;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.jakartainbox.docs.Markdown;
import io.github.jakartainbox.inbox.text.CataloguedMessage;
import io.github.jakartainbox.inbox.text.Catalogues;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** docs/messages.md is the message catalogues, not a copy: every id in code is there with a cause and an action. */
class MessagesDocsTest {

    private static final Path PAGE = Path.of("docs/messages.md");
    private static final Pattern ID_CELL =
            Pattern.compile("`([A-Z]+)(\\d{4})([IWE])`(?: - `([A-Z]+)(\\d{4})([IWE])`)?");
    private static final Pattern ROW = Pattern.compile("\\|\\s*`[A-Z]+\\d{4}[IWE]`.*");

    /** @return every id of the catalogues */
    static Set<String> catalogue() throws Exception {
        Set<String> ids = new TreeSet<>();
        for (CataloguedMessage message : Catalogues.messages()) {
            ids.add(message.name());
        }
        return ids;
    }

    @Test
    void everyIdOfEveryCatalogueIsOnThePageWithCauseAndActionAndNoOther() throws Exception {
        Set<String> catalogue = catalogue();
        assertTrue(catalogue.size() > 150, "the catalogues were read: " + catalogue.size());
        Set<String> onPage = new TreeSet<>();
        List<String> bad = new ArrayList<>();
        for (String line : Markdown.prose(Markdown.read(PAGE))) {
            if (!ROW.matcher(line).matches()) {
                continue;
            }
            List<String> cells = Markdown.cells(line);
            Matcher m = ID_CELL.matcher(cells.get(0));
            if (!m.matches() || cells.size() != 3 || cells.get(1).isBlank() || cells.get(2).isBlank()) {
                bad.add(line);
                continue;
            }
            if (m.group(4) == null) {
                assertTrue(onPage.add(cells.get(0).replace("`", "")), "listed twice: " + cells.get(0));
            } else {
                int from = Integer.parseInt(m.group(2));
                int to = Integer.parseInt(m.group(5));
                catalogue.stream().filter(id -> id.startsWith(m.group(1))
                        && Integer.parseInt(id.substring(m.group(1).length(), id.length() - 1)) >= from
                        && Integer.parseInt(id.substring(m.group(1).length(), id.length() - 1)) <= to)
                        .forEach(onPage::add);
            }
        }
        assertEquals(List.of(), bad, "rows of the form | `ID` (or `ID` - `ID`) | cause | action |");
        Set<String> missing = new TreeSet<>(catalogue);
        missing.removeAll(onPage);
        Set<String> unknown = new TreeSet<>(onPage);
        unknown.removeAll(catalogue);
        assertEquals(Set.of(), missing, "ids of the catalogues missing from the page");
        assertEquals(Set.of(), unknown, "ids on the page that no catalogue has");
    }

    @Test
    void eachCatalogueKeepsToItsRangeAndNoTwoRangesOverlap() {
        List<Catalogues.Catalogue> all = Catalogues.all();
        assertTrue(all.size() >= 8, "the table was read: " + all);
        List<String> outside = new ArrayList<>();
        for (Catalogues.Catalogue catalogue : all) {
            catalogue.messages().stream().filter(m -> !catalogue.holds(m.name()))
                    .forEach(m -> outside.add(m.name() + " in " + catalogue.type().getSimpleName()));
            for (Catalogues.Catalogue other : all) {
                if (other != catalogue && other.prefix().equals(catalogue.prefix())) {
                    assertTrue(other.to() < catalogue.from() || other.from() > catalogue.to(),
                            catalogue + " overlaps " + other);
                }
            }
        }
        assertEquals(List.of(), outside, "ids outside their catalogue's range");
    }
}
