package io.github.jakartainbox.billing.invoice;

import io.github.jakartainbox.billing.SampleEvents;
import io.github.jakartainbox.billing.order.OrderConfirmed;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.jakartainbox.testing.Db;
import io.github.jakartainbox.testing.Deployments;
import jakarta.enterprise.inject.spi.CDI;
import jakarta.transaction.UserTransaction;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import javax.naming.InitialContext;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.shrinkwrap.api.spec.WebArchive;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Invoice ids stay unique when the database loses its last commits under a running server, as after an
 * asynchronous failover (fault scenario 12): the sequence goes back to an earlier value and the rows written since
 * are gone. Simulated on one database by deleting the invoices made after a point and setting the sequence back to
 * its value at that point. Ids the server kept from before (a preallocated block) would be handed out again by the
 * sequence while the server still uses them: the invoices after the rewind would fail on the invoice's key.
 */
@ExtendWith(ArquillianExtension.class)
class InvoiceIdsAfterFailoverIT {

    private static final Duration WAIT = Duration.ofSeconds(120);
    private final Db db = Db.lazy();

    @Deployment
    static WebArchive deployment() {
        return Deployments.billingWithProbes();
    }

    /** Creates one invoice per transaction, as a consumer's deliveries do. */
    private static List<Long> invoices(String prefix, int count) throws Exception {
        Invoices invoices = CDI.current().select(Invoices.class).get();
        UserTransaction tx = (UserTransaction) new InitialContext().lookup("java:comp/UserTransaction");
        List<Long> ids = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            String order = prefix + "-" + UUID.randomUUID();
            tx.begin();
            Invoice invoice = invoices.create(OrderConfirmed.parse(
                    SampleEvents.event(UUID.randomUUID().toString(), order, "10.00", "EUR").json()));
            tx.commit();
            ids.add(invoice.getId());
        }
        return ids;
    }

    @Test
    void invoicesAfterTheDatabaseLostItsLastCommitsGetIdsOfTheirOwn() throws Exception {
        String run = "ids-" + UUID.randomUUID().toString().substring(0, 8);
        long rewindTo = db.number("SELECT last_value FROM invoice_id_seq");
        // more than a block of 50, so that ids come from blocks reserved after the point the database goes back to,
        // ending inside a block (one a server could still hold)
        List<Long> lost = invoices(run + "-lost", 75);
        while (lost.get(lost.size() - 1) % 50 == 0) {
            lost.addAll(invoices(run + "-lost", 1));
        }
        assertTrue(lost.stream().anyMatch(id -> id > rewindTo), "ids after the point: " + lost);
        db.await(WAIT, n -> n == 0, "SELECT count(*) FROM invoice WHERE order_id LIKE ? AND mail_status IS NULL",
                run + "-lost-%"); // their mails are done before the rows go
        db.execute("DELETE FROM invoice WHERE id > " + rewindTo);
        db.execute("SELECT setval('invoice_id_seq', " + rewindTo + ")");

        List<Long> after = invoices(run + "-after", 150);

        assertEquals(150, after.stream().distinct().count(), "distinct ids: " + after);
        assertEquals(150, db.number("SELECT count(*) FROM invoice WHERE order_id LIKE ?", run + "-after-%"),
                "every invoice after the rewind committed");
    }
}
