package io.github.jakartainbox.testkit;

import io.github.jakartainbox.inbox.InboxStatistics;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.OptionalLong;
import javax.sql.DataSource;

/**
 * Where {@link IdempotencyCheck} reads what the inbox did with an event: the {@code inbox} row of (consumer, event
 * id), the {@code inbox_dead_letter} rows of it (tables of docs/schema.md), and, where it can be known, how many
 * duplicate deliveries the consumer skipped.
 */
public interface InboxFigures {

    /** Opens a connection to the database that holds the inbox tables. */
    @FunctionalInterface
    interface Connector {
        /**
         * @return a new connection, closed by the caller
         * @throws SQLException when the database cannot be reached
         */
        Connection connect() throws SQLException;
    }

    /**
     * @param consumer the {@code @Idempotent} consumer name
     * @param eventId  the event id as stored (a canonical UUID in lower case)
     * @return the rows of {@code inbox} for them: 1 once the consumer processed the event, 0 before
     * @throws SQLException when the database cannot be read
     */
    long inboxRows(String consumer, String eventId) throws SQLException;

    /**
     * @param consumer the {@code @Idempotent} consumer name
     * @param eventId  the event id as stored
     * @return the reasons of every {@code inbox_dead_letter} row of them, open or not, oldest first; empty if none
     * @throws SQLException when the database cannot be read
     */
    List<String> deadLetterReasons(String consumer, String eventId) throws SQLException;

    /**
     * @param consumer the {@code @Idempotent} consumer name
     * @return the duplicate deliveries this consumer skipped since its server started, or empty when these figures
     *         cannot know it (read from outside the server)
     * @throws SQLException when the figures cannot be read
     */
    OptionalLong duplicatesSkipped(String consumer) throws SQLException;

    /**
     * Figures read over JDBC alone, for a test outside the server: rows and dead letters, no duplicate count (the
     * library keeps that in the server's memory). {@link IdempotencyCheck} then needs a
     * {@link IdempotencyCheck.Builder#marker marker} to know when the duplicates were handled.
     *
     * @param connector opens a connection to the inbox's database, such as
     *                  {@code () -> DriverManager.getConnection(url, user, password)}
     * @return the figures
     * @throws NullPointerException when {@code connector} is null
     */
    static InboxFigures overJdbc(Connector connector) {
        Objects.requireNonNull(connector, "connector");
        return new InboxFigures() {
            @Override
            public long inboxRows(String consumer, String eventId) throws SQLException {
                try (Connection connection = connector.connect();
                     PreparedStatement query = connection.prepareStatement(
                             "SELECT count(*) FROM inbox WHERE consumer = ? AND event_id = ?")) {
                    query.setString(1, consumer);
                    query.setString(2, eventId);
                    try (ResultSet rs = query.executeQuery()) {
                        rs.next();
                        return rs.getLong(1);
                    }
                }
            }

            @Override
            public List<String> deadLetterReasons(String consumer, String eventId) throws SQLException {
                try (Connection connection = connector.connect();
                     PreparedStatement query = connection.prepareStatement("SELECT error FROM inbox_dead_letter "
                             + "WHERE consumer = ? AND event_id = ? ORDER BY first_failed_at, id")) {
                    query.setString(1, consumer);
                    query.setString(2, eventId);
                    List<String> reasons = new ArrayList<>();
                    try (ResultSet rs = query.executeQuery()) {
                        while (rs.next()) {
                            reasons.add(rs.getString(1));
                        }
                    }
                    return reasons;
                }
            }

            @Override
            public OptionalLong duplicatesSkipped(String consumer) {
                return OptionalLong.empty();
            }
        };
    }

    /**
     * Figures read on the server, for an in-container (Arquillian) test: rows and dead letters through the inbox's
     * datasource, duplicates skipped from the library's {@link InboxStatistics}. That figure counts every duplicate
     * the consumer skipped on this server: while duplicates of other events reach the consumer during the check,
     * give {@link IdempotencyCheck} a marker as well.
     *
     * @param inboxDataSource the datasource {@code inbox.datasource} names
     * @param statistics      the library's bean, such as {@code CDI.current().select(InboxStatistics.class).get()}
     * @return the figures
     * @throws NullPointerException when an argument is null
     */
    static InboxFigures inContainer(DataSource inboxDataSource, InboxStatistics statistics) {
        Objects.requireNonNull(statistics, "statistics");
        InboxFigures rows = overJdbc(Objects.requireNonNull(inboxDataSource, "inboxDataSource")::getConnection);
        return new InboxFigures() {
            @Override
            public long inboxRows(String consumer, String eventId) throws SQLException {
                return rows.inboxRows(consumer, eventId);
            }

            @Override
            public List<String> deadLetterReasons(String consumer, String eventId) throws SQLException {
                return rows.deadLetterReasons(consumer, eventId);
            }

            @Override
            public OptionalLong duplicatesSkipped(String consumer) throws SQLException {
                for (InboxStatistics.ConsumerFigures figures : statistics.figures()) {
                    if (figures.consumer().equals(consumer)) {
                        return OptionalLong.of(figures.duplicatesSkipped());
                    }
                }
                return OptionalLong.of(0);
            }
        };
    }
}
