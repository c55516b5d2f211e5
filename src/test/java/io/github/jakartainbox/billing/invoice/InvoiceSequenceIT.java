package io.github.jakartainbox.billing.invoice;

import io.github.jakartainbox.billing.BillingSchema;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.github.jakartainbox.testing.TestDatabases;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import org.flywaydb.core.Flyway;
import org.junit.jupiter.api.Test;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * The billing schema's invoice id sequence agrees with the blocks {@link Invoices} reserves (database
 * billing_invoice_sequence_it, made afresh, migrated as {@link BillingSchema} does): each {@code nextval} is the last
 * id of a block of {@link Invoices#IDS_PER_BLOCK}, and a new database's first block starts at id 1.
 */
class InvoiceSequenceIT {

    private static final String DB = "billing_invoice_sequence_it";

    private static Flyway flyway(PGSimpleDataSource db, String target) {
        return BillingSchema.flyway(db).target(target).load();
    }

    private static long nextval(Connection c) throws SQLException {
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT nextval('invoice_id_seq')")) {
            rs.next();
            return rs.getLong(1);
        }
    }

    @Test
    void aNewDatabasesFirstBlockStartsAtIdOne() throws Exception {
        int size = Invoices.IDS_PER_BLOCK;
        PGSimpleDataSource db = TestDatabases.fresh(DB);
        flyway(db, "latest").migrate();
        try (Connection c = db.getConnection()) {
            long first = nextval(c);
            assertEquals(1, first - size + 1, "the first block starts at id 1");
            assertEquals(first + size, nextval(c), "each nextval is one block further");
        }
    }

    @Test
    void aSequenceThatAlreadyGaveValuesIsLeftAsItIs() throws Exception {
        PGSimpleDataSource db = TestDatabases.fresh(DB);
        flyway(db, "4").migrate();
        long before;
        try (Connection c = db.getConnection()) {
            nextval(c);
            before = nextval(c);
        }
        flyway(db, "latest").migrate();
        try (Connection c = db.getConnection()) {
            assertEquals(before + Invoices.IDS_PER_BLOCK, nextval(c));
        }
    }
}
