package io.github.jakartainbox.billing.mail;

import io.github.jakartainbox.billing.invoice.Invoice;
import io.github.jakartainbox.billing.order.OrderConfirmed;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.lang.reflect.Field;
import java.math.BigDecimal;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.pdfbox.Loader;
import org.apache.pdfbox.cos.COSName;
import org.apache.pdfbox.pdmodel.PDDocument;
import org.apache.pdfbox.pdmodel.PDPage;
import org.apache.pdfbox.pdmodel.font.PDFont;
import org.apache.pdfbox.pdmodel.font.PDType0Font;
import org.apache.pdfbox.text.PDFTextStripper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The invoice PDF prints order ids and customer data in any covered script as they are (parsed back). */
class InvoicePdfTest {

    static Invoice invoice(String orderId, String customer) {
        Invoice invoice = new Invoice(42, new OrderConfirmed("0b6b5a2e-5f5e-4a53-9d35-3b1f0c1b2a11", orderId, customer,
                new BigDecimal("129.90"), "EUR"), OffsetDateTime.of(2026, 3, 14, 9, 30, 0, 0, ZoneOffset.UTC));
        try {
            // set by the database's default (V1__billing.sql), never by the entity
            Field number = Invoice.class.getDeclaredField("invoiceNumber");
            number.setAccessible(true);
            number.set(invoice, "INV-000000042");
        } catch (ReflectiveOperationException e) {
            throw new AssertionError(e);
        }
        return invoice;
    }

