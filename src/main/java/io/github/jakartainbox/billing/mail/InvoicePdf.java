package io.github.jakartainbox.billing.mail;

import io.github.jakartainbox.billing.invoice.Invoice;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.text.Bidi;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import org.apache.fontbox.ttf.CmapLookup;
import org.apache.fontbox.ttf.TTFParser;
import org.apache.fontbox.ttf.TrueTypeFont;
import org.apache.pdfbox.io.RandomAccessReadBuffer;
import org.apache.pdfbox.pdfwriter.compress.CompressParameters;
import org.apache.pdfbox.pdmodel.PDDocument;
import org.apache.pdfbox.pdmodel.PDPage;
import org.apache.pdfbox.pdmodel.PDPageContentStream;
import org.apache.pdfbox.pdmodel.common.PDRectangle;
import org.apache.pdfbox.pdmodel.font.PDFont;
import org.apache.pdfbox.pdmodel.font.PDType0Font;
import org.apache.pdfbox.pdmodel.font.PDType1Font;
import org.apache.pdfbox.pdmodel.font.Standard14Fonts;
import org.apache.pdfbox.pdmodel.font.encoding.GlyphList;
import org.apache.pdfbox.pdmodel.font.encoding.WinAnsiEncoding;

/**
 * Renders an invoice as a one-page A4 PDF (Apache PDFBox) in embedded Unicode TrueType fonts, so that order ids and
 * customer data in any script the fonts cover print as they are.
 *
 * <p><b>Fonts.</b> What the standard Helvetica (regular and bold) can encode, WinAnsi (Latin-1 and a few more), is
 * drawn in it, unembedded, as every PDF reader has it: an invoice in Latin script costs no font embedding, which
 * takes most of a render's time (about 2 ms of 2.3 for the two DejaVu faces' width tables and subsets). Everything
 * else is drawn in DejaVu Sans and DejaVu Sans Bold (Latin, Greek, Cyrillic, Arabic, Hebrew, many symbols and the
 * emoticons U+1F600..U+1F64F in black and white) and Noto Sans SC Regular as the fallback for what DejaVu lacks
 * (Chinese, Japanese kana; also used in bold lines, there is no bold CJK face). Each code point is drawn in the first
 * of these that has a glyph for it. The files are unpacked from Maven Central jars at build time (pom.xml, execution
 * {@code invoice-fonts}) with their licences: {@code fonts/dejavu/LICENSE} (Bitstream Vera licence, DejaVu changes
 * public domain) and {@code fonts/noto-sans-sc/OFL.txt} (SIL Open Font License 1.1).
 *
 * <p><b>Parsed once.</b> Each TTF is parsed once into a shared {@link TrueTypeFont}; a document makes its own
 * {@link PDType0Font} from it with subset embedding, and only for the fonts its text uses. PDFBox 3.0.8 allows this
 * from several threads at once: {@code TTFParser.parse} reads every table eagerly, later glyph reads synchronize on
 * the glyph table's data, table bytes are read under a lock, {@code getOriginalData()} hands out a new stream over
 * the in-memory copy, and the {@code close()} that subsetting calls on the shared font is a no-op for in-memory font
 * data. Nothing here enables GSUB substitutions ({@code enableGsubFeature}), whose caches are not thread-safe.
 *
 * <p><b>What no font covers</b> (Hangul, newer emoji such as U+1F9FE, unassigned code points, lone surrogates) and
 * <b>control and format characters</b> (C0/C1 controls, tab, line breaks, bidi overrides such as U+202E, zero-width
 * joiners) print as their code point in brackets, e.g. {@code [U+1F9FE]}: visible, unambiguous for whoever has to
 * look the order up, and a bidi override in customer data cannot reorder the printed line. The old renderer printed
 * '?' for all of these and for every character outside Latin-1.
 *
 * <p><b>Right-to-left text.</b> PDFBox neither reorders nor shapes. Each line is put into visual order here with the
 * JDK's Unicode Bidi Algorithm ({@link java.text.Bidi}, base direction left to right, as the labels are English),
 * characters of right-to-left runs reversed and brackets mirrored, and then drawn left to right. So Hebrew reads
 * correctly; Arabic reads in the right order but unshaped: each letter in its isolated form, not joined as in
 * handwriting or a shaping renderer. Text extraction (copy and paste, {@code PDFTextStripper}) turns the visual order
 * back into logical order.
 */
public final class InvoicePdf {

    private static final String FONTS = "/io/github/jakartainbox/billing/fonts/";

    /** The text's width on A4 between margins of 60 points. */
    private static final float WIDTH = PDRectangle.A4.getWidth() - 2 * 60;

