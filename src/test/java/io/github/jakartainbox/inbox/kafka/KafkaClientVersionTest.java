package io.github.jakartainbox.inbox.kafka;

import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** Which kafka-clients versions INBOX0014W warns about. */
class KafkaClientVersionTest {

    @Test
    void versionsBeforeTheFixAreUnsafe() {
        assertAll(() -> assertFalse(KafkaClientVersion.safe("4.1.1")),
                () -> assertFalse(KafkaClientVersion.safe("3.9.1")),
                () -> assertFalse(KafkaClientVersion.safe("4.3.9")),
                () -> assertFalse(KafkaClientVersion.safe("4.3.0-SNAPSHOT")));
    }

    @Test
    void theFixAndLaterAreSafe() {
        assertAll(() -> assertTrue(KafkaClientVersion.safe("4.4.0")),
                () -> assertTrue(KafkaClientVersion.safe("4.4.1")),
                () -> assertTrue(KafkaClientVersion.safe("4.10.0")),
                () -> assertTrue(KafkaClientVersion.safe("5.0.0-rc1")),
                () -> assertTrue(KafkaClientVersion.safe("unknown"), "nothing to go by"));
    }

    @Test
    void theShippedClientIsFound() {
        assertEquals("4.4.0", KafkaClientVersion.present());
    }
}
