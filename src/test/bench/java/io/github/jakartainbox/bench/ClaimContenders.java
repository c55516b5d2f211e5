package io.github.jakartainbox.bench;

import io.github.jakartainbox.inbox.claim.InboxClaimForBenchmarks;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import javax.sql.DataSource;
import org.apache.camel.processor.idempotent.jdbc.JdbcMessageIdRepository;
import org.springframework.core.io.ClassPathResource;
import org.springframework.integration.jdbc.metadata.JdbcMetadataStore;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.jdbc.datasource.DataSourceUtils;
import org.springframework.jdbc.datasource.init.ResourceDatabasePopulator;
import org.springframework.transaction.support.TransactionTemplate;

/** The claims compared by {@link ClaimBenchmark}, each with its own table, on one shared connection pool. */
final class ClaimContenders {

    static final String CONSUMER = "billing";

    private ClaimContenders() {
    }

    /** Work on a connection inside its transaction. */
    interface TransactionWork<T> {
        T on(Connection connection) throws SQLException;
    }

    /** The plain JDBC transaction every JDBC contender uses: autocommit off, the work, commit (rollback on failure). */
    static <T> T inTransaction(DataSource pool, TransactionWork<T> work) throws SQLException {
        try (Connection c = pool.getConnection()) {
            c.setAutoCommit(false);
            try {
                T result = work.on(c);
                c.commit();
                return result;
            } catch (SQLException | RuntimeException e) {
                c.rollback();
                throw e;
            }
        }
    }

    /** One way to claim an event id in a transaction of its own. */
    interface Contender {
        String name();

        /** What runs per claim and what transaction it is in, for the doc. */
        String transaction();

        /** @return {@code true} when the id was new and is now claimed, {@code false} for a duplicate */
        boolean claim(String eventId) throws Exception;

        /** SQL that stores {@code ids} as already processed, for the duplicate runs (a {@code ?} array). */
        String seedSql();

        /** Event ids claimed per transaction. */
        default int batch() {
            return 1;
        }

        /** @return how many of the ids were new (a contender with {@link #batch()} > 1 overrides this) */
        default int claimAll(String[] eventIds) throws Exception {
            int claimed = 0;
            for (String id : eventIds) {
                claimed += claim(id) ? 1 : 0;
            }
            return claimed;
        }
    }

    /** Creates each contender's table (its own standard DDL) and returns the contenders. */
    static List<Contender> create(DataSource pool, byte[] fingerprint) throws Exception {
        InboxClaimForBenchmarks.migrate(pool);
        try (Connection c = pool.getConnection(); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE floor_claim (consumer text NOT NULL, event_id text NOT NULL, "
                    + "PRIMARY KEY (consumer, event_id))");
        }
        new ResourceDatabasePopulator(new ClassPathResource("org/springframework/integration/jdbc/schema-postgresql.sql"))
                .execute(pool);
        JdbcMessageIdRepository camel = new JdbcMessageIdRepository(pool, CONSUMER);
        camel.start(); // creates CAMEL_MESSAGEPROCESSED with its default DDL
        JdbcMetadataStore spring = new JdbcMetadataStore(pool);
        spring.setRegion(CONSUMER);
        spring.afterPropertiesSet(); // detects PostgreSQL: putIfAbsent gets ON CONFLICT DO NOTHING
        spring.start();
        TransactionTemplate springTx = new TransactionTemplate(new DataSourceTransactionManager(pool));
        String hex = java.util.HexFormat.of().formatHex(fingerprint);
        return List.of(
                new InboxJdbc(pool, fingerprint, hex),
                new InboxSpringTx(pool, springTx, fingerprint, hex),
                new Camel(camel),
                new SpringIntegration(spring, springTx),
                new Floor(pool),
                new InboxBatch(pool, fingerprint, hex, 50),
                new InboxBatch(pool, fingerprint, hex, 100));
    }

    /** This project's claim, in a plain JDBC transaction (autocommit off, commit). */
    record InboxJdbc(DataSource pool, byte[] fingerprint, String hex) implements Contender {
        public String name() {
            return "jakarta-inbox claim";
        }

        public String transaction() {
            return "JDBC: setAutoCommit(false), claim, commit()";
        }

        public boolean claim(String eventId) throws SQLException {
            return inTransaction(pool, c -> InboxClaimForBenchmarks.claim(c, CONSUMER, eventId, fingerprint));
        }

        public String seedSql() {
            return "INSERT INTO inbox (consumer, event_id, payload_sha256, processed_at) SELECT '" + CONSUMER
                    + "', id, '\\x" + hex + "'::bytea, now() FROM unnest(?::text[]) id";
        }
    }

