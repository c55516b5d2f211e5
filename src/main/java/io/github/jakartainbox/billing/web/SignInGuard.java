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
import java.util.Base64;
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
 */
@ApplicationScoped
public class SignInGuard implements HttpAuthenticationMechanism {

    /** Most user names and addresses counted at once (a few hundred KB). */
    static final int MAX_TRACKED = 10_000;
    private static final String REALM = "billing";

    private SignInThrottle throttle;

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
        if (!context.isProtected() && !context.isAuthenticationRequest()) {
            return context.doNothing(); // the page and its files need no login
        }
        String header = request.getHeader("Authorization");
        if (header == null || !header.regionMatches(true, 0, "Basic ", 0, 6)) {
            return challenge(response);
        }
        String credentials;
        try {
            credentials = new String(Base64.getDecoder().decode(header.substring(6).trim()), StandardCharsets.UTF_8);
        } catch (IllegalArgumentException e) {
            return challenge(response);
        }
        int colon = credentials.indexOf(':');
        if (colon <= 0) {
            return challenge(response);
        }
        String user = credentials.substring(0, colon);
        SignInThrottle.Key userKey = SignInThrottle.user(user);
        SignInThrottle.Key addressKey = SignInThrottle.address(String.valueOf(request.getRemoteAddr()));
        Instant now = Instant.now();
        Instant until = throttle.lockedUntil(userKey, addressKey, now);
        if (until != null) {
            return refuse(response, Math.max(1, Duration.between(now, until).toSeconds()
                    + (Duration.between(now, until).toNanosPart() > 0 ? 1 : 0)));
        }
        PasswordValidationCallback check = new PasswordValidationCallback(context.getClientSubject(), user,
                credentials.substring(colon + 1).toCharArray());
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
        return challenge(response);
    }

    private static AuthenticationStatus challenge(HttpServletResponse response) {
        response.setHeader("WWW-Authenticate", "Basic realm=\"" + REALM + "\", charset=\"UTF-8\"");
        response.setStatus(HttpServletResponse.SC_UNAUTHORIZED);
        return AuthenticationStatus.SEND_CONTINUE;
    }

    private static AuthenticationStatus refuse(HttpServletResponse response, long seconds) throws AuthenticationException {
        ReasonPhrase.set(response, 429, "Too Many Requests"); // RFC 6585 section 4; Liberty's phrase was "Undefined"
        response.setHeader("Retry-After", String.valueOf(seconds));
        response.setHeader("Cache-Control", "no-store");
        response.setContentType("application/json");
        response.setCharacterEncoding("UTF-8");
        byte[] body = Json.createObjectBuilder().add("error", BillingMessage.BILLING0263E.format(String.valueOf(seconds)))
                .build().toString().getBytes(StandardCharsets.UTF_8);
        response.setContentLength(body.length);
        try {
            response.getOutputStream().write(body);
        } catch (IOException e) {
            throw new AuthenticationException(e);
        }
        return AuthenticationStatus.SEND_CONTINUE;
    }
}
