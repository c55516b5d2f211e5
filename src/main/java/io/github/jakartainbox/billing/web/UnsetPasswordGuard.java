package io.github.jakartainbox.billing.web;

import io.github.jakartainbox.billing.BillingConfig;
import io.github.jakartainbox.billing.BillingMessage;
import io.github.jakartainbox.inbox.ConfigKey;
import jakarta.annotation.Priority;
import jakarta.ws.rs.Priorities;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerRequestFilter;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.ext.Provider;
import java.security.Principal;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import org.eclipse.microprofile.config.Config;
import org.eclipse.microprofile.config.ConfigProvider;

/**
 * Fails closed when a user of the example's basic registry has no password configured. Open Liberty leaves an
 * unset {@code ${billing.reader.password}} in {@code server.xml} as that literal text, which would then be the
 * password; so a request authenticated as such a user is refused (403), and the start logs which variable to set.
 */
@Provider
@Priority(Priorities.AUTHORIZATION)
public class UnsetPasswordGuard implements ContainerRequestFilter {

    /** the runtime may construct a provider more than once: say it once */
    private static final AtomicBoolean LOGGED = new AtomicBoolean();

    /** the user-name key (its default as server.xml has it) and the password key of each registry user */
    private static final Map<ConfigKey<String>, ConfigKey<String>> USERS = Map.of(
            BillingConfig.READER_USER, BillingConfig.READER_PASSWORD,
            BillingConfig.OPERATOR_USER, BillingConfig.OPERATOR_PASSWORD);

    /** user name -> password variable, for the users whose password is not set */
    private final Map<String, String> unset;

    public UnsetPasswordGuard() {
        Config config = ConfigProvider.getConfig();
        Map<String, String> found = new HashMap<>();
        USERS.forEach((userKey, passwordKey) -> {
            String user = userKey.get(config);
            if (passwordKey.find(config).isEmpty()) {
                found.put(user, passwordKey.name());
            }
        });
        if (!LOGGED.getAndSet(true)) {
            found.forEach((user, variable) -> BillingMessage.BILLING0204E.log(variable, user,
                    variable.toUpperCase(Locale.ROOT).replace('.', '_')));
        }
        unset = Map.copyOf(found);
    }

    @Override
    public void filter(ContainerRequestContext request) {
        Principal caller = request.getSecurityContext().getUserPrincipal();
        String variable = caller == null ? null : unset.get(caller.getName());
        if (variable != null) {
            request.abortWith(Response.status(Response.Status.FORBIDDEN).type(MediaType.APPLICATION_JSON)
                    .entity(Map.of("error", "user " + caller.getName() + " has no password configured (variable "
                            + variable + "); set it and restart the server")).build());
        }
    }
}