    /** This project's claim again, in the same Spring transaction template as the two peers. */
    record InboxSpringTx(DataSource pool, TransactionTemplate tx, byte[] fingerprint, String hex)
            implements Contender {
        public String name() {
            return "jakarta-inbox claim, Spring tx";
        }

        public String transaction() {
            return "Spring TransactionTemplate + DataSourceTransactionManager";
        }

        public boolean claim(String eventId) {
            return tx.execute(status -> {
                try {
                    return InboxClaimForBenchmarks.claim(DataSourceUtils.getConnection(pool), CONSUMER, eventId,
                            fingerprint);
                } catch (SQLException e) {
                    throw new IllegalStateException(e);
                }
            });
        }

        public String seedSql() {
            return new InboxJdbc(pool, fingerprint, hex).seedSql();
        }
    }

    /** Apache Camel's JDBC idempotent repository: {@code add} runs in its own TransactionTemplate. */
    record Camel(JdbcMessageIdRepository repository) implements Contender {
        public String name() {
            return "Camel JdbcMessageIdRepository.add";
        }

        public String transaction() {
            return "its own TransactionTemplate + DataSourceTransactionManager (PROPAGATION_REQUIRED)";
        }

        public boolean claim(String eventId) {
            return repository.add(eventId);
        }

        public String seedSql() {
            return "INSERT INTO camel_messageprocessed (processorname, messageid, createdat) SELECT '" + CONSUMER
                    + "', id, now() FROM unnest(?::text[]) id";
        }
    }

    /**
     * Spring Integration's JDBC metadata store, as its idempotent receiver uses it ({@code MetadataStoreSelector}
     * stores the time as the value). {@code putIfAbsent} is {@code @Transactional}; without a Spring context to
     * proxy it, the same transaction comes from a TransactionTemplate.
     */
    record SpringIntegration(JdbcMetadataStore store, TransactionTemplate tx) implements Contender {
        public String name() {
            return "Spring Integration JdbcMetadataStore.putIfAbsent";
        }

        public String transaction() {
            return "Spring TransactionTemplate + DataSourceTransactionManager (what its @Transactional does)";
        }

        public boolean claim(String eventId) {
            return tx.execute(status -> store.putIfAbsent(eventId, Long.toString(System.currentTimeMillis())) == null);
        }

        public String seedSql() {
            return "INSERT INTO int_metadata_store (metadata_key, metadata_value, region) SELECT id, '0', '"
                    + CONSUMER + "' FROM unnest(?::text[]) id";
        }
    }

    /**
     * The library's group claim ({@code InboxClaim.claimAll}, what the grouped Kafka delivery runs per group): one
     * statement that reads the events' keys, inserts those it did not find and returns the stored fingerprints of the
     * others, then the commit.
     */
    record InboxBatch(DataSource pool, byte[] fingerprint, String hex, int size) implements Contender {

        public String name() {
            return "jakarta-inbox group claim, " + size + " per transaction";
        }

        public String transaction() {
            return "JDBC: setAutoCommit(false), InboxClaim.claimAllOn (one statement), commit()";
        }

        public int batch() {
            return size;
        }

        public boolean claim(String eventId) throws SQLException {
            return claimAll(new String[] {eventId}) == 1;
        }

        public int claimAll(String[] eventIds) throws SQLException {
            return inTransaction(pool, c -> InboxClaimForBenchmarks.claimAll(c, CONSUMER, eventIds, fingerprint));
        }

        public String seedSql() {
            return new InboxJdbc(pool, fingerprint, hex).seedSql();
        }
    }

    /** The floor: the bare statement on a table with nothing but the key. */
    record Floor(DataSource pool) implements Contender {
        static final String SQL = "INSERT INTO floor_claim (consumer, event_id) VALUES (?, ?) ON CONFLICT DO NOTHING";

        public String name() {
            return "floor: bare INSERT ... ON CONFLICT DO NOTHING";
        }

        public String transaction() {
            return "JDBC: setAutoCommit(false), insert, commit()";
        }

        public boolean claim(String eventId) throws SQLException {
            return inTransaction(pool, c -> {
                try (PreparedStatement insert = c.prepareStatement(SQL)) {
                    insert.setString(1, CONSUMER);
                    insert.setString(2, eventId);
                    return insert.executeUpdate() == 1;
                }
            });
        }

        public String seedSql() {
            return "INSERT INTO floor_claim (consumer, event_id) SELECT '" + CONSUMER + "', id FROM unnest(?::text[]) id";
        }
    }
}
