package io.github.jakartainbox.testing;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import org.postgresql.ds.PGSimpleDataSource;

/** Scratch PostgreSQL databases on 127.0.0.1:5432 for tests and benchmarks that run outside Liberty. */
public final class TestDatabases {

    private TestDatabases() {
    }

    public static PGSimpleDataSource source(String database) {
        PGSimpleDataSource ds = new PGSimpleDataSource();
        ds.setServerNames(new String[] {"127.0.0.1"});
        ds.setPortNumbers(new int[] {5432});
        ds.setDatabaseName(database);
        ds.setUser("postgres");
        return ds;
    }

    /** Drops the database if it exists, creates it empty, and returns a datasource for it. */
    public static PGSimpleDataSource fresh(String database) throws SQLException {
        try (Connection c = source("postgres").getConnection(); Statement s = c.createStatement()) {
            s.execute("DROP DATABASE IF EXISTS " + database + " WITH (FORCE)");
            s.execute("CREATE DATABASE " + database);
        }
        return source(database);
    }
}
