package io.github.jakartainbox.bench;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedFrame;
import jdk.jfr.consumer.RecordedStackTrace;
import jdk.jfr.consumer.RecordingFile;

/**
 * Where the server's CPU goes: a JDK Flight Recorder recording (settings "profile" with method-profiling "max": a
 * Java stack sampled every millisecond per running thread, since every 10 ms left a run of 30,000 events with about
 * 130 samples) taken on the benchmark's Liberty server over a measured window, its execution samples
 * grouped by component. A sample belongs to the component of its topmost frame that is not the JDK's (the JDK's
 * own frames, a {@code HashMap} or a {@code String}, count for the code that called them); a stack of JDK frames
 * only (GC-free JIT, the selector of a socket) counts as "JDK only".
 */
final class Profile {

    /** Components by package prefix; the first prefix that matches a frame's class names it. */
    private static final List<String[]> COMPONENTS = List.of(
            new String[] {"io.github.jakartainbox.inbox.claim.", "inbox: claim"},
            new String[] {"io.github.jakartainbox.inbox.kafka.", "inbox: Kafka connector (poll loop, group)"},
            new String[] {"io.github.jakartainbox.inbox.tracing.", "tracing"},
            new String[] {"io.github.jakartainbox.inbox.", "inbox: pipeline (interceptor, event id, failures)"},
            new String[] {"io.github.jakartainbox.outbox.", "outbox and relay"},
            new String[] {"io.github.jakartainbox.", "the example's handler"},
            new String[] {"org.apache.kafka.", "Kafka client"},
            new String[] {"org.apache.pdfbox.", "PDF (PDFBox)"},
            new String[] {"org.apache.fontbox.", "PDF (PDFBox)"},
            new String[] {"org.eclipse.angus.", "mail (Angus Mail)"},
            new String[] {"jakarta.mail.", "mail (Angus Mail)"},
            new String[] {"jakarta.activation.", "mail (Angus Mail)"},
            new String[] {"org.postgresql.", "JDBC driver (PostgreSQL)"},
            new String[] {"org.eclipse.persistence.", "JPA (EclipseLink)"},
            new String[] {"org.eclipse.parsson.", "JSON"},
            new String[] {"jakarta.json.", "JSON"},
            new String[] {"org.glassfish.json.", "JSON"},
            new String[] {"com.ibm.tx.", "transaction manager"},
            new String[] {"com.ibm.ws.tx.", "transaction manager"},
            new String[] {"com.ibm.ws.Transaction.", "transaction manager"},
            new String[] {"com.ibm.ws.uow.", "transaction manager"},
            new String[] {"com.ibm.ejs.j2c.", "connection pool and JDBC wrapper (Liberty)"},
            new String[] {"com.ibm.ws.jca.", "connection pool and JDBC wrapper (Liberty)"},
            new String[] {"com.ibm.ws.rsadapter.", "connection pool and JDBC wrapper (Liberty)"},
            new String[] {"com.ibm.ws.jdbc.", "connection pool and JDBC wrapper (Liberty)"},
            new String[] {"org.jboss.weld.", "CDI (Weld) and interceptors"},
            new String[] {"com.ibm.ws.cdi.", "CDI (Weld) and interceptors"},
            new String[] {"io.smallrye.reactive.messaging.", "Reactive Messaging (SmallRye)"},
            new String[] {"io.smallrye.mutiny.", "Reactive Messaging (SmallRye)"},
            new String[] {"com.ibm.ws.microprofile.reactive.", "Reactive Messaging (SmallRye)"},
            new String[] {"io.smallrye.metrics.", "metrics"},
            new String[] {"io.micrometer.", "metrics"},
            new String[] {"com.ibm.ws.microprofile.metrics.", "metrics"},
            new String[] {"com.ibm.ws.monitor.", "metrics"},
            new String[] {"com.ibm.ws.boot.delegated.monitoring.", "metrics"},
            new String[] {"org.eclipse.osgi.", "Liberty, other"},
            new String[] {"org.apache.felix.", "Liberty, other"},
            new String[] {"io.opentelemetry.", "tracing"},
            new String[] {"com.ibm.ws.logging.", "logging"},
            new String[] {"com.ibm.websphere.ras.", "logging"},
            new String[] {"com.ibm.ws.ras.", "logging"},
            new String[] {"org.slf4j.", "logging"},
            new String[] {"java.util.logging.", "logging"},
            new String[] {"com.ibm.", "Liberty, other"},
            new String[] {"org.", "other libraries"},
            new String[] {"io.", "other libraries"});

    /** Samples per component, largest first, and how many samples in all. */
    record Table(Map<String, Long> samples, long total) {

        /**
         * @param cpuMicrosPerEvent the server's CPU per event over the same window, to spread over the components
         * @return a Markdown table: component, share of samples, microseconds of CPU per event
         */
        String markdown(double cpuMicrosPerEvent) {
            StringBuilder b = new StringBuilder("| component (topmost frame not the JDK's) | share of samples | µs of "
                    + "CPU per event |\n| --- | ---: | ---: |\n");
            samples.forEach((name, n) -> b.append(String.format("| %s | %.1f%% | %.1f |%n", name, 100.0 * n / total,
                    cpuMicrosPerEvent * n / total)));
            return b.append(String.format("| all (%,d samples) | 100%% | %.1f |%n", total, cpuMicrosPerEvent))
                    .toString();
        }
    }

    private Profile() {
    }

    /** Starts a recording on the attached server. */
    static void start(Cost server) throws Exception {
        server.diagnostic("jfrStart", "name=bench-profile", "settings=profile", "method-profiling=max");
    }

    /** Stops the recording and writes it to {@code file}. */
    static Path stop(Cost server, Path file) throws Exception {
        server.diagnostic("jfrStop", "name=bench-profile", "filename=" + file.toAbsolutePath());
        return file;
    }

    /** Groups a recording's execution samples by component. */
    static Table read(Path recording) throws IOException {
        Map<String, Long> counts = new LinkedHashMap<>();
        long total = 0;
        try (RecordingFile file = new RecordingFile(recording)) {
            while (file.hasMoreEvents()) {
                RecordedEvent event = file.readEvent();
                if (!event.getEventType().getName().equals("jdk.ExecutionSample")) {
                    continue;
                }
                RecordedStackTrace stack = event.getStackTrace();
                counts.merge(component(stack == null ? List.of() : stack.getFrames()), 1L, Long::sum);
                total++;
            }
        }
        List<Map.Entry<String, Long>> sorted = new ArrayList<>(counts.entrySet());
        sorted.sort(Map.Entry.<String, Long>comparingByValue().reversed());
        Map<String, Long> ordered = new LinkedHashMap<>();
        sorted.forEach(e -> ordered.put(e.getKey(), e.getValue()));
        return new Table(ordered, total);
    }

    static String component(List<RecordedFrame> frames) {
        for (RecordedFrame frame : frames) {
            if (!frame.isJavaFrame() || frame.getMethod() == null) {
                continue;
            }
            String type = frame.getMethod().getType().getName();
            for (String[] c : COMPONENTS) {
                if (type.startsWith(c[0])) {
                    return c[1];
                }
            }
        }
        return "JDK only (JIT-compiled JDK code, sockets, selectors)";
    }
}
