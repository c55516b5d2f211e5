package io.github.jakartainbox.testkit;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.OptionalLong;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.regex.Pattern;

/**
 * Proves that an {@code @Idempotent} consumer gives one effect per event, through the consumer's own channel or
 * queue. {@link Builder#run()} delivers one event
 * <ol>
 * <li>once, and waits for the consumer's {@code inbox} row of it (the state must change: otherwise the check could
 * not fail);</li>
 * <li>if a {@link Builder#crash crash} is given, kills and restarts the server right after that commit, before the
 * connector is likely to have acknowledged the delivery (liberty-kafka commits offsets every 500 ms);</li>
 * <li>{@code times - 1} more times in a row, then {@code times} times at once from {@link Builder#threads threads}
 * threads,</li>
 * </ol>
 * and after each step waits until the deliveries were handled (the consumer's duplicates-skipped figure rose by as
 * many, or the {@link Builder#marker marker} event sent after them was processed), then asserts that the state is
 * the state after one delivery, that the event has one inbox row and no dead letter. It fails as soon as the state
 * differs, naming what differs and what to check. Nothing is timed: a wait that runs out fails, saying what it
 * waited for.
 *
 * <pre>{@code
 * IdempotencyCheck.of("payments", eventId)
 *     .delivery(() -> producer.send(new ProducerRecord<>("payments", json)).get())
 *     .state(() -> db.number("SELECT count(*) FROM payment_booked"))
 *     .figures(InboxFigures.overJdbc(() -> DriverManager.getConnection(url, "postgres", "")))
 *     .marker(() -> sendFreshPayment())
 *     .run();
 * }</pre>
 */
public final class IdempotencyCheck {

    /** Sends the event once to the consumer's channel or queue. */
    @FunctionalInterface
    public interface Delivery {
        /**
         * Sends one copy of the event, and returns once the broker has it (a Kafka send's {@code get()}, a JMS send).
         * Called from several threads at once in the concurrent step.
         *
         * @throws Exception when the send fails; the check then fails with it
         */
        void deliver() throws Exception;
    }

    /** Reads the state the consumer's effect shows in, such as a query's result. */
    @FunctionalInterface
    public interface State {
        /**
         * @return a value compared with {@code equals}: a count, a list of rows, a record. It must show the effect
         *         only once committed (read it from the database, not from memory the method sets before its commit)
         * @throws Exception when it cannot be read; the check then fails with it
         */
        Object read() throws Exception;
    }

    /** Sends a fresh event, another than the checked one, behind the deliveries so far. */
    @FunctionalInterface
    public interface Marker {
        /**
         * Sends a new event (a new event id, each call) to the same consumer, where it is read after every delivery
         * sent before it: the same Kafka partition (one partition, or the checked event's key) read by one consumer
         * thread, or a queue with one consumer. Once its inbox row exists the deliveries before it were handled.
         * A share group ({@code group.type=share}) gives no such order: check its consumers in-container, with the
         * duplicates-skipped figure ({@link InboxFigures#inContainer}).
         *
         * @return the new event's id
         * @throws Exception when the send fails; the check then fails with it
         */
        String deliverFresh() throws Exception;
    }

    /** Kills the server that runs the consumer and starts it again. */
    @FunctionalInterface
    public interface Crash {
        /**
         * Kills the server at once (a {@code kill -9} of its JVM, not an orderly stop) and starts it again; returns
         * once the application consumes again.
         *
         * @throws Exception when the server cannot be killed or started; the check then fails with it
         */
        void killAndRestart() throws Exception;
    }

    /**
     * What a passing check saw.
     *
     * @param consumer          the consumer name
     * @param eventId           the event id as the inbox stores it
     * @param deliveries        the deliveries of the checked event the kit sent
     * @param stateBefore       the state before the first delivery
     * @param stateAfterOne     the state after the first delivery, and after all
     * @param duplicatesSkipped by how much the consumer's duplicates-skipped figure rose over the check, or -1 where
     *                          the figures do not count duplicates or a crash restarted the counter
     * @param crashed           whether the server was killed and restarted after the first delivery
     */
    public record Result(String consumer, String eventId, int deliveries, Object stateBefore, Object stateAfterOne,
                         long duplicatesSkipped, boolean crashed) {
    }

    private static final Pattern UUID = Pattern.compile(
            "[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}");
    private static final Duration POLL = Duration.ofMillis(100);

    private final Builder settings;
    private final String eventId;

    private IdempotencyCheck(Builder settings) {
        this.settings = settings;
        // the inbox stores a canonical UUID in lower case (docs/using-the-library.md, "Event ids")
        this.eventId = UUID.matcher(settings.eventId).matches() ? settings.eventId.toLowerCase(Locale.ROOT)
                : settings.eventId;
    }

