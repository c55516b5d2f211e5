package io.github.jakartainbox.docs;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * Just enough of GitHub-flavoured Markdown for the docs checks: headings and their anchors, pipe tables, links.
 * Fenced code blocks are skipped everywhere.
 */
public final class Markdown {

    /** @return the metric names of docs/observability.md's metrics table, as Prometheus shows them */
    public static List<String> documentedMetrics() {
        List<String> names = new ArrayList<>();
        try {
            Matcher row = Pattern.compile("(?m)^\\| `((?:inbox|outbox)_[a-z_]+)` \\|").matcher(
                    Files.readString(Path.of("docs/observability.md")));
            while (row.find()) {
                names.add(row.group(1));
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return names;
    }

    /** The front page and every page under docs/. */
    public static List<Path> pages() {
        List<Path> pages = new ArrayList<>(List.of(Path.of("README.md")));
        try (Stream<Path> docs = Files.walk(Path.of("docs"))) {
            docs.filter(p -> p.toString().endsWith(".md")).sorted().forEach(pages::add);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return pages;
    }

    public static String read(Path page) {
        try {
            return Files.readString(page, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** @return the page's lines outside fenced code blocks (those inside are blank, so line numbers hold) */
    public static List<String> prose(String text) {
        List<String> lines = new ArrayList<>();
        boolean fenced = false;
        for (String line : text.lines().toList()) {
            if (line.stripLeading().startsWith("```")) {
                fenced = !fenced;
                lines.add("");
            } else {
                lines.add(fenced ? "" : line);
            }
        }
        return lines;
    }

    /** @return the anchors GitHub makes for the page's headings, duplicates numbered -1, -2 as GitHub does */
    public static Set<String> anchors(String text) {
        Set<String> anchors = new LinkedHashSet<>();
        Map<String, Integer> seen = new HashMap<>();
        for (String line : prose(text)) {
            Matcher m = HEADING.matcher(line);
            if (m.matches()) {
                String slug = slug(m.group(2));
                int n = seen.merge(slug, 1, Integer::sum) - 1;
                anchors.add(n == 0 ? slug : slug + "-" + n);
            }
        }
        return anchors;
    }

    private static final Pattern HEADING = Pattern.compile("(#{1,6})\\s+(.*?)\\s*#*\\s*");
    private static final Pattern INLINE_LINK = Pattern.compile("!?\\[([^\\]]*)]\\([^)]*\\)");

    /** GitHub's anchor for a heading: its text without markup, lower case, punctuation but - and _ dropped. */
    public static String slug(String heading) {
        String text = INLINE_LINK.matcher(heading).replaceAll("$1").toLowerCase(java.util.Locale.ROOT);
        StringBuilder slug = new StringBuilder();
        text.codePoints().forEach(c -> {
            if (c == ' ') {
                slug.append('-');
            } else if (c == '-' || c == '_' || Character.isLetterOrDigit(c)
                    || Character.getType(c) == Character.NON_SPACING_MARK) {
                slug.appendCodePoint(c);
            }
        });
        return slug.toString();
    }

    /**
     * @param heading a heading's text as written after the #s
     * @return the cells of each body row of the first table after that heading (header and separator left out)
     */
    public static List<List<String>> table(String text, String heading) {
        List<String> lines = prose(text);
        int at = -1;
        for (int i = 0; i < lines.size() && at < 0; i++) {
            Matcher m = HEADING.matcher(lines.get(i));
            if (m.matches() && m.group(2).equals(heading)) {
                at = i;
            }
        }
        if (at < 0) {
            throw new AssertionError("no heading \"" + heading + "\"");
        }
        int start = at + 1;
        while (start < lines.size() && !lines.get(start).startsWith("|")) {
            if (HEADING.matcher(lines.get(start)).matches()) {
                throw new AssertionError("no table under \"" + heading + "\"");
            }
            start++;
        }
        List<List<String>> rows = new ArrayList<>();
        for (int i = start + 2; i < lines.size() && lines.get(i).startsWith("|"); i++) {
            rows.add(cells(lines.get(i)));
        }
        return rows;
    }

    /** @return a table row's cells, trimmed, split at each | that is not escaped as \| */
    public static List<String> cells(String row) {
        List<String> cells = new ArrayList<>();
        StringBuilder cell = new StringBuilder();
        String inner = row.strip();
        inner = inner.substring(1, inner.endsWith("|") && !inner.endsWith("\\|") ? inner.length() - 1 : inner.length());
        for (int i = 0; i < inner.length(); i++) {
            char c = inner.charAt(i);
            if (c == '\\' && i + 1 < inner.length() && inner.charAt(i + 1) == '|') {
                cell.append('|');
                i++;
            } else if (c == '|') {
                cells.add(cell.toString().strip());
                cell.setLength(0);
            } else {
                cell.append(c);
            }
        }
        cells.add(cell.toString().strip());
        return cells;
    }

    private static final Pattern KEY_CELL = Pattern.compile("`([^`]+)`(?: \\(.*\\))?");

    /** @return the one key a table's first cell names: {@code `db.password` (env DB_PASSWORD)} gives db.password */
    public static String key(String cell) {
        Matcher m = KEY_CELL.matcher(cell);
        if (!m.matches()) {
            throw new AssertionError("a key cell names one key in backticks, optionally followed by (...): " + cell);
        }
        return m.group(1);
    }

    private static final Pattern LINK = Pattern.compile("!?\\[[^\\]]*]\\(([^)\\s]+)(?:\\s+\"[^\"]*\")?\\)");
    private static final Pattern CODE_SPAN = Pattern.compile("`[^`]*`");

    /** @return the targets of the page's inline links and images, outside code */
    public static List<String> links(String text) {
        List<String> targets = new ArrayList<>();
        for (String line : prose(text)) {
            Matcher m = LINK.matcher(CODE_SPAN.matcher(line).replaceAll("code"));
            while (m.find()) {
                targets.add(m.group(1));
            }
        }
        return targets;
    }

    private Markdown() {
    }
}
