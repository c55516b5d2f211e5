package io.github.jakartainbox.inbox.sqlstate;

import java.sql.SQLException;

/** No connection of the inbox datasource could be had: the database is down, refuses connections, or is full. */
public final class DatabaseUnavailableException extends SQLException {

    private static final long serialVersionUID = 1L;

    public DatabaseUnavailableException(SQLException cause) {
        super("No connection to the inbox database: " + cause.getMessage(), cause.getSQLState(), cause);
    }
}
