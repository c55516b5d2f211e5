package io.github.jakartainbox.billing.mail;

import io.github.jakartainbox.billing.invoice.Invoice;
import io.github.jakartainbox.billing.order.OrderConfirmed;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import jakarta.mail.Session;
import jakarta.mail.internet.InternetAddress;
import jakarta.mail.internet.MimeBodyPart;
import jakarta.mail.internet.MimeMessage;
import jakarta.mail.internet.MimeMultipart;
import jakarta.mail.internet.MimeUtility;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.Properties;
import org.junit.jupiter.api.Test;

/**
 * The invoice mail's header as it leaves, written out and read back the way a mail program reads it (Jakarta Mail's
 * RFC 2047 decoding): the order id in the subject is shown as stored, whatever it holds.
 */
class InvoiceMailHeadersTest {

    private static final Session SESSION = Session.getInstance(mailFrom());

    private static Properties mailFrom() {
        Properties properties = new Properties();
        properties.setProperty("mail.from", "billing@example.com");
        return properties;
    }

    /** @return the composed mail's raw bytes, parsed again as a receiver does */
    private static MimeMessage sentAndReceived(String orderId) throws Exception {
        Invoice invoice = Invoice.stored(7, "INV-2026-000007", new OrderConfirmed("e-1", orderId, "a@example.com",
                new BigDecimal("12.00"), "EUR"), OffsetDateTime.of(2026, 3, 14, 9, 30, 0, 0, ZoneOffset.UTC));
        MimeMessage message = new MimeMessage(SESSION);
        InvoiceMailer.compose(message, invoice, new InternetAddress("a@example.com", true));
        ByteArrayOutputStream raw = new ByteArrayOutputStream();
        message.writeTo(raw);
        return new MimeMessage(SESSION, new ByteArrayInputStream(raw.toByteArray()));
    }

    private static String rawSubject(MimeMessage received) throws Exception {
        return received.getHeader("Subject", null);
    }

    @Test
    void anOrderIdThatIsAnEncodedWordIsShownLiterallyNotDecoded() throws Exception {
        String forged = "=?UTF-8?B?QmNjOiB4MTFAZXZpbC50ZXN0?=";
        MimeMessage received = sentAndReceived(forged);
        assertEquals("Invoice INV-2026-000007 for order " + forged, received.getSubject(),
                "raw header: " + rawSubject(received));
        assertEquals("Invoice INV-2026-000007 for order " + forged,
                MimeUtility.decodeText(MimeUtility.unfold(rawSubject(received))));
        assertTrue(!rawSubject(received).contains(forged), "the forged word is inside an encoded word: "
                + rawSubject(received));
    }

    @Test
    void otherEncodedWordSpellingsAndPlainTextStayAsStored() throws Exception {
        for (String orderId : new String[] {"ORD-1", "=?utf-8?q?Bcc=3A_x11=40evil.test?=", "a =?ISO-8859-1?Q?=E9?= b",
                "  two  spaces  ", "?= =?", "\u00e9t\u00e9-\u03a9-\u05d0-\u4e2d-\ud83d\ude00"}) {
            MimeMessage received = sentAndReceived(orderId);
            assertEquals("Invoice INV-2026-000007 for order " + orderId, received.getSubject(),
                    "raw header: " + rawSubject(received));
        }
    }

    /** A long order id of multi-byte characters is split into several encoded words between characters, on lines
     *  of at most 78 characters. */
    @Test
    void aLongOrderIdIsSplitBetweenCharactersOnShortLines() throws Exception {
        String orderId = "\ud83d\ude00".repeat(100) + "\u00e9".repeat(100);
        MimeMessage received = sentAndReceived(orderId);
        assertEquals("Invoice INV-2026-000007 for order " + orderId, received.getSubject());
        ByteArrayOutputStream raw = new ByteArrayOutputStream();
        received.writeTo(raw);
        String header = raw.toString(StandardCharsets.US_ASCII).split("\r\n\r\n", 2)[0];
        for (String line : header.split("\r\n")) {
            assertTrue(line.length() <= 78, line.length() + " characters: " + line);
        }
    }

    /** The PDF leaves base64-encoded (named, not chosen by scanning it) and arrives as a PDF of the invoice. */
    @Test
    void thePdfPartIsBase64AndReadsBackAsTheInvoice() throws Exception {
        MimeMessage received = sentAndReceived("ORD-\u00e9-\u4e2d");
        MimeBodyPart pdf = (MimeBodyPart) ((MimeMultipart) received.getContent()).getBodyPart(1);

        assertEquals("base64", pdf.getEncoding());
        assertEquals("INV-2026-000007.pdf", pdf.getFileName());
        assertTrue(pdf.isMimeType("application/pdf"), pdf.getContentType());
        String text = InvoicePdfTest.text(pdf.getInputStream().readAllBytes());
        assertTrue(text.contains("Order: ORD-\u00e9-\u4e2d"), text);
        assertTrue(text.contains("Amount: 12.00 EUR"), text);
    }
    /** The text part reads back as written, in any script, with the encoding a mail program needs for it. */
    @Test
    void theTextPartReadsBackAsWrittenInAnyScript() throws Exception {
        for (String orderId : new String[] {"ORD-1", "ORD-\u00e9-\u4e2d-\ud83d\ude00", "x".repeat(1200)}) {
            MimeMessage received = sentAndReceived(orderId);
            MimeBodyPart text = (MimeBodyPart) ((MimeMultipart) received.getContent()).getBodyPart(0);

            assertTrue(text.isMimeType("text/plain"), text.getContentType());
            assertEquals("Thank you for your order " + orderId + ". Your invoice INV-2026-000007 over 12.00 EUR is "
                    + "attached.", ((String) text.getContent()).strip());
            assertEquals(orderId.equals("ORD-1") ? "7bit" : "quoted-printable", text.getEncoding(), orderId);
        }
    }

    /** Jakarta Mail's choice for short texts, made without writing the text out. */
    @Test
    void theTextEncodingIs7bitOnlyForShortAsciiLines() {
        assertEquals("7bit", InvoiceMailer.textEncoding("plain ASCII\nand another line\n"));
        assertEquals("7bit", InvoiceMailer.textEncoding("x".repeat(998) + "\n" + "y".repeat(998)));
        assertEquals("quoted-printable", InvoiceMailer.textEncoding("x".repeat(999)));
        assertEquals("quoted-printable", InvoiceMailer.textEncoding("caf\u00e9"));
        assertEquals("quoted-printable", InvoiceMailer.textEncoding("a bare\rreturn"));
        assertEquals("quoted-printable", InvoiceMailer.textEncoding("a NUL \u0000"));
    }

    /** The Date header is RFC 5322's date-time (section 3.3) and reads back as the time of composing. */
    @Test
    void theDateHeaderIsAnRfc5322DateTime() throws Exception {
        long before = System.currentTimeMillis() / 1000 * 1000;
        MimeMessage received = sentAndReceived("ORD-1");
        String date = received.getHeader("Date", null);
        assertTrue(date.matches("[A-Z][a-z]{2}, \\d{1,2} [A-Z][a-z]{2} \\d{4} \\d{2}:\\d{2}:\\d{2} [+-]\\d{4}"), date);
        long sent = received.getSentDate().getTime();
        assertTrue(sent >= before && sent <= System.currentTimeMillis(), date);
    }
}
