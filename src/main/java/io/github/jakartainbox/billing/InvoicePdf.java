package io.github.jakartainbox.billing;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.format.DateTimeFormatter;
import org.apache.pdfbox.pdmodel.PDDocument;
import org.apache.pdfbox.pdmodel.PDPage;
import org.apache.pdfbox.pdmodel.PDPageContentStream;
import org.apache.pdfbox.pdmodel.common.PDRectangle;
import org.apache.pdfbox.pdmodel.font.PDType1Font;
import org.apache.pdfbox.pdmodel.font.Standard14Fonts;

/** Renders an invoice as a one-page A4 PDF (Apache PDFBox). */
public final class InvoicePdf {

    private InvoicePdf() {
    }

    /**
     * @param invoice the invoice
     * @return the PDF's bytes; it shows the invoice number, order id, customer, date, amount and currency
     */
    public static byte[] render(Invoice invoice) {
        PDType1Font bold = new PDType1Font(Standard14Fonts.FontName.HELVETICA_BOLD);
        PDType1Font regular = new PDType1Font(Standard14Fonts.FontName.HELVETICA);
        try (PDDocument document = new PDDocument(); ByteArrayOutputStream out = new ByteArrayOutputStream()) {
            PDPage page = new PDPage(PDRectangle.A4);
            document.addPage(page);
            try (PDPageContentStream text = new PDPageContentStream(document, page)) {
                text.beginText();
                text.setFont(bold, 20);
                text.newLineAtOffset(60, 770);
                text.showText("Invoice " + printable(invoice.getInvoiceNumber()));
                text.setFont(regular, 12);
                text.setLeading(18);
                text.newLine();
                text.newLine();
                text.showText("Order: " + printable(invoice.getOrderId()));
                text.newLine();
                text.showText("Customer: " + printable(invoice.getCustomerEmail()));
                text.newLine();
                text.showText("Date: " + invoice.getCreatedAt().format(DateTimeFormatter.ISO_LOCAL_DATE));
                text.newLine();
                text.newLine();
                text.setFont(bold, 14);
                text.showText("Amount: " + invoice.getAmount().toPlainString() + " " + invoice.getCurrency());
                text.endText();
            }
            document.getDocumentInformation().setTitle("Invoice " + printable(invoice.getInvoiceNumber()));
            document.save(out);
            return out.toByteArray();
        } catch (IOException e) {
            throw new UncheckedIOException("the invoice PDF could not be rendered", e);
        }
    }

    /** The standard fonts encode WinAnsi only: anything else becomes '?', control characters too. */
    static String printable(String text) {
        if (text == null) {
            return "";
        }
        StringBuilder out = new StringBuilder(text.length());
        text.codePoints().forEach(c -> out.append(c >= 0x20 && c < 0x7f || c >= 0xa0 && c <= 0xff ? (char) c : '?'));
        return out.toString();
    }
}
