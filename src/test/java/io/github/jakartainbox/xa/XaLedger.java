package io.github.jakartainbox.xa;

import io.github.jakartainbox.inbox.Idempotent;
import jakarta.annotation.PostConstruct;
import jakarta.annotation.Resource;
import jakarta.inject.Inject;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.jms.ConnectionFactory;
import jakarta.jms.JMSContext;
import jakarta.jms.Queue;
import jakarta.jms.TextMessage;
import jakarta.json.Json;
import jakarta.json.JsonObject;
import java.io.StringReader;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import javax.naming.InitialContext;
import javax.naming.NamingException;
import javax.sql.DataSource;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * The XA tests' business code, two {@code @Idempotent} consumers whose transactions span two resources, which
 * Liberty's transaction manager commits with two-phase commit:
 * <ol>
 *   <li>{@code xa-ledger}: the inbox in one PostgreSQL database ({@code jdbc/inbox}) and the ledger row in another
 *       ({@code jdbc/ledger}), two XA datasources;</li>
 *   <li>{@code xa-jms}: the inbox claim and a notice row in the inbox database, and a JMS message sent to queue
 *       {@code ledger.booked} on Liberty's embedded messaging engine.</li>
 * </ol>
 * Events are JSON objects with {@code event_id} and {@code order_id}.
 */
@ApplicationScoped
public class XaLedger {

    /** What a test asks the business code to do besides its work. */
    public enum Fault {
        /** nothing */
        NONE,
        /** throw after the second resource's work (the ledger row, or the JMS send) */
        FAIL_AFTER_WORK,
        /**
         * {@code SET LOCAL synchronous_commit = local} on both database connections, so that their PREPAREs do not
         * wait for a synchronous standby, while the COMMIT PREPARED that follows (outside the prepared transaction,
         * with the session's setting) does: {@code XaIT}'s kill between prepare and commit
         */
        HOLD_COMMIT
    }

    /** The ledger's datasource: {@code jdbc/ledger} (XA), or in the benchmark's one-database baseline the inbox's. */
    @Inject
    @ConfigProperty(name = "xa.ledger.datasource", defaultValue = "jdbc/ledger")
    String ledgerName;
    @Inject
    @ConfigProperty(name = "inbox.datasource")
    String inboxName;
    private DataSource ledger;
    private DataSource inbox;

    @PostConstruct
    void lookUp() {
        try {
            ledger = (DataSource) new InitialContext().lookup(ledgerName);
            inbox = (DataSource) new InitialContext().lookup(inboxName);
        } catch (NamingException e) {
            throw new IllegalStateException(e);
        }
    }
    @Resource(lookup = "jms/xaFactory")
    ConnectionFactory factory;
    @Resource(lookup = "jms/ledgerBooked")
    Queue booked;

    /**
     * Books the order in the ledger database.
     *
     * @param json  the event
     * @param fault what else to do
     * @return {@code "processed"}, or {@code null} when the inbox skipped a duplicate
     */
    @Idempotent(consumer = "xa-ledger")
    public String book(String json, Fault fault) throws SQLException {
        JsonObject event = Json.createReader(new StringReader(json)).readObject();
        if (fault == Fault.HOLD_COMMIT) {
            holdCommit(inbox);
            holdCommit(ledger);
        }
        try (Connection c = ledger.getConnection();
             PreparedStatement insert = c.prepareStatement("INSERT INTO ledger (event_id, order_id) VALUES (?, ?)")) {
            insert.setString(1, event.getString("event_id"));
            insert.setString(2, event.getString("order_id"));
            insert.executeUpdate();
        }
        if (fault == Fault.FAIL_AFTER_WORK) {
            throw new IllegalStateException("injected failure after the ledger row");
        }
        return "processed";
    }

    /**
     * Records a notice in the inbox database and sends it to queue {@code ledger.booked}, with the event id as JMS
     * property {@code event_id}.
     *
     * @param json  the event
     * @param fault what else to do
     * @return {@code "processed"}, or {@code null} when the inbox skipped a duplicate
     */
    @Idempotent(consumer = "xa-jms")
    public String notify(String json, Fault fault) throws Exception {
        JsonObject event = Json.createReader(new StringReader(json)).readObject();
        try (Connection c = inbox.getConnection();
             PreparedStatement insert = c.prepareStatement("INSERT INTO notice (event_id, order_id) VALUES (?, ?)")) {
            insert.setString(1, event.getString("event_id"));
            insert.setString(2, event.getString("order_id"));
            insert.executeUpdate();
        }
        try (JMSContext context = factory.createContext()) {
            TextMessage message = context.createTextMessage(json);
            message.setStringProperty("event_id", event.getString("event_id"));
            context.createProducer().send(booked, message);
        }
        if (fault == Fault.FAIL_AFTER_WORK) {
            throw new IllegalStateException("injected failure after the JMS send");
        }
        return "processed";
    }

    private static void holdCommit(DataSource dataSource) throws SQLException {
        try (Connection c = dataSource.getConnection(); Statement s = c.createStatement()) {
            s.execute("SET LOCAL synchronous_commit = local");
        }
    }
}
