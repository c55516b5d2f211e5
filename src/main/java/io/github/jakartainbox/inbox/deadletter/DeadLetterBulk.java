package io.github.jakartainbox.inbox.deadletter;

import io.github.jakartainbox.inbox.deadletter.InboxRedrives.Outcome;
import io.github.jakartainbox.inbox.deadletter.InboxRedrives.Route;
import io.github.jakartainbox.inbox.deadletter.InboxRedrives.Status;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.sql.SQLException;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.function.Function;
import java.util.regex.Pattern;

/**
 * Re-drives or discards many dead letters in one call, each row as {@link InboxRedrives} does it alone, by the rules
 * every operator API needs: a selection of ids or the open rows of one group; after a failed send (the broker or the
 * outbox is away) the rest is left alone rather than each waiting for the same failure; refusals counted by reason,
 * with one example each. The application words each outcome (its message ids) and maps the result to its answer.
 */
@ApplicationScoped
public class DeadLetterBulk {

    /** What to do with each selected dead letter. */
    public enum Action {
        /** {@link InboxRedrives#redrive}, aimed at the dead letter's own consumer. */
        REDRIVE,
        /** {@link InboxRedrives#discard}. */
        DISCARD
    }

    /**
     * Which dead letters: a list of ids, or the open rows of one group (consumer and failure key, as
     * {@link InboxDeadLetters#groups} lists them).
     *
     * @param ids      the ids, in order, each once; empty for a group
     * @param consumer the group's consumer (inbox name), {@code null} for ids
     * @param failure  the group's failure key, {@code null} for ids
     */
    public record Selection(List<Long> ids, String consumer, String failure) {

        /**
         * @param ids dead-letter ids; a repeated id counts once
         * @return the selection of those ids, in their first order
         * @throws IllegalArgumentException when there are none, more than {@value InboxDeadLetters#MAX_BULK}
         *                                  distinct ones, or one below 1
         * @throws NullPointerException     when {@code ids} or one of them is {@code null}
         */
        public static Selection ofIds(Collection<Long> ids) {
            LinkedHashSet<Long> distinct = new LinkedHashSet<>();
            for (Long id : ids) {
                if (Objects.requireNonNull(id, "id") < 1) {
                    throw new IllegalArgumentException("dead-letter id " + id + " is below 1");
                }
                distinct.add(id);
            }
            if (distinct.isEmpty() || distinct.size() > InboxDeadLetters.MAX_BULK) {
                throw new IllegalArgumentException("a bulk call takes 1 to " + InboxDeadLetters.MAX_BULK
                        + " ids, got " + distinct.size());
            }
            return new Selection(List.copyOf(distinct), null, null);
        }

        /**
         * @param consumer the consumer's inbox name
         * @param failure  the failure key: a message id, else an exception's class name ({@code other} for the rest)
         * @return the selection of that group's open rows, at most {@value InboxDeadLetters#MAX_BULK}, oldest first
         * @throws IllegalArgumentException when either is {@code null} or empty
         */
        public static Selection ofGroup(String consumer, String failure) {
            if (consumer == null || consumer.isEmpty() || failure == null || failure.isEmpty()) {
                throw new IllegalArgumentException("a group needs a consumer and a failure key");
            }
            return new Selection(List.of(), consumer, failure);
        }

        /** @return whether this is a group rather than a list of ids */
        public boolean byGroup() {
            return consumer != null;
        }
    }

    /**
     * Rows refused for one reason.
     *
     * @param count   how many
     * @param example the text of the first of them
     */
    public record Refusal(int count, String example) {
    }

    /**
     * What a bulk call did.
     *
     * @param action       the action
     * @param selected     the rows selected (a group: its open rows, at most {@value InboxDeadLetters#MAX_BULK})
     * @param done         the rows re-driven or discarded
     * @param alreadyTaken the rows another re-drive held ({@link Status#TAKEN}), left to it
     * @param refused      the refused rows by key: the message id their text starts with, else their
     *                     {@link Status} name; sorted by key
     * @param notTried     the rows left alone after a failed send
     * @param moreInGroup  whether the group may hold more open rows than were selected: call again
     */
    public record Result(Action action, int selected, int done, int alreadyTaken, SortedMap<String, Refusal> refused,
                         int notTried, boolean moreInGroup) {

        /** Keeps the refusals as given, unmodifiable. */
        public Result {
            refused = Collections.unmodifiableSortedMap(new TreeMap<>(refused));
        }

        /** @return the refused rows, all reasons together */
        public int refusedCount() {
            return refused.values().stream().mapToInt(Refusal::count).sum();
        }
    }