    /** Regular text: Helvetica, then the embedded fonts. */
    private static final List<Face> REGULAR;
    /** Bold text (title, amount): Helvetica Bold, then the embedded fonts (regular CJK). */
    private static final List<Face> BOLD;

    /**
     * PDFBox's logger that warns, for each new standard 14 font, that this machine has no such font installed and a
     * fallback would draw it ("Using fallback font LiberationSans for base font Helvetica"). That fallback is only for
     * rendering the PDF to pixels, which this class never does: readers use their own Helvetica. The warning is
     * logged once, when the faces below are made, and then raised to SEVERE: a standard font made for a document
     * (see {@link Standard}) would log it again, two log records per mail, about 6% of the mailer's CPU on Liberty
     * (JFR samples). Held here so that the level stays set (JUL keeps loggers weakly).
     */
    private static final java.util.logging.Logger STANDARD_FONT_LOG =
            java.util.logging.Logger.getLogger(PDType1Font.class.getName());

    static {
        try {
            Face sans = new Embedded(parse("dejavu/DejaVuSans.ttf"));
            Face sansBold = new Embedded(parse("dejavu/DejaVuSans-Bold.ttf"));
            Face cjk = new Embedded(parse("noto-sans-sc/NotoSansSC-Regular.ttf"));
            REGULAR = List.of(new Standard(Standard14Fonts.FontName.HELVETICA), sans, cjk);
            BOLD = List.of(new Standard(Standard14Fonts.FontName.HELVETICA_BOLD), sansBold, cjk);
            // each Standard made its font once above: the fallback warning, if any, is in the log once per face
            STANDARD_FONT_LOG.setLevel(java.util.logging.Level.SEVERE);
        } catch (IOException e) {
            throw new UncheckedIOException("the invoice PDF's fonts could not be loaded", e);
        }
    }

    /** A font of the chain: which code points it draws, how wide, and its PDF font for one document. */
    private interface Face {
        /** @return whether the face has a glyph for the code point */
        boolean has(int codePoint);

        /** @return the code point's advance width in thousandths of the font size; only when {@link #has} */
        float advance(int codePoint);

        /** @return a PDF font of this face for one document, used by no other until {@link #release}d */
        PDFont load(PDDocument document) throws IOException;

        /** @param font a font {@link #load} returned, whose document is saved or abandoned */
        default void release(PDFont font) {
        }
    }

    /**
     * A standard 14 font, not embedded: WinAnsi's code points, widths read once from its metrics.
     *
     * <p>Its {@link PDType1Font}s are kept in a pool and lent to one document at a time. Making one per document took
     * about 12% of a mail's composing CPU (JFR samples): the constructor builds a font descriptor from the AFM metrics
     * (an average over all glyph widths) and asks the {@code FontMapper} for a glyph source (a dozen name lookups
     * ending in the fallback font), and the new font's encoding cache starts empty. PDFBox 3 fonts are not to be
     * shared between documents at once: {@code COSWriter} sets the font dictionary's object key while it saves, and
     * the caches are not all thread-safe. A font lent to a single document until it is saved is used by one thread at
     * a time, handed over through the pool's queue (a happens-before edge). What a document leaves in the dictionary
     * is replaced by the next one: the object key is set again by the next save (its writer numbers objects itself),
     * and the update state only matters for incremental saves, which a new document never makes. The dictionary holds
     * no object of the document (Type, Subtype, BaseFont, Encoding names only). The pool holds at most as many fonts as
     * documents were ever rendered at once.
     */
    private static final class Standard implements Face {
        private final Standard14Fonts.FontName name;
        private final Map<Integer, Float> widths = new HashMap<>();
        private final Queue<PDType1Font> idle = new ConcurrentLinkedQueue<>();

        Standard(Standard14Fonts.FontName name) throws IOException {
            this.name = name;
            PDType1Font font = new PDType1Font(name);
            idle.add(font);
            GlyphList glyphs = GlyphList.getAdobeGlyphList();
            for (Map.Entry<Integer, String> e : WinAnsiEncoding.INSTANCE.getCodeToNameMap().entrySet()) {
                String unicode = glyphs.toUnicode(e.getValue());
                if (unicode != null && unicode.codePointCount(0, unicode.length()) == 1 && font.hasGlyph(e.getValue())) {
                    widths.put(unicode.codePointAt(0), font.getWidth(e.getKey()));
                }
            }
        }

        @Override
        public boolean has(int codePoint) {
            return widths.containsKey(codePoint);
        }

        @Override
        public float advance(int codePoint) {
            return widths.get(codePoint);
        }

        @Override
        public PDFont load(PDDocument document) {
            PDType1Font font = idle.poll();
            return font != null ? font : new PDType1Font(name);
        }

