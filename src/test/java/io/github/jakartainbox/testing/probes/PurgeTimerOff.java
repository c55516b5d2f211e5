package io.github.jakartainbox.testing.probes;

import java.util.Map;
import java.util.Set;
import org.eclipse.microprofile.config.spi.ConfigSource;

/**
 * A configuration source that turns the purge timer off ({@code inbox.purge.schedule=off}) above the test server's
 * {@code <variable>} (ordinal 1000), registered only in the deployments that must run every purge themselves
 * (PurgeLeaseAtStopIT): a timer run would give the lease back first and hide what the test looks at.
 */
public class PurgeTimerOff implements ConfigSource {

    private static final Map<String, String> VALUES = Map.of("inbox.purge.schedule", "off");

    @Override
    public Set<String> getPropertyNames() {
        return VALUES.keySet();
    }

    @Override
    public String getValue(String name) {
        return VALUES.get(name);
    }

    @Override
    public String getName() {
        return "purge-timer-off (tests)";
    }

    @Override
    public int getOrdinal() {
        return 1000;
    }
}
