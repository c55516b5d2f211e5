package io.github.jakartainbox.bench;

import java.io.FilterInputStream;
import java.io.FilterOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.util.concurrent.atomic.AtomicLong;
import javax.net.SocketFactory;

/**
 * Counts client-server round trips on every PostgreSQL connection made through it (the JDBC driver's
 * {@code socketFactory} property): one round trip is the client sending something and then waiting to read.
 * The PostgreSQL protocol is request/response, so this is the number of times a claim waited on the network,
 * whatever the driver pipelines in one flight (pgjdbc sends a transaction's {@code BEGIN} together with its first
 * statement, and Parse/Bind/Execute/Sync of one statement together).
 */
public final class RoundTrips extends SocketFactory {

    private static final AtomicLong COUNT = new AtomicLong();

    /** Instantiated by the driver. */
    public RoundTrips() {
    }

    /** @return round trips counted on all connections since the start */
    public static long count() {
        return COUNT.get();
    }

    @Override
    public Socket createSocket() {
        return new CountingSocket();
    }

    @Override
    public Socket createSocket(String host, int port) throws IOException {
        return connected(new java.net.InetSocketAddress(host, port));
    }

    @Override
    public Socket createSocket(String host, int port, InetAddress localHost, int localPort) throws IOException {
        throw new UnsupportedOperationException("not used by the driver");
    }

    @Override
    public Socket createSocket(InetAddress host, int port) throws IOException {
        return connected(new java.net.InetSocketAddress(host, port));
    }

    private Socket connected(java.net.InetSocketAddress address) throws IOException {
        Socket socket = createSocket();
        socket.connect(address);
        return socket;
    }

    @Override
    public Socket createSocket(InetAddress address, int port, InetAddress localAddress, int localPort) {
        throw new UnsupportedOperationException("not used by the driver");
    }

    /** A plain socket whose streams note a write followed by a read. */
    private static final class CountingSocket extends Socket {
        private volatile boolean sent;
        private InputStream counted;
        private OutputStream noting;

        @Override
        public synchronized InputStream getInputStream() throws IOException {
            if (counted == null) {
                counted = new FilterInputStream(super.getInputStream()) {
                    @Override
                    public int read() throws IOException {
                        waiting();
                        return super.read();
                    }

                    @Override
                    public int read(byte[] b, int off, int len) throws IOException {
                        waiting();
                        return super.read(b, off, len);
                    }
                };
            }
            return counted;
        }

        @Override
        public synchronized OutputStream getOutputStream() throws IOException {
            if (noting == null) {
                noting = new FilterOutputStream(super.getOutputStream()) {
                    @Override
                    public void write(int b) throws IOException {
                        sent = true;
                        super.write(b);
                    }

                    @Override
                    public void write(byte[] b, int off, int len) throws IOException {
                        sent = true;
                        out.write(b, off, len); // the socket's own stream, not byte by byte
                    }
                };
            }
            return noting;
        }

        private void waiting() {
            if (sent) {
                sent = false;
                COUNT.incrementAndGet();
            }
        }
    }
}