        @Override
        public void release(PDFont font) {
            idle.add((PDType1Font) font);
        }
    }

    /** A TrueType font parsed once, embedded as a subset in each document that uses it. */
    private static final class Embedded implements Face {
        private final TrueTypeFont font;
        /** read once: a glyph id of 0 means no glyph */
        private final CmapLookup cmap;

        Embedded(TrueTypeFont font) throws IOException {
            this.font = font;
            this.cmap = font.getUnicodeCmapLookup();
        }

        @Override
        public boolean has(int codePoint) {
            return cmap.getGlyphId(codePoint) != 0;
        }

        @Override
        public float advance(int codePoint) {
            try {
                return font.getAdvanceWidth(cmap.getGlyphId(codePoint)) * 1000f / font.getUnitsPerEm();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }

        @Override
        public PDFont load(PDDocument document) throws IOException {
            // per document: the PDType0Font collects the glyphs this document uses and is subset at save()
            return PDType0Font.load(document, font, true);
        }
    }

    private InvoicePdf() {
    }

    private static TrueTypeFont parse(String name) throws IOException {
        try (InputStream in = InvoicePdf.class.getResourceAsStream(FONTS + name)) {
            if (in == null) {
                throw new IOException("font resource " + FONTS + name + " is missing (unpacked by the build)");
            }
            return new TTFParser().parse(new RandomAccessReadBuffer(in));
        }
    }

    /**
     * @param invoice the invoice
     * @return the PDF's bytes; it shows the invoice number, order id, customer, date, amount and currency
     */
    public static byte[] render(Invoice invoice) {
        Map<Face, PDFont> fonts = new HashMap<>();
        try (PDDocument document = new PDDocument(); ByteArrayOutputStream out = new ByteArrayOutputStream()) {
            PDPage page = new PDPage(PDRectangle.A4);
            document.addPage(page);
            draw(document, page, fonts, invoice);
            // the title is document metadata (UTF-16 in the PDF): no font, no fallback needed beyond controls
            document.getDocumentInformation().setTitle("Invoice " + printable(nullToEmpty(invoice.getInvoiceNumber()),
                    cp -> true));
            // without object streams (a classic cross-reference table; the page's content stream is still
            // compressed): packing a one-page document's few objects into a compressed object stream and an xref
            // stream took about 40% of a render's CPU for some hundred bytes
            document.save(out, CompressParameters.NO_COMPRESSION);
            return out.toByteArray();
        } catch (IOException e) {
            throw new UncheckedIOException("the invoice PDF could not be rendered", e);
        } finally {
            // the document is saved (or abandoned) and closed: nothing writes through these fonts for it any more
            fonts.forEach(Face::release);
        }
    }

    /** Draws the invoice's lines on the page, loading into {@code fonts} the faces they use. */
    private static void draw(PDDocument document, PDPage page, Map<Face, PDFont> fonts, Invoice invoice)
            throws IOException {
        try (PDPageContentStream text = new PDPageContentStream(document, page)) {
            text.beginText();
            text.newLineAtOffset(60, 770);
            text.setLeading(18);
            show(text, document, fonts, BOLD, 20, "Invoice " + nullToEmpty(invoice.getInvoiceNumber()));
            text.newLine();
            text.newLine();
            show(text, document, fonts, REGULAR, 12, "Order: " + nullToEmpty(invoice.getOrderId()));
            text.newLine();
            show(text, document, fonts, REGULAR, 12, "Customer: " + nullToEmpty(invoice.getCustomerEmail()));
            text.newLine();
            show(text, document, fonts, REGULAR, 12,
                    "Date: " + invoice.getCreatedAt().format(DateTimeFormatter.ISO_LOCAL_DATE));
            text.newLine();
            text.newLine();
            show(text, document, fonts, BOLD, 14,
                    "Amount: " + invoice.getAmount().toPlainString() + " " + invoice.getCurrency());
            text.endText();
        }
    }

    /**
     * Draws one logical line: printable, wrapped at the right margin (a 200-character order id does not fit), each
     * physical line in visual order, each stretch of code points in the first font that has them.
     */
    private static void show(PDPageContentStream text, PDDocument document, Map<Face, PDFont> loaded,
                             List<Face> fonts, float size, String line) throws IOException {
        List<String> lines = wrap(printable(line, cp -> fontFor(fonts, cp) != null), fonts, size);
        for (int l = 0; l < lines.size(); l++) {
            if (l > 0) {
                text.newLine();
            }
            String visual = visualOrder(lines.get(l));
            Face current = null;
            StringBuilder run = new StringBuilder();
            for (int i = 0; i < visual.length(); ) {
                int cp = visual.codePointAt(i);
                Face font = fontFor(fonts, cp);
                if (font != current && run.length() > 0) {
                    showRun(text, document, loaded, current, size, run);
                }
                current = font;
                run.appendCodePoint(cp);
                i += Character.charCount(cp);
            }
            if (run.length() > 0) {
                showRun(text, document, loaded, current, size, run);
            }
        }
    }

