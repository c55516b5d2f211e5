package io.github.jakartainbox.bench;

import com.sun.tools.attach.VirtualMachine;
import java.io.IOException;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryUsage;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import javax.management.MBeanServerConnection;
import javax.management.ObjectName;
import javax.management.remote.JMXConnector;
import javax.management.remote.JMXConnectorFactory;
import javax.management.remote.JMXServiceURL;

/**
 * What a measured window cost: CPU seconds of each process taking part (from {@code /proc}: the benchmark's Liberty
 * server, the PostgreSQL backends of its database, PostgreSQL's shared processes, the Kafka broker, GreenMail), and
 * on the server's JVM the bytes its threads allocated and the time its collectors took (through the JDK's attach
 * API and the platform MXBeans). Read at the start and the end of a window; divide by the window's events.
 *
 * <p>Allocation counts the threads alive at the end of the window (a thread made within it counts whole); a thread
 * that ended within the window is not counted. CPU from {@code /proc} counts in ticks of 10 ms.
 */
final class Cost implements AutoCloseable {

    static final String LIBERTY = "Liberty";
    static final String PG_BACKENDS = "PostgreSQL, its database's backends";
    static final String PG_SHARED = "PostgreSQL, shared (WAL writer, checkpointer, autovacuum)";
    static final String BROKER = "Kafka broker";
    static final String GREENMAIL = "GreenMail";
    static final List<String> PARTS = List.of(LIBERTY, PG_BACKENDS, PG_SHARED, BROKER, GREENMAIL);

    private static final double TICKS = 100; // USER_HZ (getconf CLK_TCK)
    private static final String SMTP_PORT = System.getenv().getOrDefault("SMTP_PORT", "3626");
    private static final List<String> PG_SHARED_TITLES = List.of("checkpointer", "background writer", "walwriter",
            "autovacuum", "logical replication", "stats collector", "archiver", "io worker");

    /** A process's part and its CPU ticks so far. */
    record Ticks(String part, long ticks) {
    }

    /** One reading: CPU ticks per process, and the server JVM's allocated bytes and collection time so far. */
    record Reading(Instant at, Map<Long, Ticks> ticks, Map<Long, Long> allocated, long gcMillis, long oldGenAfterGc) {
    }

    /** Between two readings: CPU seconds per part, bytes allocated, collection time, and live old generation. */
    record Window(Map<String, Double> cpuSeconds, long allocatedBytes, long gcMillis, long oldGenAfterGc,
                  double seconds) {

        /** @return microseconds of CPU per event of one part */
        double micros(String part, long events) {
            return cpuSeconds.getOrDefault(part, 0.0) * 1e6 / events;
        }

        Window plus(Window other) {
            Map<String, Double> sum = new LinkedHashMap<>(cpuSeconds);
            other.cpuSeconds.forEach((k, v) -> sum.merge(k, v, Double::sum));
            return new Window(sum, allocatedBytes + other.allocatedBytes, gcMillis + other.gcMillis,
                    other.oldGenAfterGc, seconds + other.seconds);
        }
    }

    private final String server;
    private final String database;
    private final long pid;
    private final JMXConnector jmx;
    private final com.sun.management.ThreadMXBean threads;
    private final List<GarbageCollectorMXBean> collectors;
    private final List<MemoryPoolMXBean> pools;

