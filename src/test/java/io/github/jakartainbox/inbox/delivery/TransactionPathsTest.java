package io.github.jakartainbox.inbox.delivery;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import org.junit.jupiter.api.Test;

/** The transaction a delivery arrives in chooses its path: a connector's, else the caller's, else the inbox's own. */
class TransactionPathsTest {

    /** A path that answers with its name. */
    private static final class Named extends OwnTransactionPath {
        final String name;

        Named(String name) {
            this.name = name;
        }

        @Override
        public Object deliver(DeliveryCall call) {
            return name;
        }
    }

    private static final class Connector implements DeliveryPath.Enclosing {
        boolean encloses;

        @Override
        public boolean encloses() {
            return encloses;
        }

        @Override
        public Object deliver(DeliveryCall call) {
            return "group";
        }
    }

    private final DeliveryFakes.Transactions transactions = new DeliveryFakes.Transactions(new DeliveryFakes.Inbox());
    private final Connector connector = new Connector();
    private final TransactionPaths paths = new TransactionPaths();

    TransactionPathsTest() {
        paths.transactions = transactions;
        paths.connectors = List.of(connector);
        paths.own = new Named("own");
        paths.caller = new CallerTransactionPath() {
            @Override
            public Object deliver(DeliveryCall call) {
                return "caller";
            }
        };
    }

    @Test
    void eachDeliveryGoesWhereItsTransactionSays() throws Exception {
        assertEquals("own", paths.deliver(null), "no transaction");
        transactions.active = true;
        assertEquals("caller", paths.deliver(null), "the caller's");
        connector.encloses = true;
        assertEquals("group", paths.deliver(null), "a connector's group");
    }
}
