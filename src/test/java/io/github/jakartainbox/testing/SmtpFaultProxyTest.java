package io.github.jakartainbox.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.jakartainbox.testing.SmtpFaultProxy.Fault;
import io.github.jakartainbox.testing.SmtpFaultProxy.Rule;
import jakarta.mail.MessagingException;
import jakarta.mail.Session;
import jakarta.mail.Transport;
import jakarta.mail.internet.InternetAddress;
import jakarta.mail.internet.MimeMessage;
import java.io.IOException;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.List;
import java.util.Properties;
import java.util.UUID;
import org.eclipse.angus.mail.smtp.SMTPAddressFailedException;
import org.eclipse.angus.mail.smtp.SMTPSendFailedException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@link SmtpFaultProxy} between Angus Mail and the real GreenMail (bin/smtp-server on {@code SMTP_PORT}, its REST
 * API on {@code SMTP_API_PORT}): per fault, what the client sees and how many copies of the Message-ID GreenMail
 * holds. bin/test starts GreenMail before the unit tests.
 */
class SmtpFaultProxyTest {

    private static final int UPSTREAM = Integer.parseInt(System.getenv().getOrDefault("SMTP_PORT", "3025"));
    private static SmtpFaultProxy proxy;

    @BeforeAll
    static void startProxy() throws IOException {
        try (Socket probe = new Socket("127.0.0.1", UPSTREAM)) {
            // GreenMail answers
        } catch (IOException e) {
            throw new IllegalStateException("no SMTP server on 127.0.0.1:" + UPSTREAM + " (SMTP_PORT): start it with "
                    + "bin/smtp-server start, with the same SMTP_PORT and SMTP_API_PORT", e);
        }
        proxy = SmtpFaultProxy.start("127.0.0.1", UPSTREAM);
    }

    @AfterAll
    static void stopProxy() throws IOException {
        proxy.close();
    }

    @Test
    void anOrdinarySessionIsRelayedUnchangedDotStuffingIncluded() throws Exception {
        String to = unique("ok");
        int before = proxy.connections();
        String body = "first line\r\n.a line that starts with a dot\r\n..two dots\r\n.\r\nafter a lone dot\r\n";
        MimeMessage mail = mail(session(Duration.ofSeconds(10)), to, body);
        Transport.send(mail);
        List<Mailbox.Mail> received = Mailbox.await(to, 1, Duration.ofSeconds(10));
        assertEquals(1, copies(received, mail.getMessageID()));
        // GreenMail's API gives the MIME without the last line end
        assertTrue(received.get(0).mime().endsWith("\r\n\r\n" + body.stripTrailing()),
                "the body arrived byte for byte, the lone dot line included: " + received.get(0).mime());
        assertEquals(before + 1, proxy.connections());
    }

    @Test
    void reject550RefusesTheRecipientWithoutForwardingIt() throws Exception {
        Rule rule = proxy.rule("refused-", Fault.REJECT_550);
        String to = unique("refused");
        MimeMessage mail = mail(session(Duration.ofSeconds(10)), to, "never delivered\r\n");
        MessagingException e = assertThrows(MessagingException.class, () -> Transport.send(mail));
        SMTPAddressFailedException refused = find(e, SMTPAddressFailedException.class);
        assertNotNull(refused, "the RCPT's failure is in the chain: " + e);
        assertEquals(550, refused.getReturnCode());
        assertTrue(refused.getMessage().contains("5.1.1 <" + to + ">: Recipient address rejected"),
                refused.getMessage());
        assertEquals(1, rule.events());
        // an ordinary mail on a new connection afterwards: once it is in, GreenMail has handled the earlier session
        String marker = unique("ok");
        Transport.send(mail(session(Duration.ofSeconds(10)), marker, "marker\r\n"));
        assertEquals(1, Mailbox.await(marker, 1, Duration.ofSeconds(10)).size());
        assertEquals(0, Mailbox.of(to).size(), "GreenMail never saw the recipient");
    }