    /** @return the printable line cut, by code point, into pieces no wider than {@link #WIDTH} */
    private static List<String> wrap(String line, List<Face> fonts, float size) {
        List<String> lines = new ArrayList<>();
        StringBuilder current = new StringBuilder();
        float width = 0;
        for (int i = 0; i < line.length(); ) {
            int cp = line.codePointAt(i);
            float advance = fontFor(fonts, cp).advance(cp) * size / 1000f;
            if (width + advance > WIDTH && current.length() > 0) {
                lines.add(current.toString());
                current.setLength(0);
                width = 0;
            }
            current.appendCodePoint(cp);
            width += advance;
            i += Character.charCount(cp);
        }
        lines.add(current.toString());
        return lines;
    }

    private static void showRun(PDPageContentStream text, PDDocument document, Map<Face, PDFont> loaded,
                                Face font, float size, StringBuilder run) throws IOException {
        PDFont pdFont = loaded.get(font);
        if (pdFont == null) {
            pdFont = font.load(document);
            loaded.put(font, pdFont);
        }
        text.setFont(pdFont, size);
        text.showText(run.toString());
        run.setLength(0);
    }

    /** @return the first font with a glyph for the code point, {@code null} when none has one */
    private static Face fontFor(List<Face> fonts, int codePoint) {
        for (Face font : fonts) {
            if (font.has(codePoint)) {
                return font;
            }
        }
        return null;
    }

    /** Which code points a font can draw. */
    @FunctionalInterface
    interface Coverage {
        boolean covers(int codePoint);
    }

    /**
     * @param text    any string, lone surrogates included
     * @param covered which code points have a glyph
     * @return the text with each control or format character (but the space), each character without a glyph and
     *         each lone surrogate or unassigned code point replaced by {@code [U+XXXX]}
     */
    static String printable(String text, Coverage covered) {
        StringBuilder out = new StringBuilder(text.length());
        text.codePoints().forEach(cp -> {
            int type = Character.getType(cp);
            boolean drawable = type != Character.CONTROL && type != Character.FORMAT && type != Character.SURROGATE
                    && type != Character.UNASSIGNED && type != Character.PRIVATE_USE
                    && (cp == ' ' || !Character.isWhitespace(cp)) && covered.covers(cp);
            if (drawable) {
                out.appendCodePoint(cp);
            } else {
                out.append(String.format(Locale.ROOT, "[U+%04X]", cp));
            }
        });
        return out.toString();
    }

    /**
     * @param line a printable line (no bidi controls left)
     * @return the line in visual order, left to right, by the Unicode Bidi Algorithm with a left-to-right base
     *         direction: right-to-left runs reversed by code point, their mirrored characters (brackets) mirrored
     */
    static String visualOrder(String line) {
        Bidi bidi = new Bidi(line, Bidi.DIRECTION_LEFT_TO_RIGHT);
        if (bidi.isLeftToRight()) {
            return line;
        }
        int count = bidi.getRunCount();
        byte[] levels = new byte[count];
        Integer[] runs = new Integer[count];
        for (int i = 0; i < count; i++) {
            levels[i] = (byte) bidi.getRunLevel(i);
            runs[i] = i;
        }
        Bidi.reorderVisually(levels, 0, runs, 0, count);
        StringBuilder out = new StringBuilder(line.length());
        for (Integer run : runs) {
            String part = line.substring(bidi.getRunStart(run), bidi.getRunLimit(run));
            if ((bidi.getRunLevel(run) & 1) == 0) {
                out.append(part);
            } else {
                int[] cps = part.codePoints().toArray();
                for (int i = cps.length - 1; i >= 0; i--) {
                    out.appendCodePoint(mirror(cps[i]));
                }
            }
        }
        return out.toString();
    }

    private static int mirror(int cp) {
        return switch (cp) {
            case '(' -> ')';
            case ')' -> '(';
            case '[' -> ']';
            case ']' -> '[';
            case '{' -> '}';
            case '}' -> '{';
            case '<' -> '>';
            case '>' -> '<';
            case '\u00AB' -> '\u00BB';
            case '\u00BB' -> '\u00AB';
            default -> cp;
        };
    }

    private static String nullToEmpty(String text) {
        return text == null ? "" : text;
    }
}
