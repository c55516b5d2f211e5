package io.github.jakartainbox.inbox.kafka;

import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;

import java.util.List;
import java.util.logging.Filter;
import java.util.logging.Logger;
import org.junit.jupiter.api.Test;

/** The filter goes on the server's loggers while the application runs and comes off with it. */
class KafkaClientLogLimitTest {

    @Test
    void theFilterComesOffTheLoggersAtStopAndAForeignOneStays() {
        Logger foreign = Logger.getLogger(KafkaClientLogLimit.LOGGERS.get(0));
        Filter theirs = record -> true;
        foreign.setFilter(theirs);
        try {
            KafkaClientLogLimit.install();
            // held here: java.util.logging keeps loggers weakly, and a logger made anew would have no filter anyway
            List<Logger> held = KafkaClientLogLimit.LOGGERS.subList(1, KafkaClientLogLimit.LOGGERS.size()).stream()
                    .map(Logger::getLogger).toList();
            for (Logger logger : held) {
                assertInstanceOf(KafkaClientLogLimit.class, logger.getFilter(), logger.getName());
            }
            assertSame(theirs, foreign.getFilter(), "a logger with a filter of its own keeps it");
            KafkaClientLogLimit.uninstall();
            for (Logger logger : held) {
                assertNull(logger.getFilter(), logger.getName() + ": nothing of the application left on it");
            }
            assertSame(theirs, foreign.getFilter(), "and the other filter is not taken off");
        } finally {
            foreign.setFilter(null);
            KafkaClientLogLimit.uninstall();
        }
    }
}