    @Test
    void defer451RefusesTheFirstSessionsOfARecipientThenRelays() throws Exception {
        Rule rule = proxy.rule("later-", Fault.defer451(2));
        String to = unique("later");
        Session session = session(Duration.ofSeconds(10));
        MimeMessage mail = mail(session, to, "third time\r\n");
        for (int attempt = 1; attempt <= 2; attempt++) {
            MessagingException e = assertThrows(MessagingException.class, () -> Transport.send(mail));
            SMTPAddressFailedException deferred = find(e, SMTPAddressFailedException.class);
            assertNotNull(deferred, "attempt " + attempt + ": " + e);
            assertEquals(451, deferred.getReturnCode());
        }
        Transport.send(mail);
        assertEquals(1, copies(Mailbox.await(to, 1, Duration.ofSeconds(10)), mail.getMessageID()));
        assertEquals(2, rule.events());
        assertEquals(3, rule.sessions());
    }

    @Test
    void dropInDataResetsInsteadOfForwardingTheEndOfDataAndNothingIsDelivered() throws Exception {
        Rule rule = proxy.rule("cut-", Fault.DROP_IN_DATA.times(1));
        String to = unique("cut");
        MimeMessage mail = mail(session(Duration.ofSeconds(10)), to, "line\r\n".repeat(200));
        MessagingException e = assertThrows(MessagingException.class, () -> Transport.send(mail));
        assertNull(find(e, SMTPSendFailedException.class), "no SMTP reply, a broken connection: " + e);
        assertNotNull(find(e, java.net.SocketException.class), "the connection was reset: " + e);
        assertEquals(1, rule.events());
        // the second session is relayed: one copy in all, so the first delivered nothing
        Transport.send(mail);
        List<Mailbox.Mail> received = Mailbox.await(to, 1, Duration.ofSeconds(10));
        assertEquals(1, copies(received, mail.getMessageID()));
        assertEquals(1, received.size());
        assertEquals(1, rule.events());
    }

    @Test
    void aHeldFinalReplyTimesTheClientOutAfterTheMailWasDelivered() throws Exception {
        Rule rule = proxy.rule("held-", Fault.holdFinalReply(Duration.ofSeconds(3)));
        String to = unique("held");
        MimeMessage mail = mail(session(Duration.ofSeconds(1)), to, "held\r\n");
        MessagingException e = assertThrows(MessagingException.class, () -> Transport.send(mail));
        assertNotNull(find(e, SocketTimeoutException.class), "a read timeout on the final reply: " + e);
        assertEquals(1, copies(Mailbox.await(to, 1, Duration.ofSeconds(10)), mail.getMessageID()),
                "delivered although the client never heard so");
        assertEquals(1, rule.events());
    }

    @Test
    void aHeldFinalReplyWithinTheClientsTimeoutIsASuccess() throws Exception {
        Rule rule = proxy.rule("slow-", Fault.holdFinalReply(Duration.ofSeconds(1)));
        String to = unique("slow");
        MimeMessage mail = mail(session(Duration.ofSeconds(10)), to, "slow\r\n");
        Transport.send(mail);
        assertEquals(1, copies(Mailbox.await(to, 1, Duration.ofSeconds(10)), mail.getMessageID()));
        assertEquals(1, rule.events());
    }

    @Test
    void dropAfterDataLeavesTheClientWithoutAReplyToADeliveredMail() throws Exception {
        Rule rule = proxy.rule("lost-", Fault.DROP_AFTER_DATA);
        String to = unique("lost");
        MimeMessage mail = mail(session(Duration.ofSeconds(10)), to, "accepted, reply lost\r\n");
        MessagingException e = assertThrows(MessagingException.class, () -> Transport.send(mail));
        // Angus reads the end of the stream where the reply should be (return code -1), then sends RSET: the client
        // sees an SMTPSendFailedException with -1, or, when the RSET's write fails first, "Can't send command" with
        // a broken pipe. Either way no reply code, so a client cannot tell this from a drop before the "." by type
        SMTPSendFailedException failed = find(e, SMTPSendFailedException.class);
        assertTrue(failed != null ? failed.getReturnCode() == -1 : find(e, java.net.SocketException.class) != null,
                "no reply code, a closed connection: " + e);
        assertEquals(1, copies(Mailbox.await(to, 1, Duration.ofSeconds(10)), mail.getMessageID()),
                "the upstream accepted it");
        assertEquals(1, rule.events());
    }