    /**
     * @param server   the Liberty server's name (its JVM's command line ends with {@code ws-server.jar <server>})
     * @param database the PostgreSQL database whose backends count as the run's
     * @throws IOException when the server's JVM is not running or refuses the attach
     */
    Cost(String server, String database) throws IOException {
        this.server = server;
        this.database = database;
        this.pid = libertyPid(server);
        try {
            VirtualMachine vm = VirtualMachine.attach(Long.toString(pid));
            String address;
            try {
                address = vm.startLocalManagementAgent();
            } finally {
                vm.detach();
            }
            jmx = JMXConnectorFactory.connect(new JMXServiceURL(address));
        } catch (com.sun.tools.attach.AttachNotSupportedException e) {
            throw new IOException("cannot attach to Liberty server " + server + " (pid " + pid + ")", e);
        }
        MBeanServerConnection connection = jmx.getMBeanServerConnection();
        threads = ManagementFactory.newPlatformMXBeanProxy(connection, ManagementFactory.THREAD_MXBEAN_NAME,
                com.sun.management.ThreadMXBean.class);
        collectors = ManagementFactory.getPlatformMXBeans(connection, GarbageCollectorMXBean.class);
        pools = ManagementFactory.getPlatformMXBeans(connection, MemoryPoolMXBean.class);
    }

    long pid() {
        return pid;
    }

    /** The JVM's process id of a running Liberty server. */
    static long libertyPid(String server) throws IOException {
        try (DirectoryStream<Path> procs = Files.newDirectoryStream(Path.of("/proc"), "[0-9]*")) {
            for (Path p : procs) {
                try {
                    String cmd = Files.readString(p.resolve("cmdline")).replace('\0', ' ').trim();
                    if (cmd.endsWith("ws-server.jar " + server)) {
                        return Long.parseLong(p.getFileName().toString());
                    }
                } catch (IOException | RuntimeException e) {
                    // gone
                }
            }
        }
        throw new IOException("no JVM of Liberty server " + server + " is running");
    }

    Reading read() throws IOException {
        long[] ids = threads.getAllThreadIds();
        long[] bytes = threads.getThreadAllocatedBytes(ids);
        Map<Long, Long> allocated = new HashMap<>();
        for (int i = 0; i < ids.length; i++) {
            if (bytes[i] >= 0) {
                allocated.put(ids[i], bytes[i]);
            }
        }
        long gc = 0;
        for (GarbageCollectorMXBean c : collectors) {
            gc += Math.max(0, c.getCollectionTime());
        }
        long oldGen = 0;
        for (MemoryPoolMXBean pool : pools) {
            MemoryUsage after = pool.getCollectionUsage();
            if (after != null && pool.getName().contains("Old")) {
                oldGen += after.getUsed();
            }
        }
        return new Reading(Instant.now(), ticks(), allocated, gc, oldGen);
    }

    /**
     * Collects the whole heap of the server ({@code MemoryMXBean.gc()}: a full collection in G1) and reads what
     * stayed: the live heap.
     *
     * @return bytes of heap in use after the collection
     * @throws IOException when the server's JMX connection fails
     */
    long liveHeapAfterFullGc() throws IOException {
        java.lang.management.MemoryMXBean memory = ManagementFactory.newPlatformMXBeanProxy(
                jmx.getMBeanServerConnection(), ManagementFactory.MEMORY_MXBEAN_NAME,
                java.lang.management.MemoryMXBean.class);
        memory.gc();
        return memory.getHeapMemoryUsage().getUsed();
    }

    Window between(Reading a, Reading b) {
        double seconds = Duration.between(a.at(), b.at()).toNanos() / 1e9;
        Map<String, Double> cpu = cpuSeconds(a.ticks(), b.ticks());
        long allocated = 0;
        for (Map.Entry<Long, Long> e : b.allocated().entrySet()) {
            allocated += e.getValue() - a.allocated().getOrDefault(e.getKey(), 0L);
        }
        return new Window(cpu, allocated, b.gcMillis() - a.gcMillis(), b.oldGenAfterGc(), seconds);
    }

    /**
     * CPU seconds per part from one set of per-process ticks to a later one: a process that is new in the later set
     * counts whole, one that is gone from it is not counted (sample often when processes come and go).
     */
    private static Map<String, Double> cpuSeconds(Map<Long, Ticks> a, Map<Long, Ticks> b) {
        Map<String, Double> cpu = new LinkedHashMap<>();
        for (String part : PARTS) {
            cpu.put(part, 0.0);
        }
        b.forEach((pid, t) -> {
            Ticks before = a.get(pid);
            long from = before != null && before.part().equals(t.part()) ? before.ticks() : 0;
            cpu.merge(t.part(), (t.ticks() - from) / TICKS, Double::sum);
        });
        return cpu;
    }