    /**
     * Starts describing a check.
     *
     * @param consumer the name in the method's {@code @Idempotent(consumer = ...)}
     * @param eventId  the id of the event {@link Builder#delivery} sends, as the producer puts it in the event
     * @return a builder; {@link Builder#delivery}, {@link Builder#state} and {@link Builder#figures} are required
     * @throws IllegalArgumentException when either is null or blank
     */
    public static Builder of(String consumer, String eventId) {
        return new Builder(requireText(consumer, "consumer"), requireText(eventId, "eventId"));
    }

    /** The settings of a check; {@link #run()} runs it. */
    public static final class Builder {
        private final String consumer;
        private final String eventId;
        private Delivery delivery;
        private State state;
        private InboxFigures figures;
        private Marker marker;
        private Crash crash;
        private int times = 5;
        private int threads = 4;
        private Duration timeout = Duration.ofSeconds(60);

        private Builder(String consumer, String eventId) {
            this.consumer = consumer;
            this.eventId = eventId;
        }

        /**
         * @param delivery sends the event once (required)
         * @return this builder
         */
        public Builder delivery(Delivery delivery) {
            this.delivery = Objects.requireNonNull(delivery, "delivery");
            return this;
        }

        /**
         * @param state reads the state the consumer changes (required); it must change with the first delivery
         * @return this builder
         */
        public Builder state(State state) {
            this.state = Objects.requireNonNull(state, "state");
            return this;
        }

        /**
         * @param figures where the inbox's rows, dead letters and duplicate counts are read (required):
         *                {@link InboxFigures#inContainer} on the server, {@link InboxFigures#overJdbc} outside
         * @return this builder
         */
        public Builder figures(InboxFigures figures) {
            this.figures = Objects.requireNonNull(figures, "figures");
            return this;
        }

        /**
         * @param marker sends a fresh event behind the deliveries; required where the figures count no duplicates
         *               (outside the server) and with a {@link #crash crash}
         * @return this builder
         */
        public Builder marker(Marker marker) {
            this.marker = Objects.requireNonNull(marker, "marker");
            return this;
        }

        /**
         * @param crash kills and restarts the server right after the first delivery's commit (optional; needs a
         *              {@link #marker marker})
         * @return this builder
         */
        public Builder crash(Crash crash) {
            this.crash = Objects.requireNonNull(crash, "crash");
            return this;
        }

        /**
         * @param times the deliveries of each step: {@code times} in all in a row (the first included), then
         *              {@code times} at once; default 5
         * @return this builder
         * @throws IllegalArgumentException when below 2
         */
        public Builder times(int times) {
            if (times < 2) {
                throw new IllegalArgumentException("times must be at least 2 to deliver a duplicate: " + times);
            }
            this.times = times;
            return this;
        }

        /**
         * @param threads the threads that deliver at once in the concurrent step; default 4
         * @return this builder
         * @throws IllegalArgumentException when below 2
         */
        public Builder threads(int threads) {
            if (threads < 2) {
                throw new IllegalArgumentException("threads must be at least 2 to deliver concurrently: " + threads);
            }
            this.threads = threads;
            return this;
        }

        /**
         * @param timeout how long each wait lasts before it fails (the first row, each step's duplicates handled);
         *                default 60 s
         * @return this builder
         * @throws IllegalArgumentException when not positive
         */
        public Builder timeout(Duration timeout) {
            if (timeout == null || timeout.isNegative() || timeout.isZero()) {
                throw new IllegalArgumentException("timeout must be positive: " + timeout);
            }
            this.timeout = timeout;
            return this;
        }

        /**
         * Runs the check.
         *
         * @return what it saw, when the consumer passed
         * @throws AssertionError        when the consumer did not give one effect for the event, naming what differs
         * @throws IllegalStateException when the check is incomplete: delivery, state or figures missing, or neither
         *                               duplicate counts nor a marker (then the check could not know when the
         *                               duplicates were handled), or a crash without a marker
         */
        public Result run() {
            if (delivery == null || state == null || figures == null) {
                throw new IllegalStateException("IdempotencyCheck needs delivery, state and figures");
            }
            if (crash != null && marker == null) {
                throw new IllegalStateException("a crash needs a marker: after a restart the server counts duplicates "
                        + "from 0 and a redelivery of the crashed delivery may come at any time");
            }
            return new IdempotencyCheck(this).check();
        }
    }