    /** A text that starts with a message id, as the library's and the example's catalogues write them. */
    private static final Pattern MESSAGE_ID = Pattern.compile("^[A-Z]{4,10}[0-9]{4}[IWE]: .*", Pattern.DOTALL);

    @Inject
    InboxDeadLetters deadLetters;

    @Inject
    InboxRedrives redrives;

    /**
     * Re-drives or discards the selected dead letters one after the other, each in its own transactions as
     * {@link InboxRedrives#redrive} (aimed at its own consumer) or {@link InboxRedrives#discard} does it alone. After
     * an outcome {@link Status#SEND_FAILED} the remaining rows are not tried ({@link Result#notTried()}). Must run
     * without a JTA transaction.
     *
     * @param action   re-drive or discard
     * @param select   the ids, or the group whose open rows are read first ({@link InboxDeadLetters#openIds})
     * @param routes   the route of a consumer (by inbox name), as for {@link InboxRedrives#redrive}; not used to
     *                 discard
     * @param operator who acts (the caller's principal), for the claims, {@code resolved_by} and the history
     * @param report   called once with each tried row's outcome, in order (log it there); for an outcome other than
     *                 {@link Status#REDRIVEN}, {@link Status#DISCARDED} and {@link Status#TAKEN} it returns the
     *                 refusal's text, whose leading message id ({@code BILLING0244E: ...}) is the key it is counted
     *                 under ({@code null}, or a text without one: the status name)
     * @return the counts
     * @throws NullPointerException  when an argument is {@code null}
     * @throws IllegalStateException (INBOX0240E) inside a JTA transaction, when re-driving
     * @throws SQLException          when the database cannot be read or written: the rows before are done, the rest
     *                               untouched (a claim taken on the failing row expires after
     *                               {@code inbox.dead-letter.redrive-lease})
     */
    public Result apply(Action action, Selection select, Function<String, Optional<Route>> routes, String operator,
                        Function<Outcome, String> report) throws SQLException {
        Objects.requireNonNull(action, "action");
        Objects.requireNonNull(routes, "routes");
        Objects.requireNonNull(operator, "operator");
        Objects.requireNonNull(report, "report");
        List<Long> ids = select.byGroup()
                ? deadLetters.openIds(select.consumer(), select.failure(), InboxDeadLetters.MAX_BULK) : select.ids();
        boolean moreInGroup = select.byGroup() && ids.size() == InboxDeadLetters.MAX_BULK;
        int done = 0;
        int taken = 0;
        int notTried = 0;
        boolean away = false;
        SortedMap<String, Refusal> refused = new TreeMap<>();
        for (long id : ids) {
            if (away) {
                notTried++; // the broker or the outbox is away: the rest would wait for the same failure
                continue;
            }
            Outcome outcome = action == Action.REDRIVE ? redrives.redrive(id, routes, true, operator)
                    : redrives.discard(id, operator);
            String text = report.apply(outcome);
            switch (outcome.status()) {
                case REDRIVEN, DISCARDED -> done++;
                case TAKEN -> taken++;
                default -> {
                    refuse(refused, text, outcome.status().name());
                    away = outcome.status() == Status.SEND_FAILED;
                }
            }
        }
        return new Result(action, ids.size(), done, taken, refused, notTried, moreInGroup);
    }

    /**
     * Counts one refusal under its key: the message id its text starts with, else the status name.
     *
     * @param refused the counts so far
     * @param text    the refusal's text, may be {@code null}
     * @param status  the outcome's status name
     */
    static void refuse(SortedMap<String, Refusal> refused, String text, String status) {
        String key = text != null && MESSAGE_ID.matcher(text).matches() ? text.substring(0, text.indexOf(':')) : status;
        String example = text == null ? status : text;
        refused.merge(key, new Refusal(1, example), (old, one) -> new Refusal(old.count() + 1, old.example()));
    }
}
