package io.github.jakartainbox.billing.mail;

import io.github.jakartainbox.billing.BillingConfig;
import jakarta.annotation.PreDestroy;
import jakarta.annotation.Resource;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.mail.Address;
import jakarta.mail.Authenticator;
import jakarta.mail.MessagingException;
import jakarta.mail.PasswordAuthentication;
import jakarta.mail.Session;
import jakarta.mail.Transport;
import jakarta.mail.internet.MimeMessage;
import java.io.IOException;
import java.io.OutputStream;
import java.net.Socket;
import java.net.SocketException;
import java.time.Duration;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.logging.Level;
import java.util.logging.Logger;
import javax.net.SocketFactory;
import org.eclipse.microprofile.config.Config;
import org.eclipse.microprofile.config.ConfigProvider;

/**
 * Sends mails over SMTP connections kept open, one per thread (the mailer's channel threads), reconnecting when one
 * is lost; the server and sender come from Liberty's {@code mail/billing} session, the timeouts from
 * {@code billing.mail.connection-timeout}, {@code billing.mail.read-timeout} and {@code billing.mail.final-reply-timeout}
 * ({@link BillingConfig}).
 *
 * <p>The reply to the end of a message's data has a timeout of its own, by default RFC 5321 section 4.5.3.2.6's ten
 * minutes: a server may take that long to accept, and a client that gives up earlier cannot tell whether the mail
 * was accepted ({@link SmtpFailure.Kind#UNCERTAIN}).
 */
@ApplicationScoped
public class SmtpSender {

    private static final Logger LOG = Logger.getLogger(SmtpSender.class.getName());

    @Resource(lookup = "mail/billing")
    Session configured;

    private volatile Session session;
    private Duration finalReplyTimeout;
    private int readTimeoutMillis;
    private boolean keepConnections = true;
    private final ThreadLocal<Connection> connections = new ThreadLocal<>();
    private final Set<Connection> open = ConcurrentHashMap.newKeySet();

    /**
     * @return the session mails are made with: the configured one's properties with this class's timeouts
     * @throws IllegalStateException ({@code BILLING0206E}) when a timeout key holds no positive ISO-8601 duration
     */
    Session session() {
        Session s = session;
        if (s == null) {
            synchronized (this) {
                if (session == null) {
                    session = build();
                }
                s = session;
            }
        }
        return s;
    }

    private Session build() {
        pinStreamProvider();
        Config config = ConfigProvider.getConfig();
        Duration connect = BillingConfig.CONNECTION_TIMEOUT.get(config);
        // RFC 5321 section 4.5.3.2: 5 minutes for MAIL and RCPT by default
        Duration read = BillingConfig.READ_TIMEOUT.get(config);
        finalReplyTimeout = BillingConfig.FINAL_REPLY_TIMEOUT.get(config);
        readTimeoutMillis = millis(read);
        // false: one connection per mail (for a relay that limits a connection's life, and the benchmark's baseline)
        keepConnections = BillingConfig.KEEP_CONNECTIONS.get(config);
        Properties properties = new Properties();
        properties.putAll(configured.getProperties());
        String protocol = properties.getProperty("mail.transport.protocol", "smtp");
        properties.setProperty("mail." + protocol + ".connectiontimeout", String.valueOf(millis(connect)));
        properties.setProperty("mail." + protocol + ".timeout", String.valueOf(readTimeoutMillis));
        properties.setProperty("mail." + protocol + ".writetimeout", String.valueOf(readTimeoutMillis));
        // an instance, so that each connection's socket is known and its read timeout can be raised for the final reply
        properties.put("mail." + protocol + ".socketFactory", new TrackingSocketFactory());
        properties.remove("mail." + protocol + ".socketFactory.class");
        String user = config.getOptionalValue("smtp.user", String.class).orElse("");
        String password = config.getOptionalValue("smtp.password", String.class).orElse("");
        Authenticator login = user.isEmpty() ? null : new Authenticator() {
            @Override
            protected PasswordAuthentication getPasswordAuthentication() {
                return new PasswordAuthentication(user, password);
            }
        };
        return Session.getInstance(properties, login);
    }

