package io.github.jakartainbox.billing.web;

import io.github.jakartainbox.billing.BillingConfig;
import io.github.jakartainbox.billing.BillingMessage;
import io.github.jakartainbox.inbox.ConfigKey;
import io.github.jakartainbox.inbox.text.Printable;
import jakarta.annotation.PostConstruct;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.json.Json;
import jakarta.security.auth.message.callback.PasswordValidationCallback;
import jakarta.security.enterprise.AuthenticationException;
import jakarta.security.enterprise.AuthenticationStatus;
import jakarta.security.enterprise.authentication.mechanism.http.HttpAuthenticationMechanism;
import jakarta.security.enterprise.authentication.mechanism.http.HttpMessageContext;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Collections;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import javax.security.auth.callback.Callback;
import javax.security.auth.callback.UnsupportedCallbackException;
import org.eclipse.microprofile.config.Config;
import org.eclipse.microprofile.config.ConfigProvider;

/**
 * The REST API's sign-in: HTTP BASIC (RFC 7617) checked against the server's user registry, with failed sign-ins
 * slowed down. Liberty's own BASIC login (web.xml {@code <login-config>}) answers a wrong password with 401 before
 * any filter of the application runs, so nothing of the application saw failed sign-ins: 100 wrong passwords in 2 s
 * were 100 quick 401s. This Jakarta Security mechanism sees each one. It checks the password through Jakarta
 * Authentication's {@link PasswordValidationCallback}, which Liberty answers from the server's registry
 * ({@code <basicRegistry>}, {@code <ldapRegistry>}...), as its own BASIC mechanism does; the groups, and so the roles,
 * come from there too. {@code billing.api.sign-in.max-failures} failures of one user name, or from one client
 * address, within {@code billing.api.sign-in.lockout} lock it for that long ({@link SignInThrottle}): its sign-ins answer 429 with {@code Retry-After}
 * ({@code BILLING0263E}) without the password being checked, and the lock is logged once ({@code BILLING0262W}, an id
 * to alert on). The client address is the connection's: {@code X-Forwarded-For} is not trusted (a client can send it).
 * A malformed {@code Authorization} header ({@link BasicAuthorization}), on any path, is refused with 401
 * ({@code BILLING0302E}) and counted against its address; {@link AuthorizationCheck} says why it must never be let
 * through.
 */
@ApplicationScoped
public class SignInGuard implements HttpAuthenticationMechanism {

    /** Most user names and addresses counted at once (a few hundred KB). */
    static final int MAX_TRACKED = 10_000;
    private static final String REALM = "billing";

    private SignInThrottle throttle;
    /** When each refusal's message was last logged ({@link RequestGuard#due}). */
    private final Map<BillingMessage, Long> said = new ConcurrentHashMap<>();

    @PostConstruct
    void init() {
        Config config = ConfigProvider.getConfig();
        int maxFailures = orDefault(config, BillingConfig.SIGN_IN_MAX_FAILURES, BillingMessage.BILLING0265E);
        Duration lockout = orDefault(config, BillingConfig.SIGN_IN_LOCKOUT, BillingMessage.BILLING0206E);
        throttle = new SignInThrottle(maxFailures, lockout, MAX_TRACKED);
    }

    /** @return the key's value; when it is wrong, its default, the value logged with {@code message} */
    private static <T> T orDefault(Config config, ConfigKey<T> key, BillingMessage message) {
        try {
            return key.get(config);
        } catch (IllegalStateException e) {
            String text = config.getOptionalValue(key.name(), String.class).orElse("").trim();
            String defaultText = key.defaultText().orElseThrow();
            message.log(key.name(), Printable.of(text, 40), defaultText);
            return key.parse(defaultText);
        }
    }