    @Test
    void upstreamDownAnswers421ToNewConnections() throws Exception {
        String to = unique("down");
        MimeMessage mail = mail(session(Duration.ofSeconds(10)), to, "after the outage\r\n");
        int refused = proxy.refusedConnections();
        proxy.upstreamDown(true);
        try {
            MessagingException e = assertThrows(MessagingException.class, () -> Transport.send(mail));
            assertTrue(String.valueOf(e.getMessage()).contains("421"), "the greeting's 421 is reported: " + e);
        } finally {
            proxy.upstreamDown(false);
        }
        assertEquals(refused + 1, proxy.refusedConnections());
        Transport.send(mail);
        assertEquals(1, copies(Mailbox.await(to, 1, Duration.ofSeconds(10)), mail.getMessageID()));
    }

    @Test
    void theEhloReplyLosesTheExtensionsThatWouldLetTheClientPipelineOrSkipTheDotLine() {
        List<String> reply = List.of("250-mx.example.net\r\n", "250-PIPELINING\r\n", "250-SIZE 10240000\r\n",
                "250-CHUNKING\r\n", "250-8BITMIME\r\n", "250-SMTPUTF8\r\n", "250 BINARYMIME\r\n");
        assertEquals(List.of("250-mx.example.net\r\n", "250-SIZE 10240000\r\n", "250 8BITMIME\r\n"),
                SmtpFaultProxy.withoutExtensions(reply));
        assertEquals(List.of("250 mx.example.net\r\n"),
                SmtpFaultProxy.withoutExtensions(List.of("250-mx.example.net\r\n", "250 PIPELINING\r\n")));
        assertEquals("a@example.net", SmtpFaultProxy.address("RCPT TO:<a@example.net> NOTIFY=NEVER\r\n"));
        assertFalse(SmtpFaultProxy.STRIPPED_EXTENSIONS.contains("8BITMIME"));
    }

    private static String unique(String prefix) {
        return prefix + "-" + UUID.randomUUID() + "@example.net";
    }

    private static Session session(Duration readTimeout) {
        Properties p = new Properties();
        p.put("mail.smtp.host", "127.0.0.1");
        p.put("mail.smtp.port", Integer.toString(proxy.port()));
        p.put("mail.smtp.connectiontimeout", "5000");
        p.put("mail.smtp.timeout", Long.toString(readTimeout.toMillis()));
        p.put("mail.from", "billing@example.com");
        return Session.getInstance(p);
    }

    /** A mail with a Message-ID of its own that stays the same when it is sent again. */
    private static MimeMessage mail(Session session, String to, String body) throws MessagingException {
        String id = "<" + UUID.randomUUID() + "@smtp-fault-proxy.test>";
        MimeMessage mail = new MimeMessage(session) {
            @Override
            protected void updateMessageID() throws MessagingException {
                setHeader("Message-ID", id);
            }
        };
        mail.setFrom();
        mail.setRecipient(MimeMessage.RecipientType.TO, new InternetAddress(to));
        mail.setSubject("proxy test");
        mail.setText(body, "US-ASCII");
        mail.saveChanges();
        return mail;
    }

    private static long copies(List<Mailbox.Mail> mails, String messageId) {
        return mails.stream().filter(m -> messageId.equals(m.messageId())).count();
    }

    /** @return the first throwable of that type among the causes and next exceptions, or {@code null} */
    private static <T extends Throwable> T find(Throwable t, Class<T> type) {
        for (Throwable c = t; c != null; ) {
            if (type.isInstance(c)) {
                return type.cast(c);
            }
            Throwable next = c instanceof MessagingException m && m.getNextException() != null ? m.getNextException()
                    : c.getCause();
            c = next == c ? null : next;
        }
        return null;
    }
}