    /**
     * Names Jakarta Mail's {@code StreamProvider} in its system property, once, when none is named. Jakarta Mail 2.1
     * looks the provider up again for every body part, multipart and encoder it makes (some seven times a mail): the
     * property, else a {@link java.util.ServiceLoader} over the thread's context class loader. On Liberty that loader
     * searches every bundle it can see for the service file, and the lookups took about 15% of the mailer's CPU (JFR
     * samples); with the property set, each lookup is a load of an already loaded class. The name is that of the
     * provider the service loader finds, so the choice is the one Jakarta Mail would make; it is set only after an
     * instance of it was made through the same class loader that later lookups use.
     */
    static void pinStreamProvider() {
        String key = jakarta.mail.util.StreamProvider.class.getName();
        if (System.getProperty(key) != null) {
            return;
        }
        try {
            String name = jakarta.mail.util.StreamProvider.provider().getClass().getName();
            ClassLoader loader = Thread.currentThread().getContextClassLoader();
            Class.forName(name, false, loader == null ? SmtpSender.class.getClassLoader() : loader)
                    .getConstructor().newInstance();
            System.setProperty(key, name);
        } catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
            LOG.log(Level.FINE, "Jakarta Mail's StreamProvider stays looked up each time", e);
        }
    }

    /**
     * @param messageId the mail's Message-ID header, kept as given (RFC 5322 section 3.6.4)
     * @return a new message of {@link #session()}, to fill and hand to {@link #send}
     */
    ObservedMessage newMessage(String messageId) {
        return new ObservedMessage(session(), messageId);
    }

    /**
     * Sends one message on this thread's connection, opening one when there is none or it was lost; a kept
     * connection found closed before any of the message was accepted is replaced once at once.
     *
     * @param message the message, from {@link #newMessage}; sent to its recipients
     * @throws SmtpFailureException when the send failed; its {@link SmtpFailure} tells whether the server may hold the
     *                              mail
     */
    void send(ObservedMessage message) throws SmtpFailureException {
        Session s = session();
        Address[] recipients;
        try {
            recipients = message.getAllRecipients();
        } catch (MessagingException e) {
            throw new SmtpFailureException(SmtpFailure.of(e, false), e);
        }
        for (int tries = 1; ; tries++) {
            Connection connection = connections.get();
            boolean reused = connection != null;
            message.endOfData = false;
            try {
                if (connection == null) {
                    connection = connect(s);
                }
                connection.ready(readTimeoutMillis);
                message.socket = connection.socket();
                message.finalReplyMillis = millis(finalReplyTimeout);
                connection.transport().sendMessage(message, recipients);
                if (!keepConnections) {
                    close(connection);
                }
                return;
            } catch (MessagingException e) {
                SmtpFailure failure = SmtpFailure.of(e, message.endOfData);
                if (connection != null && (failure.kind() != SmtpFailure.Kind.PERMANENT
                        && failure.kind() != SmtpFailure.Kind.RECIPIENT_DEFERRED
                        || !connection.transport().isConnected())) {
                    close(connection);
                }
                if (reused && tries == 1 && failure.kind() == SmtpFailure.Kind.UNAVAILABLE && failure.code() == 0) {
                    continue; // a kept connection the server had closed: nothing was accepted, try a new one
                }
                throw new SmtpFailureException(failure, e);
            }
        }
    }

    private Connection connect(Session s) throws MessagingException {
        Transport transport = s.getTransport();
        TrackingSocketFactory.last.remove();
        transport.connect();
        Connection connection = new Connection(transport, TrackingSocketFactory.last.get());
        TrackingSocketFactory.last.remove();
        connections.set(connection);
        open.add(connection);
        return connection;
    }

    private void close(Connection connection) {
        connections.remove();
        open.remove(connection);
        try {
            connection.transport.close();
        } catch (MessagingException | RuntimeException e) {
            LOG.log(Level.FINE, "closing an SMTP connection failed", e);
        }
    }

    /** Closes every kept connection (QUIT) when the application stops. */
    @PreDestroy
    void closeAll() {
        for (Connection connection : open) {
            close(connection);
        }
    }

    /** One kept connection and its socket (null when the factory was not used, e.g. for SMTPS). */
    private record Connection(Transport transport, Socket socket) {
        /** Restores the read timeout a previous message's final reply raised. */
        void ready(int readTimeoutMillis) {
            if (socket != null) {
                try {
                    socket.setSoTimeout(readTimeoutMillis);
                } catch (SocketException e) {
                    // a closed socket: the send fails and reconnects
                }
            }
        }
    }

    /** A message whose writing is observed: once its last byte is handed to the connection, only the end of data
     *  and its reply are left, so the socket's read timeout becomes the final reply's. */
    static final class ObservedMessage extends MimeMessage {
        private final String messageId;
        private volatile boolean endOfData;
        private Socket socket;
        private int finalReplyMillis;

        ObservedMessage(Session session, String messageId) {
            super(session);
            this.messageId = messageId;
        }

        @Override
        public void writeTo(OutputStream out, String[] ignoreList) throws IOException, MessagingException {
            super.writeTo(out, ignoreList);
            endOfData = true;
            if (socket != null) {
                socket.setSoTimeout(finalReplyMillis);
            }
        }

        @Override
        protected void updateMessageID() throws MessagingException {
            setHeader("Message-ID", messageId);
        }
    }

    /**
     * Makes plain sockets with {@code TCP_NODELAY} and remembers, per thread, the last one made, for {@link #connect}.
     * Without {@code TCP_NODELAY} the short end of data waits behind the message's last segment until the server's
     * delayed acknowledgement (Nagle's algorithm, RFC 896, against delayed ACK, RFC 1122 section 4.2.3.2): about 40 ms
     * per mail on Linux, which made one kept connection carry some 20 mails a second.
     */
    static final class TrackingSocketFactory extends SocketFactory {
        static final ThreadLocal<Socket> last = new ThreadLocal<>();

        @Override
        public Socket createSocket() throws SocketException {
            Socket socket = new Socket();
            socket.setTcpNoDelay(true);
            last.set(socket);
            return socket;
        }

        @Override
        public Socket createSocket(String host, int port) throws IOException {
            Socket socket = new Socket(host, port);
            socket.setTcpNoDelay(true);
            last.set(socket);
            return socket;
        }

        @Override
        public Socket createSocket(String host, int port, java.net.InetAddress local, int localPort)
                throws IOException {
            Socket socket = new Socket(host, port, local, localPort);
            socket.setTcpNoDelay(true);
            last.set(socket);
            return socket;
        }

        @Override
        public Socket createSocket(java.net.InetAddress host, int port) throws IOException {
            Socket socket = new Socket(host, port);
            socket.setTcpNoDelay(true);
            last.set(socket);
            return socket;
        }

        @Override
        public Socket createSocket(java.net.InetAddress host, int port, java.net.InetAddress local, int localPort)
                throws IOException {
            Socket socket = new Socket(host, port, local, localPort);
            socket.setTcpNoDelay(true);
            last.set(socket);
            return socket;
        }
    }

    /** A failed send and what it means. */
    static final class SmtpFailureException extends Exception {
        private static final long serialVersionUID = 1L;
        private final transient SmtpFailure failure;

        SmtpFailureException(SmtpFailure failure, Throwable cause) {
            super(failure.kind() + ": " + failure.reply(), cause);
            this.failure = failure;
        }

        SmtpFailure failure() {
            return failure;
        }
    }

    private static int millis(Duration d) {
        return (int) Math.min(Integer.MAX_VALUE, d.toMillis());
    }
}
