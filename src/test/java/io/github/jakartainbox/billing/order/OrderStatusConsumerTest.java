package io.github.jakartainbox.billing.order;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The waits of the order-status consumer while the database is unavailable: 0.5 s, doubling, at most 10 s. */
class OrderStatusConsumerTest {

    @Test
    void theWaitDoublesFromHalfASecondUpToTenSeconds() {
        assertEquals(Duration.ofMillis(500), OrderStatusConsumer.waitAfter(1));
        assertEquals(Duration.ofSeconds(1), OrderStatusConsumer.waitAfter(2));
        assertEquals(Duration.ofSeconds(8), OrderStatusConsumer.waitAfter(5));
        assertEquals(Duration.ofSeconds(10), OrderStatusConsumer.waitAfter(6));
        assertEquals(Duration.ofSeconds(10), OrderStatusConsumer.waitAfter(Integer.MAX_VALUE), "no overflow");
    }
}
