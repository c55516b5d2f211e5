package io.github.jakartainbox.billing.mail;

import jakarta.mail.MessagingException;
import jakarta.mail.internet.AddressException;
import java.io.IOException;
import java.lang.reflect.Method;
import java.util.IdentityHashMap;
import java.util.Map;

/**
 * What a failed SMTP send means for the mail, read from the exception the client threw and from whether the
 * message's end of data had been sent (RFC 5321 section 4.2.1: 5yz is a permanent negative reply, 4yz a transient
 * one; section 4.5.3.2.6: the reply to the end of data may take minutes; section 6.1: after that reply the server has
 * taken responsibility for the mail).
 *
 * @param kind  the class of the failure
 * @param code  the server's reply code, 0 when none came (no connection, a timeout, a dropped connection)
 * @param reply the server's reply text or the client's description, for logs and dead letters
 */
record SmtpFailure(Kind kind, int code, String reply) {

    /** The classes of failure, each with its own handling by the mailer. */
    enum Kind {
        /** A 5yz reply to MAIL, RCPT, DATA or the end of data, or an address the client refuses: never retried. */
        PERMANENT,
        /** A 4yz reply to RCPT: this recipient cannot be served now; retried, with the consumer's attempt limit. */
        RECIPIENT_DEFERRED,
        /** No connection, a dropped one, a 421, a 4yz reply to MAIL or DATA, all before the end of data was sent:
         *  nothing was accepted; retried for as long as the server is away. */
        UNAVAILABLE,
        /** The end of data was sent and no reply came (timeout, dropped connection): the server may hold the mail.
         *  Not sent again by itself. */
        UNCERTAIN
    }

    /**
     * @param failure       what the SMTP client threw
     * @param endOfDataSent whether the whole message had been handed to the connection, so that only the end of data
     *                      and its reply were left
     * @return the failure's class, code and reply
     */
    static SmtpFailure of(Exception failure, boolean endOfDataSent) {
        int code = 0;
        String command = null;
        boolean address = false;
        Map<Throwable, Boolean> seen = new IdentityHashMap<>();
        for (Throwable t = failure; t != null && seen.put(t, Boolean.TRUE) == null; t = next(t)) {
            address |= t instanceof AddressException;
            int c = intProperty(t, "getReturnCode");
            if (c != 0 && code == 0) {
                code = c;
                command = command(t);
            }
        }
        String reply = describe(failure, code);
        Kind kind;
        if (code >= 500 || address) {
            kind = Kind.PERMANENT;
        } else if (code >= 400) {
            // a negative reply, so nothing was accepted, whatever the stage
            kind = code != 421 && "RCPT".equals(command) ? Kind.RECIPIENT_DEFERRED : Kind.UNAVAILABLE;
        } else {
            // no reply: before the end of data nothing can have been accepted; after it, anything may have been
            kind = endOfDataSent ? Kind.UNCERTAIN : Kind.UNAVAILABLE;
        }
        return new SmtpFailure(kind, code, reply);
    }

    private static Throwable next(Throwable t) {
        if (t instanceof MessagingException m && m.getNextException() != null && m.getNextException() != t) {
            return m.getNextException();
        }
        return t.getCause() == t ? null : t.getCause();
    }

    /** The SMTP command a reply answered: Angus Mail's exception classes name it (read reflectively: the
     *  implementation's classes need not be visible to the application). */
    private static String command(Throwable t) {
        String name = t.getClass().getSimpleName();
        if (name.equals("SMTPAddressFailedException") || name.equals("SMTPAddressSucceededException")) {
            return "RCPT";
        }
        if (name.equals("SMTPSenderFailedException")) {
            return "MAIL";
        }
        try {
            Method m = t.getClass().getMethod("getCommand");
            Object value = m.invoke(t);
            String text = value == null ? "" : value.toString().trim().toUpperCase(java.util.Locale.ROOT);
            return text.startsWith("RCPT") ? "RCPT" : text.startsWith("MAIL") ? "MAIL" : text;
        } catch (ReflectiveOperationException | RuntimeException e) {
            return null;
        }
    }

    private static int intProperty(Throwable t, String getter) {
        try {
            Method m = t.getClass().getMethod(getter);
            return m.invoke(t) instanceof Integer value && value > 0 ? value : 0;
        } catch (ReflectiveOperationException | RuntimeException e) {
            return 0;
        }
    }

    private static String describe(Exception failure, int code) {
        StringBuilder text = new StringBuilder();
        Map<Throwable, Boolean> seen = new IdentityHashMap<>();
        for (Throwable t = failure; t != null && seen.put(t, Boolean.TRUE) == null; t = next(t)) {
            String message = t.getMessage() == null ? t.getClass().getSimpleName() : t.getMessage().strip();
            if (!message.isEmpty() && text.indexOf(message) < 0) {
                if (!text.isEmpty()) {
                    text.append("; ");
                }
                text.append(t instanceof IOException ? t.getClass().getSimpleName() + ": " + message : message);
            }
        }
        String all = text.toString().replaceAll("\\s+", " ");
        String shown = all.length() > 500 ? all.substring(0, 500) + "..." : all;
        return code == 0 || shown.startsWith(String.valueOf(code)) ? shown : code + " " + shown;
    }
}
