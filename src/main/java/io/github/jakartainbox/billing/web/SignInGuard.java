package io.github.jakartainbox.billing.web;

import io.github.jakartainbox.billing.BillingMessage;
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
 * come from there too. {@value #MAX_FAILURES} failures of one user name, or from one client address, within
 * {@value #LOCKOUT} lock it for that long ({@link SignInThrottle}): its sign-ins answer 429 with {@code Retry-After}
 * ({@code BILLING0263E}) without the password being checked, and the lock is logged once ({@code BILLING0262W}, an id
 * to alert on). The client address is the connection's: {@code X-Forwarded-For} is not trusted (a client can send it).
 */
@ApplicationScoped
public class SignInGuard implements HttpAuthenticationMechanism {

    /** MicroProfile Config key (also a server.xml variable): failed sign-ins that lock a user or address. */
    public static final String MAX_FAILURES = "billing.api.sign-in.max-failures";
    /** MicroProfile Config key (also a server.xml variable): the window failures are counted in, and the lock. */
    public static final String LOCKOUT = "billing.api.sign-in.lockout";

    static final int DEFAULT_MAX_FAILURES = 5;
    static final Duration DEFAULT_LOCKOUT = Duration.ofMinutes(1);
    /** Most user names and addresses counted at once (a few hundred KB). */
    static final int MAX_TRACKED = 10_000;
    private static final String REALM = "billing";

    private SignInThrottle throttle;

    @PostConstruct
    void init() {
        Config config = ConfigProvider.getConfig();
        int maxFailures = DEFAULT_MAX_FAILURES;
        String max = config.getOptionalValue(MAX_FAILURES, String.class).orElse("").trim();
        if (!max.isEmpty()) {
            try {
                maxFailures = Integer.parseInt(max);
            } catch (NumberFormatException e) {
                maxFailures = 0;
            }
            if (maxFailures < 1 || maxFailures > 1000) {
                BillingMessage.BILLING0265E.log(MAX_FAILURES, Printable.of(max, 40), DEFAULT_MAX_FAILURES);
                maxFailures = DEFAULT_MAX_FAILURES;
            }
        }
        Duration lockout = DEFAULT_LOCKOUT;
        String text = config.getOptionalValue(LOCKOUT, String.class).orElse("").trim();
        if (!text.isEmpty()) {
            try {
                lockout = Duration.parse(text);
            } catch (RuntimeException e) {
                lockout = Duration.ZERO;
            }
            if (lockout.isNegative() || lockout.isZero() || lockout.compareTo(Duration.ofDays(1)) > 0) {
                BillingMessage.BILLING0206E.log(LOCKOUT, Printable.of(text, 40));
                lockout = DEFAULT_LOCKOUT;
            }
        }
        throttle = new SignInThrottle(maxFailures, lockout, MAX_TRACKED);
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
        response.setStatus(429); // RFC 6585 section 4
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
