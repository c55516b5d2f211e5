package io.github.jakartainbox.billing.mail;

import io.github.jakartainbox.billing.invoice.Invoice;
import io.github.jakartainbox.billing.order.OrderConfirmed;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.reflect.Field;
import java.math.BigDecimal;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.Function;
import org.apache.pdfbox.pdmodel.PDDocument;
import org.apache.pdfbox.pdmodel.PDPage;
import org.apache.pdfbox.pdmodel.PDPageContentStream;
import org.apache.pdfbox.pdmodel.common.PDRectangle;
import org.apache.pdfbox.pdmodel.font.PDType1Font;
import org.apache.pdfbox.pdmodel.font.Standard14Fonts;

/**
 * Render time per invoice PDF, median after warm-up, of the former Helvetica renderer (copied below) and of
 * {@link InvoicePdf}, on 1 and 2 threads, and the PDF sizes. Prints; asserts nothing.
 * Run: {@code bin/benchmark pdf [renders per thread, default 2000]}.
 */
public final class InvoicePdfBenchmark {

    public static void main(String[] args) throws Exception {
        int renders = args.length > 0 ? Integer.parseInt(args[0]) : 2000;
        Invoice latin = invoice("ORD-2026-000123", "anna.mueller@example.com");
        Invoice cjk = invoice("注文-12345", "山田太郎@例え.jp");
        long t0 = System.nanoTime();
        InvoicePdf.render(latin);
        System.out.printf(Locale.ROOT, "first render (fonts parsed): %.0f ms%n", (System.nanoTime() - t0) / 1e6);
        System.out.printf(Locale.ROOT, "%-28s %8s %14s %14s %10s%n", "renderer / invoice", "threads", "median ms",
                "p90 ms", "PDF bytes");
        for (int threads : new int[] {1, 2}) {
            run("Helvetica (old), Latin", InvoicePdfBenchmark::helvetica, latin, threads, renders);
            run("now, Latin (Helvetica)", InvoicePdf::render, latin, threads, renders);
            run("now, with CJK (embedded)", InvoicePdf::render, cjk, threads, renders);
        }
    }

    private static void run(String name, Function<Invoice, byte[]> renderer, Invoice invoice, int threads, int renders)
            throws Exception {
        for (int i = 0; i < 500; i++) {
            renderer.apply(invoice); // warm-up
        }
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            List<Future<long[]>> futures = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                futures.add(pool.submit(() -> {
                    long[] nanos = new long[renders];
                    for (int i = 0; i < renders; i++) {
                        long start = System.nanoTime();
                        renderer.apply(invoice);
                        nanos[i] = System.nanoTime() - start;
                    }
                    return nanos;
                }));
            }
            long[] all = new long[0];
            for (Future<long[]> f : futures) {
                long[] n = f.get();
                long[] merged = Arrays.copyOf(all, all.length + n.length);
                System.arraycopy(n, 0, merged, all.length, n.length);
                all = merged;
            }
            Arrays.sort(all);
            System.out.printf(Locale.ROOT, "%-28s %8d %14.3f %14.3f %10d%n", name, threads, all[all.length / 2] / 1e6,
                    all[all.length * 9 / 10] / 1e6, renderer.apply(invoice).length);
        } finally {
            pool.shutdown();
        }
    }

    private static Invoice invoice(String orderId, String customer) throws ReflectiveOperationException {
        Invoice invoice = new Invoice(42, new OrderConfirmed("0b6b5a2e-5f5e-4a53-9d35-3b1f0c1b2a11", orderId, customer,
                new BigDecimal("129.90"), "EUR"), OffsetDateTime.of(2026, 3, 14, 9, 30, 0, 0, ZoneOffset.UTC));
        Field number = Invoice.class.getDeclaredField("invoiceNumber");
        number.setAccessible(true);
        number.set(invoice, "INV-000000042");
        return invoice;
    }

    /** The renderer before the embedded fonts (standard 14 Helvetica, WinAnsi only), as the baseline. */
    static byte[] helvetica(Invoice invoice) {
        PDType1Font bold = new PDType1Font(Standard14Fonts.FontName.HELVETICA_BOLD);
        PDType1Font regular = new PDType1Font(Standard14Fonts.FontName.HELVETICA);
        try (PDDocument document = new PDDocument(); ByteArrayOutputStream out = new ByteArrayOutputStream()) {
            PDPage page = new PDPage(PDRectangle.A4);
            document.addPage(page);
            try (PDPageContentStream text = new PDPageContentStream(document, page)) {
                text.beginText();
                text.setFont(bold, 20);
                text.newLineAtOffset(60, 770);
                text.showText("Invoice " + winAnsi(invoice.getInvoiceNumber()));
                text.setFont(regular, 12);
                text.setLeading(18);
                text.newLine();
                text.newLine();
                text.showText("Order: " + winAnsi(invoice.getOrderId()));
                text.newLine();
                text.showText("Customer: " + winAnsi(invoice.getCustomerEmail()));
                text.newLine();
                text.showText("Date: " + invoice.getCreatedAt().format(DateTimeFormatter.ISO_LOCAL_DATE));
                text.newLine();
                text.newLine();
                text.setFont(bold, 14);
                text.showText("Amount: " + invoice.getAmount().toPlainString() + " " + invoice.getCurrency());
                text.endText();
            }
            document.getDocumentInformation().setTitle("Invoice " + winAnsi(invoice.getInvoiceNumber()));
            document.save(out);
            return out.toByteArray();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static String winAnsi(String text) {
        StringBuilder out = new StringBuilder(text.length());
        text.codePoints().forEach(c -> out.append(c >= 0x20 && c < 0x7f || c >= 0xa0 && c <= 0xff ? (char) c : '?'));
        return out.toString();
    }
}
