package io.github.jakartainbox.testing;

import java.lang.reflect.Proxy;
import java.util.Map;
import java.util.Optional;
import org.eclipse.microprofile.config.Config;

/** A MicroProfile Config of the given properties only, for unit tests of what reads keys with getOptionalValue. */
public final class MapConfig {

    private MapConfig() {
    }

    /**
     * @param properties name to value
     * @return a configuration answering {@code getOptionalValue} (as text) and {@code getPropertyNames} from them; any
     *         other call throws
     */
    public static Config of(Map<String, String> properties) {
        return (Config) Proxy.newProxyInstance(Config.class.getClassLoader(), new Class<?>[] {Config.class},
                (proxy, method, args) -> switch (method.getName()) {
                    case "getOptionalValue" -> Optional.ofNullable(properties.get((String) args[0]));
                    case "getPropertyNames" -> properties.keySet();
                    default -> throw new UnsupportedOperationException(method.getName());
                });
    }
}
