package io.github.jakartainbox.outbox;

import io.github.jakartainbox.inbox.InboxConfig;

import jakarta.enterprise.context.ApplicationScoped;
import javax.naming.InitialContext;
import javax.naming.NamingException;
import javax.sql.DataSource;
import org.eclipse.microprofile.config.ConfigProvider;

/**
 * The datasource the outbox writes through: the inbox's ({@code inbox.datasource}, default {@code jdbc/inbox}), so
 * that the outbox row, the inbox row and the business change share one connection and commit in one phase. Its
 * tables come with the inbox's Flyway migration ({@code io/github/jakartainbox/inbox/db/migration/V8__outbox.sql}).
 */
@ApplicationScoped
class OutboxDatabase {

    private volatile DataSource dataSource;

    /**
     * @return the inbox datasource
     * @throws IllegalStateException when it is not in JNDI (OUTBOX0002E says what to do)
     */
    DataSource dataSource() {
        DataSource ready = dataSource;
        if (ready != null) {
            return ready;
        }
        // the inbox's key (docs/configuration.md, "Inbox keys"): one datasource for the inbox, the outbox and the business tables
        String jndiName = InboxConfig.DATASOURCE.find(ConfigProvider.getConfig()).orElseThrow();
        try {
            ready = (DataSource) new InitialContext().lookup(jndiName);
        } catch (NamingException | ClassCastException e) {
            throw new IllegalStateException(OutboxLog.format(OutboxMessage.OUTBOX0002E, jndiName, e.toString()), e);
        }
        dataSource = ready;
        return ready;
    }
}
