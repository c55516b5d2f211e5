package io.github.jakartainbox.billing;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.github.jakartainbox.testing.MapConfig;
import java.util.List;
import java.util.Map;
import org.eclipse.microprofile.config.Config;
import org.junit.jupiter.api.Test;

/** The example's catalogue fails the start on a wrong value, naming the key, and leaves the sign-in keys lenient. */
class BillingConfigTest {

    private static Config config(Map<String, String> properties) {
        return MapConfig.of(properties);
    }

    @Test
    void theDefaultsAreValuesAndWrongValuesAreNamed() {
        assertEquals(List.of(), BillingConfig.problems(config(Map.of())));
        assertEquals(List.of(
                "BILLING0206E: Configuration key billing.mail.read-timeout has the value '5m'; it must be an ISO-8601 "
                        + "duration such as PT10M.",
                "BILLING0266E: Configuration key billing.orders-confirmed.partitions has the value '0'; it must be an "
                        + "integer from 1 to 1000."),
                BillingConfig.problems(config(Map.of("billing.mail.read-timeout", "5m",
                        "billing.orders-confirmed.partitions", "0", "billing.api.sign-in.max-failures", "0"))));
    }
}