    private Result check() {
        String consumer = settings.consumer;
        Object before = read();
        OptionalLong skippedAtStart = duplicatesSkipped();
        if (skippedAtStart.isEmpty() && settings.marker == null) {
            throw new IllegalStateException("these figures count no duplicates skipped (read from outside the server):"
                    + " give a marker, or the check cannot know when the duplicates were handled");
        }
        deliverOnce();
        awaitFirstRow(before);
        Object afterOne = read();
        if (Objects.equals(before, afterOne)) {
            throw new AssertionError(headline() + "the state did not change with the first delivery (" + before
                    + "), although the inbox row is there: a duplicate could not change it either, so this check "
                    + "proves nothing. Name a state the consumer's effect changes.");
        }
        int deliveries = 1;
        if (settings.crash != null) {
            try {
                settings.crash.killAndRestart();
            } catch (Exception e) {
                throw new AssertionError(headline() + "the crash hook failed: " + e, e);
            }
            settle("after a crash right after the first delivery's commit", before, afterOne, 0, OptionalLong.empty());
        }
        OptionalLong base = duplicatesSkipped();
        for (int i = 1; i < settings.times; i++) {
            deliverOnce();
        }
        deliveries += settings.times - 1;
        settle((settings.times - 1) + " more deliveries in a row", before, afterOne, settings.times - 1, base);

        OptionalLong beforeConcurrent = duplicatesSkipped();
        deliverConcurrently();
        deliveries += settings.times;
        settle(settings.times + " deliveries at once from " + settings.threads + " threads", before, afterOne,
                settings.times, beforeConcurrent);

        OptionalLong skippedAtEnd = duplicatesSkipped();
        long skipped = settings.crash == null && skippedAtStart.isPresent() && skippedAtEnd.isPresent()
                ? skippedAtEnd.getAsLong() - skippedAtStart.getAsLong() : -1;
        return new Result(consumer, eventId, deliveries, before, afterOne, skipped, settings.crash != null);
    }

    /** Waits for the first delivery's inbox row; fails at once on a dead letter or an effect without a row. */
    private void awaitFirstRow(Object before) {
        long deadline = System.nanoTime() + settings.timeout.toNanos();
        while (true) {
            long rows = rows(eventId);
            if (rows == 1) {
                return;
            }
            List<String> deadLetters = deadLetters(eventId);
            if (!deadLetters.isEmpty()) {
                throw new AssertionError(headline() + "the first delivery was dead-lettered, not processed: "
                        + String.join(" | ", deadLetters) + figuresText(before, null, read(), rows, deadLetters, null)
                        + "\nCheck the reason: the event's id and payload, and the method's failure.");
            }
            Object now = read();
            if (!Objects.equals(before, now) && rows(eventId) == 0) {
                throw new AssertionError(headline() + "the state changed with the first delivery, but the inbox has "
                        + "no row for consumer \"" + settings.consumer + "\" and event " + eventId + ": the consumer "
                        + "does not go through the inbox." + figuresText(before, null, now, 0, deadLetters, null)
                        + "\n" + advice());
            }
            if (System.nanoTime() > deadline) {
                throw new AssertionError(headline() + "no inbox row for the first delivery within " + settings.timeout
                        + ", and the state did not change." + figuresText(before, null, now, rows, deadLetters, null)
                        + "\nCheck that the delivery reaches the consumer's channel or queue, that the event carries "
                        + "event id " + settings.eventId + " where the consumer reads it, and: " + advice());
            }
            pause();
        }
    }

    /**
     * Waits until {@code expected} duplicates were handled (skipped-duplicates figure, or the marker's row), failing
     * as soon as the state, the rows or the dead letters of the event say otherwise.
     */
    private void settle(String step, Object before, Object afterOne, int expected, OptionalLong skippedBase) {
        String markerId = null;
        if (settings.marker != null) {
            try {
                markerId = normalise(settings.marker.deliverFresh());
            } catch (Exception e) {
                throw new AssertionError(headline() + "the marker's delivery failed: " + e, e);
            }
        }
        long deadline = System.nanoTime() + settings.timeout.toNanos();
        while (true) {
            // the sign that the deliveries were handled is read first, the state after it
            OptionalLong skipped = duplicatesSkipped();
            long skippedSince = skipped.isPresent() && skippedBase.isPresent()
                    ? skipped.getAsLong() - skippedBase.getAsLong() : -1;
            boolean counted = skippedBase.isEmpty() || skippedSince >= expected;
            boolean marked = markerId == null || rows(markerId) == 1;
            Object now = read();
            long rows = rows(eventId);
            List<String> deadLetters = deadLetters(eventId);
            String skippedText = skippedBase.isEmpty() ? null : skippedSince + " of " + expected;
            if (!Objects.equals(afterOne, now)) {
                throw new AssertionError(headline() + "after " + step + " the state is not the state after one "
                        + "delivery." + figuresText(before, afterOne, now, rows, deadLetters, skippedText) + "\n"
                        + advice());
            }
            if (rows != 1 || !deadLetters.isEmpty()) {
                throw new AssertionError(headline() + "after " + step + " the inbox holds " + rows + " rows and "
                        + deadLetters.size() + " dead letters for the event, expected 1 and 0."
                        + figuresText(before, afterOne, now, rows, deadLetters, skippedText)
                        + "\nA dead letter of the same event id names another payload (fingerprint) or a failure of a "
                        + "duplicate's delivery: read its reason.");
            }
            if (counted && marked) {
                return;
            }
            if (markerId != null && !deadLetters(markerId).isEmpty()) {
                throw new AssertionError(headline() + "after " + step + " the marker event " + markerId
                        + " was dead-lettered: " + String.join(" | ", deadLetters(markerId)));
            }
            if (System.nanoTime() > deadline) {
                throw new AssertionError(headline() + "after " + step + " the deliveries were not all handled within "
                        + settings.timeout + ": " + (counted ? "" : "duplicates skipped rose by " + skippedSince
                        + " of " + expected + "; ") + (marked ? "" : "the marker event " + markerId + " has no inbox row; ")
                        + "the state is still the state after one delivery."
                        + figuresText(before, afterOne, now, rows, deadLetters, skippedText)
                        + "\nCheck that the consumer still consumes (its server's log), and: " + advice());
            }
            pause();
        }
    }

