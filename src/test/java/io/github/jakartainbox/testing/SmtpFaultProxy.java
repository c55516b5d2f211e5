package io.github.jakartainbox.testing;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.Closeable;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * An SMTP proxy for tests that misbehaves on demand. It relays every session line by line to an upstream SMTP server
 * (the GreenMail of bin/smtp-server), unchanged, except for sessions whose {@code RCPT TO} names a recipient whose
 * local part starts with a prefix the test gave a {@link Fault} ({@link #rule(String, Fault)}). One thread per
 * connection; listens on 127.0.0.1 on a free port ({@link #port()}).
 *
 * <p>The EHLO reply it relays lacks PIPELINING, CHUNKING, BINARYMIME, SMTPUTF8 and STARTTLS, so that the client sends
 * one command at a time, in plain text, and the message ends with the line "." (no BDAT). Body lines are forwarded
 * byte for byte (dot-stuffing and line ends as the client sent them).
 */
public final class SmtpFaultProxy implements Closeable {

    /** What the proxy does to a session naming a matching recipient. */
    public enum Kind {
        /** answers the RCPT {@code 550 5.1.1} without forwarding it (permanent) */
        REJECT_550,
        /** answers the RCPT {@code 451 4.3.0} without forwarding it (transient) */
        DEFER_451,
        /** forwards the first lines of the message and reads the rest, then resets both connections when the client
         *  sends the end-of-data line, without forwarding it (nothing delivered; the client has sent everything, so
         *  it cannot tell this from a drop after the end of data) */
        DROP_IN_DATA,
        /** forwards the whole message, then holds the upstream's reply to the end of DATA (a slow server) */
        HOLD_FINAL_REPLY,
        /** forwards the whole message (delivered), then closes the client's connection without the reply */
        DROP_AFTER_DATA;

        /** @return whether the fault acts after DATA (the recipient is accepted first) */
        boolean inData() {
            return this == DROP_IN_DATA || this == HOLD_FINAL_REPLY || this == DROP_AFTER_DATA;
        }
    }

    /**
     * A fault and how many sessions per recipient it applies to; later sessions are relayed unchanged.
     *
     * @param kind  what happens
     * @param times sessions per recipient address that get it ({@link Integer#MAX_VALUE}: all)
     * @param hold  how long the final reply is held ({@link Kind#HOLD_FINAL_REPLY} only)
     */
    public record Fault(Kind kind, int times, Duration hold) {

        public static final Fault REJECT_550 = new Fault(Kind.REJECT_550, Integer.MAX_VALUE, Duration.ZERO);
        public static final Fault DROP_IN_DATA = new Fault(Kind.DROP_IN_DATA, Integer.MAX_VALUE, Duration.ZERO);
        public static final Fault DROP_AFTER_DATA = new Fault(Kind.DROP_AFTER_DATA, Integer.MAX_VALUE, Duration.ZERO);

        /** @return {@code 451 4.3.0 Try again later} for the first {@code n} sessions naming a recipient */
        public static Fault defer451(int n) {
            return new Fault(Kind.DEFER_451, n, Duration.ZERO);
        }

        /** @return the reply to the end of DATA held for {@code hold} before it is relayed */
        public static Fault holdFinalReply(Duration hold) {
            return new Fault(Kind.HOLD_FINAL_REPLY, Integer.MAX_VALUE, hold);
        }

        /** @return this fault for the first {@code n} sessions per recipient only */
        public Fault times(int n) {
            return new Fault(kind, n, hold);
        }
    }

    /** A fault set for a recipient prefix, with what it did so far. */
    public static final class Rule {
        private final String prefix;
        private final Fault fault;
        private final Map<String, AtomicInteger> faultedPerAddress = new ConcurrentHashMap<>();
        private final AtomicInteger sessions = new AtomicInteger();
        private final AtomicInteger events = new AtomicInteger();

        private Rule(String prefix, Fault fault) {
            this.prefix = prefix;
            this.fault = fault;
        }

        public Fault fault() {
            return fault;
        }

        /** @return mail transactions (MAIL to end of DATA or RSET) that named a recipient of this rule, faulted or
         *          relayed */
        public int sessions() {
            return sessions.get();
        }

        /**
         * @return times the fault was done: RCPTs rejected or deferred, connections dropped in or after DATA, final
         *         replies held
         */
        public int events() {
            return events.get();
        }

        /** Claims one of the address's faulted sessions; false once {@link Fault#times()} are used up. */
        private boolean claim(String address) {
            AtomicInteger used = faultedPerAddress.computeIfAbsent(address.toLowerCase(Locale.ROOT),
                    a -> new AtomicInteger());
            return used.getAndUpdate(n -> n < fault.times() ? n + 1 : n) < fault.times();
        }
    }

    /** EHLO keywords the proxy removes (see the class comment). */
    static final Set<String> STRIPPED_EXTENSIONS = Set.of("PIPELINING", "CHUNKING", "BINARYMIME", "SMTPUTF8",
            "STARTTLS");
    /** Body lines forwarded before {@link Kind#DROP_IN_DATA} closes the connections. */
    private static final int LINES_BEFORE_DROP = 5;
    private static final int UPSTREAM_TIMEOUT_MILLIS = 120_000;

    private final String upstreamHost;
    private final int upstreamPort;
    private final ServerSocket server;
    private final List<Rule> rules = new CopyOnWriteArrayList<>();
    private final Set<Socket> open = ConcurrentHashMap.newKeySet();
    private final AtomicInteger connections = new AtomicInteger();
    private final AtomicInteger refused = new AtomicInteger();
    private volatile boolean upstreamDown;
    private volatile boolean closed;

    private SmtpFaultProxy(String upstreamHost, int upstreamPort) throws IOException {
        this.upstreamHost = upstreamHost;
        this.upstreamPort = upstreamPort;
        this.server = new ServerSocket();
        server.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
        Thread acceptor = new Thread(this::acceptLoop, "smtp-fault-proxy-" + port());
        acceptor.setDaemon(true);
        acceptor.start();
    }

    /**
     * @return a proxy listening on 127.0.0.1 on a free port, relaying to {@code upstreamHost:upstreamPort}
     */
    public static SmtpFaultProxy start(String upstreamHost, int upstreamPort) throws IOException {
        return new SmtpFaultProxy(upstreamHost, upstreamPort);
    }

    public int port() {
        return server.getLocalPort();
    }

    /**
     * Sets a fault for the sessions naming a recipient whose local part starts with {@code prefix} (case-insensitive;
     * the longest matching prefix wins).
     *
     * @return the rule, which counts what it did
     */
    public Rule rule(String prefix, Fault fault) {
        Rule rule = new Rule(prefix.toLowerCase(Locale.ROOT), fault);
        rules.removeIf(r -> r.prefix.equals(rule.prefix));
        rules.add(rule);
        return rule;
    }

    /** Removes every rule: later sessions are relayed unchanged. */
    public void clearRules() {
        rules.clear();
    }

    /** While true, each new connection is answered {@code 421 4.3.2 Service not available} and closed. */
    public void upstreamDown(boolean down) {
        this.upstreamDown = down;
    }

    /**
     * Closes every open connection, both sides, without a reply (a server that went away): a client's kept
     * connection is found dead at its next command.
     */
    public void dropConnections() {
        for (Socket s : open) {
            quietly(s);
        }
    }

    /** @return client connections accepted, refused ones included */
    public int connections() {
        return connections.get();
    }

    /** @return connections answered 421 while {@link #upstreamDown(boolean)} was true */
    public int refusedConnections() {
        return refused.get();
    }

    @Override
    public void close() throws IOException {
        closed = true;
        server.close();
        for (Socket s : open) {
            quietly(s);
        }
    }

    private void acceptLoop() {
        while (!closed) {
            try {
                Socket client = server.accept();
                connections.incrementAndGet();
                Thread session = new Thread(() -> session(client), "smtp-fault-proxy-session-" + connections.get());
                session.setDaemon(true);
                session.start();
            } catch (IOException e) {
                if (!closed) {
                    System.err.println("SmtpFaultProxy: accept failed: " + e);
                }
            }
        }
    }

    private void session(Socket client) {
        open.add(client);
        Socket upstream = null;
        try {
            client.setSoTimeout(UPSTREAM_TIMEOUT_MILLIS);
            OutputStream toClient = client.getOutputStream();
            if (upstreamDown) {
                refused.incrementAndGet();
                write(toClient, "421 4.3.2 Service not available\r\n");
                return;
            }
            upstream = new Socket();
            open.add(upstream);
            upstream.connect(new InetSocketAddress(upstreamHost, upstreamPort), 10_000);
            upstream.setSoTimeout(UPSTREAM_TIMEOUT_MILLIS);
            relay(client, upstream);
        } catch (IOException e) {
            // a peer went away (or a fault closed the connections): the session ends
        } finally {
            quietly(client);
            open.remove(client);
            if (upstream != null) {
                quietly(upstream);
                open.remove(upstream);
            }
        }
    }

    private void relay(Socket client, Socket upstream) throws IOException {
        InputStream fromClient = new BufferedInputStream(client.getInputStream());
        OutputStream toClient = client.getOutputStream();
        InputStream fromUpstream = new BufferedInputStream(upstream.getInputStream());
        OutputStream toUpstream = upstream.getOutputStream();
        write(toClient, String.join("", readReply(fromUpstream))); // greeting
        Rule dataFault = null; // the first recipient rule of this transaction with a DATA-phase fault
        Set<Rule> counted = new java.util.HashSet<>();
        while (true) {
            byte[] raw = readLine(fromClient);
            if (raw == null) {
                return;
            }
            String line = new String(raw, StandardCharsets.ISO_8859_1);
            String verb = line.strip().split(" ", 2)[0].toUpperCase(Locale.ROOT);
            if (verb.equals("EHLO")) {
                toUpstream.write(raw);
                toUpstream.flush();
                write(toClient, String.join("", withoutExtensions(readReply(fromUpstream))));
            } else if (verb.equals("RCPT")) {
                String address = address(line);
                Rule rule = ruleFor(address);
                if (rule != null && counted.add(rule)) {
                    rule.sessions.incrementAndGet();
                }
                if (rule != null && (rule.fault.kind() == Kind.REJECT_550 || rule.fault.kind() == Kind.DEFER_451)
                        && rule.claim(address)) {
                    rule.events.incrementAndGet();
                    write(toClient, rule.fault.kind() == Kind.REJECT_550
                            ? "550 5.1.1 <" + address + ">: Recipient address rejected: User unknown\r\n"
                            : "451 4.3.0 Try again later\r\n");
                    continue;
                }
                toUpstream.write(raw);
                toUpstream.flush();
                List<String> reply = readReply(fromUpstream);
                if (dataFault == null && rule != null && reply.get(0).startsWith("2")
                        && rule.fault.kind().inData() && rule.claim(address)) {
                    dataFault = rule;
                }
                write(toClient, String.join("", reply));
            } else if (verb.equals("DATA")) {
                toUpstream.write(raw);
                toUpstream.flush();
                List<String> reply = readReply(fromUpstream);
                write(toClient, String.join("", reply));
                if (!reply.get(0).startsWith("354")) {
                    continue;
                }
                if (!relayBody(fromClient, toUpstream, dataFault)) {
                    if (dataFault != null && dataFault.fault.kind() == Kind.DROP_IN_DATA) {
                        // a reset, not an orderly end the client could read as an empty reply
                        client.setSoLinger(true, 0);
                        upstream.setSoLinger(true, 0);
                    }
                    return; // dropped in DATA, or the client went away
                }
                List<String> finalReply = readReply(fromUpstream);
                if (dataFault != null && dataFault.fault.kind() == Kind.HOLD_FINAL_REPLY) {
                    dataFault.events.incrementAndGet();
                    sleep(dataFault.fault.hold());
                } else if (dataFault != null && dataFault.fault.kind() == Kind.DROP_AFTER_DATA) {
                    dataFault.events.incrementAndGet();
                    quit(toUpstream, fromUpstream);
                    return; // the client never gets the reply
                }
                write(toClient, String.join("", finalReply));
                dataFault = null;
                counted.clear();
            } else {
                toUpstream.write(raw);
                toUpstream.flush();
                write(toClient, String.join("", readReply(fromUpstream)));
                if (verb.equals("RSET") || verb.equals("MAIL")) {
                    dataFault = null; // a new transaction (a kept connection sends several)
                    counted.clear();
                }
                if (verb.equals("QUIT")) {
                    return;
                }
            }
        }
    }

    /**
     * Forwards the body up to and including the end-of-data line, or, for {@link Kind#DROP_IN_DATA}, some of it.
     *
     * @return true when the end-of-data line was forwarded
     */
    private static boolean relayBody(InputStream fromClient, OutputStream toUpstream, Rule dataFault)
            throws IOException {
        int lines = 0;
        while (true) {
            byte[] raw = readLine(fromClient);
            if (raw == null) {
                return false;
            }
            boolean end = isEndOfData(raw);
            if (dataFault != null && dataFault.fault.kind() == Kind.DROP_IN_DATA && lines >= LINES_BEFORE_DROP) {
                if (!end) {
                    continue; // swallowed up to the end of data, so that the drop never races the client's writes
                }
                toUpstream.flush();
                dataFault.events.incrementAndGet();
                return false; // the caller resets both connections
            }
            toUpstream.write(raw);
            lines++;
            if (end) {
                toUpstream.flush();
                return true;
            }
        }
    }

    private static boolean isEndOfData(byte[] raw) {
        return raw.length == 3 && raw[0] == '.' && raw[1] == '\r' && raw[2] == '\n'
                || raw.length == 2 && raw[0] == '.' && raw[1] == '\n';
    }

    private static void quit(OutputStream toUpstream, InputStream fromUpstream) {
        try {
            write(toUpstream, "QUIT\r\n");
            readReply(fromUpstream);
        } catch (IOException ignored) {
            // closing anyway
        }
    }

    private Rule ruleFor(String address) {
        int at = address.lastIndexOf('@');
        String local = (at < 0 ? address : address.substring(0, at)).toLowerCase(Locale.ROOT);
        Rule best = null;
        for (Rule r : rules) {
            if (local.startsWith(r.prefix) && (best == null || r.prefix.length() > best.prefix.length())) {
                best = r;
            }
        }
        return best;
    }

    /** @return the address between the angle brackets of {@code RCPT TO:<...>} (parameters after it ignored) */
    static String address(String rcptLine) {
        int open = rcptLine.indexOf('<');
        int close = rcptLine.indexOf('>', open + 1);
        if (open >= 0 && close > open) {
            return rcptLine.substring(open + 1, close);
        }
        String rest = rcptLine.substring(rcptLine.indexOf(':') + 1).strip();
        return rest.split(" ", 2)[0];
    }

    /**
     * @param reply an EHLO reply, one element per line with its line end
     * @return the same reply without the {@link #STRIPPED_EXTENSIONS}, its continuation marks set again
     */
    static List<String> withoutExtensions(List<String> reply) {
        List<String> kept = new ArrayList<>();
        for (int i = 0; i < reply.size(); i++) {
            String text = reply.get(i).length() > 4 ? reply.get(i).substring(4).strip() : "";
            String keyword = text.split(" ", 2)[0].toUpperCase(Locale.ROOT);
            if (i == 0 || !STRIPPED_EXTENSIONS.contains(keyword)) {
                kept.add(reply.get(i).length() > 4 ? reply.get(i).substring(4).stripTrailing() : "");
            }
        }
        String code = reply.get(0).substring(0, 3);
        List<String> out = new ArrayList<>();
        for (int i = 0; i < kept.size(); i++) {
            out.add(code + (i == kept.size() - 1 ? " " : "-") + kept.get(i) + "\r\n");
        }
        return out;
    }

    /** @return the lines of one reply (multi-line: {@code 250-...} up to {@code 250 ...}), each with its CRLF */
    static List<String> readReply(InputStream in) throws IOException {
        List<String> lines = new ArrayList<>();
        while (true) {
            byte[] raw = readLine(in);
            if (raw == null) {
                throw new SocketException("the upstream closed the connection");
            }
            String line = new String(raw, StandardCharsets.ISO_8859_1);
            lines.add(line);
            if (line.length() < 4 || line.charAt(3) != '-') {
                return lines;
            }
        }
    }

    /** @return the bytes up to and including the next LF, or {@code null} at the end of the stream */
    private static byte[] readLine(InputStream in) throws IOException {
        ByteArrayOutputStream line = new ByteArrayOutputStream(128);
        int b;
        while ((b = in.read()) != -1) {
            line.write(b);
            if (b == '\n') {
                return line.toByteArray();
            }
        }
        return line.size() == 0 ? null : line.toByteArray();
    }

    private static void write(OutputStream out, String text) throws IOException {
        out.write(text.getBytes(StandardCharsets.ISO_8859_1));
        out.flush();
    }

    private static void sleep(Duration d) throws IOException {
        try {
            Thread.sleep(d.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while holding the reply", e);
        }
    }

    private static void quietly(Socket s) {
        try {
            s.close();
        } catch (IOException ignored) {
            // closing
        }
    }
}
