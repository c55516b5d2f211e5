package io.github.jakartainbox.billing.mail;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import jakarta.mail.MessagingException;
import jakarta.mail.SendFailedException;
import jakarta.mail.internet.AddressException;
import java.io.EOFException;
import java.net.ConnectException;
import java.net.SocketTimeoutException;
import org.junit.jupiter.api.Test;

/**
 * The SMTP failure classes. The exceptions mimic Angus Mail's (same simple names and getters, which is all the
 * classification reads), so that the rules are checked without a server; {@code SmtpFaultProxyTest} and
 * {@code MailFailuresRestartIT} check them against real replies.
 */
class SmtpFailureTest {

    /** As Angus Mail's: a RCPT TO refused, nested in a SendFailedException. */
    static final class SMTPAddressFailedException extends SendFailedException {
        private final int code;

        SMTPAddressFailedException(int code, String reply) {
            super(reply);
            this.code = code;
        }

        public int getReturnCode() {
            return code;
        }
    }

    /** As Angus Mail's: MAIL FROM refused. */
    static final class SMTPSenderFailedException extends SendFailedException {
        private final int code;

        SMTPSenderFailedException(int code, String reply) {
            super(reply);
            this.code = code;
        }

        public int getReturnCode() {
            return code;
        }
    }

    /** As Angus Mail's: a negative reply to DATA or to the end of data ("."); -1 for a connection that ended. */
    static final class SMTPSendFailedException extends SendFailedException {
        private final String command;
        private final int code;

        SMTPSendFailedException(String command, int code, String reply) {
            super(reply);
            this.command = command;
            this.code = code;
        }

        public String getCommand() {
            return command;
        }

        public int getReturnCode() {
            return code;
        }
    }

    private static SendFailedException invalidAddresses(Exception next) {
        SendFailedException e = new SendFailedException("Invalid Addresses");
        e.setNextException(next);
        return e;
    }

    @Test
    void aRecipientRefusedWith550IsPermanentWithTheReply() {
        SmtpFailure failure = SmtpFailure.of(invalidAddresses(new SMTPAddressFailedException(550,
                "550 5.1.1 <x@example.net>: Recipient address rejected: User unknown")), false);
        assertEquals(SmtpFailure.Kind.PERMANENT, failure.kind());
        assertEquals(550, failure.code());
        assertTrue(failure.reply().contains("550 5.1.1"), failure.reply());
    }

    @Test
    void aRecipientDeferredWith451IsRetriedAsTheRecipientsOwnFailure() {
        SmtpFailure failure = SmtpFailure.of(invalidAddresses(new SMTPAddressFailedException(451, "451 4.3.0 later")),
                false);
        assertEquals(SmtpFailure.Kind.RECIPIENT_DEFERRED, failure.kind());
    }

    @Test
    void fiveHundredToMailOrToTheEndOfDataIsPermanent() {
        assertEquals(SmtpFailure.Kind.PERMANENT, SmtpFailure.of(new SMTPSenderFailedException(553, "553 sender"),
                false).kind());
        assertEquals(SmtpFailure.Kind.PERMANENT, SmtpFailure.of(new SMTPSendFailedException(".", 554,
                "554 5.7.1 spam"), true).kind());
    }

    @Test
    void aNegativeTransientReplyToTheEndOfDataMeansNothingWasAccepted() {
        assertEquals(SmtpFailure.Kind.UNAVAILABLE, SmtpFailure.of(new SMTPSendFailedException(".", 451,
                "451 4.3.0 local error"), true).kind());
    }

    @Test
    void fourTwentyOneIsTheServerGoingAwayEvenForARecipient() {
        assertEquals(SmtpFailure.Kind.UNAVAILABLE, SmtpFailure.of(invalidAddresses(
                new SMTPAddressFailedException(421, "421 4.3.2 shutting down")), false).kind());
    }

    @Test
    void noConnectionIsUnavailable() {
        MessagingException e = new MessagingException("Couldn't connect to host", new ConnectException("refused"));
        SmtpFailure failure = SmtpFailure.of(e, false);
        assertEquals(SmtpFailure.Kind.UNAVAILABLE, failure.kind());
        assertEquals(0, failure.code());
        assertTrue(failure.reply().contains("ConnectException: refused"), failure.reply());
    }

    @Test
    void aTimeoutBeforeTheEndOfDataIsUnavailableAndAfterItUncertain() {
        MessagingException e = new MessagingException("Exception reading response", new SocketTimeoutException("Read timed out"));
        assertEquals(SmtpFailure.Kind.UNAVAILABLE, SmtpFailure.of(e, false).kind());
        assertEquals(SmtpFailure.Kind.UNCERTAIN, SmtpFailure.of(e, true).kind());
    }

    @Test
    void aConnectionThatEndsAfterTheEndOfDataIsUncertain() {
        // Angus Mail reports an EOF as return code -1 from the "." command
        assertEquals(SmtpFailure.Kind.UNCERTAIN, SmtpFailure.of(new SMTPSendFailedException(".", -1, "[EOF]"), true)
                .kind());
        assertEquals(SmtpFailure.Kind.UNCERTAIN, SmtpFailure.of(new MessagingException("IOException while sending message",
                new EOFException()), true).kind());
    }

    @Test
    void anAddressTheClientRefusesIsPermanent() {
        MessagingException e = new MessagingException("bad", new AddressException("Illegal address", "a b@c"));
        assertEquals(SmtpFailure.Kind.PERMANENT, SmtpFailure.of(e, false).kind());
    }
}