    /** @return the PDF's text, lines joined (a long line wraps) */
    static String text(byte[] pdf) throws IOException {
        try (PDDocument document = Loader.loadPDF(pdf)) {
            return new PDFTextStripper().getText(document).replace("\r", "").replace("\n", "");
        }
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
        "CJK        | 注文-12345            | 山田太郎@例え.jp",
        "kana       | ご注文-アイウ-77       | さくら@example.jp",
        "Cyrillic   | Заказ-7               | иван@пример.рф",
        "Greek      | Παραγγελία-9          | πελάτης@παράδειγμα.gr",
        "accents    | Bestellung-Üñçøőł-3   | zoë.dvořák@müller.de",
        "ligatures  | office-fi-ffl-ff      | office@finance.example",
        "emoticon   | order-😀-5            | smile😀@example.com",
        "mixed      | 注文-Заказ-Ω-é-1       | 李@例え.中国",
    })
    void printsCoveredCharactersAsTheyAre(String script, String orderId, String customer) throws IOException {
        String text = text(InvoicePdf.render(invoice(orderId, customer)));

        assertTrue(text.contains("Order: " + orderId), script + ": " + text);
        assertTrue(text.contains("Customer: " + customer), script + ": " + text);
        assertFalse(text.contains("?"), script + ": a covered character became '?': " + text);
        assertFalse(text.contains("[U+"), script + ": a covered character fell back: " + text);
    }

    @Test
    void keepsTheRestOfTheContent() throws IOException {
        String text = text(InvoicePdf.render(invoice("A-1", "a@example.com")));

        assertTrue(text.contains("Invoice INV-000000042"), text);
        assertTrue(text.contains("Date: 2026-03-14"), text);
        assertTrue(text.contains("Amount: 129.90 EUR"), text);
    }

    /** Right-to-left text is drawn in visual order, so extraction gives the logical order of a word back. */
    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
        "Hebrew     | הזמנה        | דוד@דוגמה.co.il",
        "Arabic     | طلب          | محمد@مثال.com",
    })
    void printsRightToLeftTextInVisualOrder(String script, String orderId, String customer) throws IOException {
        String text = text(InvoicePdf.render(invoice(orderId, customer)));

        assertTrue(text.contains("Order: " + orderId), script + ": " + text);
        assertTrue(text.contains("Customer: " + customer), script + ": " + text);
        assertFalse(text.contains("?"), text);
    }

    /**
     * Digits after right-to-left letters join their run (Unicode Bidi Algorithm): the page shows "42-" at the left of
     * the word, as a browser does, and PDFTextStripper, reading words left to right, extracts "42-" first.
     */
    @Test
    void printsDigitsAfterRightToLeftLettersAsTheBidiAlgorithmPlacesThem() throws IOException {
        String text = text(InvoicePdf.render(invoice("\u05D4\u05D6\u05DE\u05E0\u05D4-42", "c@example.com")));

        assertTrue(text.contains("Order: 42-\u05D4\u05D6\u05DE\u05E0\u05D4"), text);
    }

    @Test
    void putsRightToLeftRunsIntoVisualOrder() {
        // logical: shin, lamed, vav, mem; drawn left to right as mem, vav, lamed, shin
        assertEquals("Order: \u05DD\u05D5\u05DC\u05E9", InvoicePdf.visualOrder("Order: \u05E9\u05DC\u05D5\u05DD"));
        // a number after the word joins its run, and the brackets are mirrored
        assertEquals("Order: (1) \u05DD\u05D5\u05DC\u05E9",
                InvoicePdf.visualOrder("Order: \u05E9\u05DC\u05D5\u05DD (1)"));
        // a bracket pair inside right-to-left text belongs to the run (paired brackets, UBA rule N0)
        assertEquals("x (\u05D1)\u05D0 y", InvoicePdf.visualOrder("x \u05D0(\u05D1) y"));
        assertEquals("plain ascii", InvoicePdf.visualOrder("plain ascii"));
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
        "receipt emoji (no font)     | r-\uD83E\uDDFE-1 | r-[U+1F9FE]-1",
        "Hangul (no font)            | 주문-2            | [U+C8FC][U+BB38]-2",
        "bell control                | a\u0007b         | a[U+0007]b",
        "tab                         | a\tb             | a[U+0009]b",
        "right-to-left override      | \u202Eabc        | [U+202E]abc",
        "zero width joiner           | a\u200Db         | a[U+200D]b",
        "lone surrogate              | a\uD800b         | a[U+D800]b",
        "private use                 | a\uE000b         | a[U+E000]b",
    })
    void printsWhatNoFontCoversAsItsCodePoint(String what, String orderId, String expected) throws IOException {
        String text = text(InvoicePdf.render(invoice(orderId, "c@example.com")));

        assertTrue(text.contains("Order: " + expected), what + ": " + text);
        assertFalse(text.contains("?"), what + ": " + text);
    }

    @Test
    void printsAnIdOf200CodePointsWhole() throws IOException {
        int[] alphabet = "注文ЖΩéאب😀a1".codePoints().toArray();
        StringBuilder id = new StringBuilder();
        for (int i = 0; i < 200; i++) {
            id.appendCodePoint(alphabet[i % 5 == 4 ? 8 + i % 2 : i % 5]); // no right-to-left, see above
        }
        assertEquals(200, id.codePointCount(0, id.length()));

        String text = text(InvoicePdf.render(invoice(id.toString(), "long@example.com")));

        assertTrue(text.contains("Order: " + id + "Customer: long@example.com"), text);
        assertFalse(text.contains("?"), text);
    }

    @Test
    void drawsLatinInTheStandardHelveticaAndEmbedsSubsetsOfOnlyTheOtherFontsTheTextUses() throws IOException {
        List<String> latinOnly = fontNames(InvoicePdf.render(invoice("A-1", "a@example.com")));
        List<String> withCyrillic = fontNames(InvoicePdf.render(invoice("заказ-1", "a@example.com")));
        List<String> withCjk = fontNames(InvoicePdf.render(invoice("注文-1", "a@example.com")));

        assertEquals(List.of("Helvetica", "Helvetica-Bold"), latinOnly.stream().sorted().toList(),
                "Latin text needs no embedded font");
        assertEquals(3, withCyrillic.size(), withCyrillic.toString());
        assertTrue(withCyrillic.stream().anyMatch(n -> n.matches("[A-Z]{6}\\+DejaVuSans")), withCyrillic.toString());
        assertEquals(3, withCjk.size(), withCjk.toString());
        assertTrue(withCjk.stream().anyMatch(n -> n.matches("[A-Z]{6}\\+NotoSansSC-Regular")), withCjk.toString());
    }

    /** @return the page's font names; every font but the standard 14 is a Type 0 font with an embedded subset */
    private static List<String> fontNames(byte[] pdf) throws IOException {
        List<String> names = new ArrayList<>();
        try (PDDocument document = Loader.loadPDF(pdf)) {
            PDPage page = document.getPage(0);
            for (COSName name : page.getResources().getFontNames()) {
                PDFont font = page.getResources().getFont(name);
                if (!font.isStandard14()) {
                    assertTrue(font instanceof PDType0Font, font.getName());
                    assertTrue(((PDType0Font) font).getDescendantFont().getFontDescriptor().getFontFile2() != null,
                            font.getName() + " is not embedded");
                }
                names.add(font.getName());
            }
        }
        return names;
    }

    /** Several mailer threads render at once from the shared fonts. */
    @Test
    void rendersConcurrently() throws Exception {
        int threads = 8;
        int each = 200;
        String[] ids = {"注文-12345", "Заказ-7", "Παραγγελία-9", "zoë-😀", "A-1"};
        // right-to-left words without digits: see printsDigitsAfterRightToLeftLettersAsTheBidiAlgorithmPlacesThem
        String[] customers = {"客户@пример.рф", "דוד@דוגמה.co.il", "محمد@مثال.com", "zoë@müller.de", "office@fi.example"};
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            List<Future<Integer>> results = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                int thread = t;
                results.add(pool.submit(() -> {
                    for (int i = 0; i < each; i++) {
                        String orderId = ids[(thread + i) % ids.length] + "-" + thread + "-" + i;
                        String customer = customers[i % customers.length];
                        String text = text(InvoicePdf.render(invoice(orderId, customer)));
                        if (!text.contains("Order: " + orderId) || !text.contains("Customer: " + customer)
                                || text.contains("?") || text.contains("[U+")) {
                            throw new AssertionError("thread " + thread + ", PDF " + i + ": " + text);
                        }
                    }
                    return each;
                }));
            }
            int rendered = 0;
            for (Future<Integer> result : results) {
                rendered += result.get(10, TimeUnit.MINUTES);
            }
            assertEquals(threads * each, rendered);
        } finally {
            pool.shutdownNow();
        }
    }
}
