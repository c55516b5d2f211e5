package io.github.jakartainbox.docs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Every relative link and #anchor in README.md and docs/ leads somewhere: a file that exists, a heading it has. */
class DocsLinksTest {

    @Test
    void everyRelativeLinkAndAnchorResolves() {
        List<String> broken = new ArrayList<>();
        int checked = 0;
        for (Path page : Markdown.pages()) {
            for (String target : Markdown.links(Markdown.read(page))) {
                if (target.matches("(?i)[a-z][a-z0-9+.-]*:.*")) {
                    continue; // https:, mailto:: not ours to check
                }
                checked++;
                int hash = target.indexOf('#');
                String file = hash < 0 ? target : target.substring(0, hash);
                String anchor = hash < 0 ? null : target.substring(hash + 1);
                Path to = file.isEmpty() ? page : page.toAbsolutePath().getParent().resolve(file).normalize();
                if (!Files.exists(to)) {
                    broken.add(page + ": " + target + " (no file " + to + ")");
                } else if (anchor != null && !(to.toString().endsWith(".md")
                        && Markdown.anchors(Markdown.read(to)).contains(anchor))) {
                    broken.add(page + ": " + target + " (no heading with anchor #" + anchor + ")");
                }
            }
        }
        assertTrue(checked > 50, "the pages' links were read: " + checked);
        assertEquals(List.of(), broken, "links that lead nowhere");
    }

    @Test
    void anchorsAreMadeAsGitHubMakesThem() {
        assertEquals("grouped-delivery-the-inbox-kafka-connector",
                Markdown.slug("Grouped delivery: the `inbox-kafka` connector"));
        assertEquals("xa-optional", Markdown.slug("XA (optional)"));
        assertEquals("message-driven-beans-jakarta-messaging", Markdown.slug("Message-driven beans (Jakarta Messaging)"));
        assertEquals(List.of("a", "a-1", "a-2"), List.copyOf(Markdown.anchors("# A\n## a\n```\n# not\n```\n### A\n")));
    }
}
