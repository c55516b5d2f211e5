package io.github.jakartainbox.inbox;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Consumer names are stored and used as bind values, and still kept to a plain alphabet. */
class InboxConfigTest {

    @ParameterizedTest
    @ValueSource(strings = {"billing", "analytics", "billing.v2", "order-events_1", "A"})
    void plainConsumerNamesAreAccepted(String name) {
        assertTrue(InboxConfig.isValidConsumerName(name));
    }

    @ParameterizedTest
    @ValueSource(strings = {"", " billing", "billing ", "bill'ing", "billing;DROP TABLE inbox", "bill\"ing", "-billing",
            ".billing", "bill\u0000ing", "b\u00e9billing", "bill/ing"})
    void namesWithOtherCharactersAreRejected(String name) {
        assertFalse(InboxConfig.isValidConsumerName(name));
    }

    @org.junit.jupiter.api.Test
    void namesLongerThanTheColumnAllowsAreRejected() {
        assertTrue(InboxConfig.isValidConsumerName("c".repeat(100)));
        assertFalse(InboxConfig.isValidConsumerName("c".repeat(101)));
        assertFalse(InboxConfig.isValidConsumerName(null));
    }
}