    @Override
    public AuthenticationStatus validateRequest(HttpServletRequest request, HttpServletResponse response,
                                                HttpMessageContext context) throws AuthenticationException {
        BasicAuthorization authorization = BasicAuthorization.of(Collections.list(request.getHeaders("Authorization")));
        SignInThrottle.Key addressKey = SignInThrottle.address(String.valueOf(request.getRemoteAddr()));
        if (authorization != null && !authorization.wellFormed()) {
            // on the page too: Liberty parses such a header after this mechanism answers, whatever the answer
            // (AuthorizationCheck), so it is refused, never let through
            return malformed(request, response, addressKey, authorization.problem());
        }
        if (!context.isProtected() && !context.isAuthenticationRequest()) {
            return context.doNothing(); // the page and its files need no login
        }
        if (authorization == null) {
            return challenge(request, response);
        }
        String user = authorization.user();
        SignInThrottle.Key userKey = SignInThrottle.user(user);
        Instant now = Instant.now();
        Instant until = throttle.lockedUntil(userKey, addressKey, now);
        if (until != null) {
            return refuse(response, Math.max(1, Duration.between(now, until).toSeconds()
                    + (Duration.between(now, until).toNanosPart() > 0 ? 1 : 0)));
        }
        PasswordValidationCallback check = new PasswordValidationCallback(context.getClientSubject(), user,
                authorization.password().toCharArray());
        try {
            context.getHandler().handle(new Callback[] {check});
        } catch (IOException | UnsupportedCallbackException e) {
            throw new AuthenticationException(e);
        }
        if (check.getResult()) {
            throttle.succeeded(userKey);
            return AuthenticationStatus.SUCCESS;
        }
        for (SignInThrottle.Key locked : throttle.failed(userKey, addressKey, now)) {
            BillingMessage.BILLING0262W.log(locked.kind(), Printable.of(locked.value(), 100),
                    now.plus(throttle.lockout()), throttle.maxFailures(), throttle.lockout(),
                    Printable.of(user, 60), addressKey.value());
        }
        return challenge(request, response);
    }

    /**
     * Refuses a malformed {@code Authorization} header (401, {@code BILLING0302E}) and counts it as a failed sign-in of
     * its address, which may lock the address as wrong passwords do; a locked address is answered 429 as ever. The
     * refusal is logged at most once a minute: anyone can send such headers.
     */
    private AuthenticationStatus malformed(HttpServletRequest request, HttpServletResponse response,
                                           SignInThrottle.Key addressKey, String problem) throws AuthenticationException {
        Instant now = Instant.now();
        Instant until = throttle.lockedUntil(addressKey, now);
        if (until != null) {
            return refuse(response, Math.max(1, Duration.between(now, until).toSeconds()
                    + (Duration.between(now, until).toNanosPart() > 0 ? 1 : 0)));
        }
        for (SignInThrottle.Key locked : throttle.failed(addressKey, now)) {
            BillingMessage.BILLING0262W.log(locked.kind(), Printable.of(locked.value(), 100),
                    now.plus(throttle.lockout()), throttle.maxFailures(), throttle.lockout(),
                    "(none: malformed Authorization header)", addressKey.value());
        }
        String method = Printable.of(request.getMethod(), 20);
        String path = Printable.of(request.getRequestURI(), 100);
        if (RequestGuard.due(said, BillingMessage.BILLING0302E, System.nanoTime())) {
            BillingMessage.BILLING0302E.log(method, path, addressKey.value(), problem);
        }
        return unauthorized(response, BillingMessage.BILLING0302E.format(method, path, addressKey.value(), problem));
    }

    /** No login, or a wrong one: 401 with the challenge and the container's text for it ({@code BILLING0253E}). */
    private static AuthenticationStatus challenge(HttpServletRequest request, HttpServletResponse response)
            throws AuthenticationException {
        return unauthorized(response, BillingMessage.BILLING0253E.format(Printable.of(request.getMethod(), 20),
                Printable.of(request.getRequestURI(), 100), "401", "Unauthorized"));
    }

    /**
     * 401 with the challenge and {@code message} as the JSON error. The mechanism writes the body itself: web.xml has
     * no error page for 401, whose dispatch ran Liberty's security, and its parse of the header, a second time.
     */
    private static AuthenticationStatus unauthorized(HttpServletResponse response, String message)
            throws AuthenticationException {
        response.setHeader("WWW-Authenticate", "Basic realm=\"" + REALM + "\", charset=\"UTF-8\"");
        response.setStatus(HttpServletResponse.SC_UNAUTHORIZED);
        write(response, message);
        return AuthenticationStatus.SEND_CONTINUE;
    }

    private static AuthenticationStatus refuse(HttpServletResponse response, long seconds) throws AuthenticationException {
        ReasonPhrase.set(response, 429, "Too Many Requests"); // RFC 6585 section 4; Liberty's phrase was "Undefined"
        response.setHeader("Retry-After", String.valueOf(seconds));
        write(response, BillingMessage.BILLING0263E.format(String.valueOf(seconds)));
        return AuthenticationStatus.SEND_CONTINUE;
    }

    /** Writes {@code message} as the JSON error body, not to be stored. */
    private static void write(HttpServletResponse response, String message) throws AuthenticationException {
        response.setHeader("Cache-Control", "no-store");
        response.setContentType("application/json");
        response.setCharacterEncoding("UTF-8");
        byte[] body = Json.createObjectBuilder().add("error", message).build().toString()
                .getBytes(StandardCharsets.UTF_8);
        response.setContentLength(body.length);
        try {
            response.getOutputStream().write(body);
        } catch (IOException e) {
            throw new AuthenticationException(e);
        }
    }
}