    private String headline() {
        return "IdempotencyCheck of consumer \"" + settings.consumer + "\", event " + eventId + ": ";
    }

    private String advice() {
        return "Is the method annotated @Idempotent(consumer = \"" + settings.consumer + "\")? Does all its work go "
                + "through the inbox datasource, in the method's transaction and on the calling thread?";
    }

    private static String figuresText(Object before, Object afterOne, Object now, long rows, List<String> deadLetters,
                                       String skipped) {
        StringBuilder text = new StringBuilder();
        text.append("\n  state before the first delivery: ").append(before);
        if (afterOne != null) {
            text.append("\n  state after one delivery:        ").append(afterOne);
        }
        text.append("\n  state now:                       ").append(now);
        text.append("\n  inbox rows for the event:        ").append(rows);
        text.append("\n  dead letters for the event:      ")
                .append(deadLetters.isEmpty() ? "none" : String.join(" | ", deadLetters));
        text.append("\n  duplicates skipped:              ")
                .append(skipped == null ? "not counted by these figures" : "rose by " + skipped);
        return text.toString();
    }

    private void deliverOnce() {
        try {
            settings.delivery.deliver();
        } catch (Exception e) {
            throw new AssertionError(headline() + "the delivery failed: " + e, e);
        }
    }

    private void deliverConcurrently() {
        ExecutorService pool = Executors.newFixedThreadPool(settings.threads);
        try {
            CountDownLatch start = new CountDownLatch(1);
            List<Future<?>> sends = new ArrayList<>();
            for (int i = 0; i < settings.times; i++) {
                sends.add(pool.submit(() -> {
                    start.await();
                    settings.delivery.deliver();
                    return null;
                }));
            }
            start.countDown();
            for (Future<?> send : sends) {
                send.get();
            }
        } catch (ExecutionException e) {
            throw new AssertionError(headline() + "a concurrent delivery failed: " + e.getCause(), e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(headline() + "interrupted while delivering", e);
        } finally {
            pool.shutdownNow();
        }
    }

    private Object read() {
        try {
            return settings.state.read();
        } catch (Exception e) {
            throw new AssertionError(headline() + "the state could not be read: " + e, e);
        }
    }

    private long rows(String id) {
        try {
            return settings.figures.inboxRows(settings.consumer, id);
        } catch (Exception e) {
            throw new AssertionError(headline() + "the inbox could not be read: " + e, e);
        }
    }

    private List<String> deadLetters(String id) {
        try {
            return settings.figures.deadLetterReasons(settings.consumer, id);
        } catch (Exception e) {
            throw new AssertionError(headline() + "the dead letters could not be read: " + e, e);
        }
    }

    private OptionalLong duplicatesSkipped() {
        try {
            return settings.figures.duplicatesSkipped(settings.consumer);
        } catch (Exception e) {
            throw new AssertionError(headline() + "the duplicates skipped could not be read: " + e, e);
        }
    }

    private static String normalise(String id) {
        requireText(id, "the marker's event id");
        return UUID.matcher(id).matches() ? id.toLowerCase(Locale.ROOT) : id;
    }

    private static void pause() {
        try {
            Thread.sleep(POLL.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted while waiting", e);
        }
    }

    private static String requireText(String value, String name) {
        if (value == null || value.isBlank()) {
            throw new IllegalArgumentException(name + " must not be null or blank");
        }
        return value;
    }
}