    /** CPU ticks so far per process of a part. */
    private Map<Long, Ticks> ticks() throws IOException {
        Map<Long, Ticks> ticks = new HashMap<>();
        try (DirectoryStream<Path> procs = Files.newDirectoryStream(Path.of("/proc"), "[0-9]*")) {
            for (Path p : procs) {
                try {
                    String part = part(p);
                    if (part == null) {
                        continue;
                    }
                    String stat = Files.readString(p.resolve("stat"));
                    String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
                    // utime and stime, fields 14 and 15, counted here from the state (field 3)
                    ticks.put(Long.parseLong(p.getFileName().toString()),
                            new Ticks(part, Long.parseLong(f[11]) + Long.parseLong(f[12])));
                } catch (IOException | RuntimeException e) {
                    // gone
                }
            }
        }
        return ticks;
    }

    private String part(Path p) throws IOException {
        String comm = Files.readString(p.resolve("comm")).trim();
        String cmd = Files.readString(p.resolve("cmdline")).replace('\0', ' ').trim();
        if (comm.equals("postgres")) {
            // titles as "postgres: 15/main: checkpointer" or "postgres: 15/main: postgres <database> 127.0.0.1(...)"
            if (cmd.contains(" " + database + " ")) {
                return PG_BACKENDS;
            }
            for (String title : PG_SHARED_TITLES) {
                if (cmd.contains(": " + title)) {
                    return PG_SHARED;
                }
            }
            return null;
        }
        if (!comm.equals("java")) {
            return null;
        }
        if (cmd.endsWith("ws-server.jar " + server)) {
            return LIBERTY;
        }
        if (cmd.contains(" kafka.Kafka ")) {
            return BROKER;
        }
        if (cmd.contains("-Dgreenmail.smtp.port=" + SMTP_PORT + " ")) {
            return GREENMAIL;
        }
        return null;
    }

    /**
     * CPU seconds per part while {@code work} runs, sampled every 100 ms so that processes made and ended within it
     * (pgbench's backends) count, less at most their last 100 ms.
     */
    static Map<String, Double> cpuDuring(String server, String database, ThrowingRunnable work) throws Exception {
        try (Cost cost = new Cost(server, database)) {
            Map<Long, Ticks> first = cost.ticks();
            Map<Long, Ticks> last = new HashMap<>(first);
            Thread sampler = new Thread(() -> {
                while (!Thread.currentThread().isInterrupted()) {
                    try {
                        Map<Long, Ticks> now = cost.ticks();
                        synchronized (last) {
                            last.putAll(now);
                        }
                        Thread.sleep(100);
                    } catch (IOException e) {
                        return;
                    } catch (InterruptedException e) {
                        return;
                    }
                }
            }, "cost-sampler");
            sampler.setDaemon(true);
            sampler.start();
            try {
                work.run();
            } finally {
                sampler.interrupt();
                sampler.join();
            }
            last.putAll(cost.ticks());
            return cpuSeconds(first, last);
        }
    }

    /** Work that may throw. */
    interface ThrowingRunnable {
        void run() throws Exception;
    }

    /** The server's diagnostic command (jcmd's), run over the attached connection. */
    String diagnostic(String command, String... arguments) throws Exception {
        Object result = jmx.getMBeanServerConnection().invoke(
                new ObjectName("com.sun.management:type=DiagnosticCommand"), command,
                new Object[] {arguments}, new String[] {String[].class.getName()});
        return String.valueOf(result);
    }

    @Override
    public void close() throws IOException {
        jmx.close();
    }
}
