package io.github.jakartainbox.billing.web;

import jakarta.security.enterprise.authentication.mechanism.http.AuthenticationParameters;
import jakarta.servlet.ServletRequestEvent;
import jakarta.servlet.ServletRequestListener;
import jakarta.servlet.http.HttpServletRequest;
import java.util.Collections;

/**
 * Keeps Liberty from failing on a malformed {@code Authorization} header, so that {@link SignInGuard} answers it (401,
 * {@code BILLING0302E}). After an application's Jakarta Security mechanism has answered anything but "continue", which
 * a Jakarta Security mechanism always does, Liberty's {@code WebProviderAuthenticatorProxy.authenticateForOtherMechanisms}
 * (26.0.0.3) reads a header starting with {@code "Basic "} again, for its audit record, when the request's
 * authentication type is BASIC (its default when web.xml has no {@code <login-config>}): it base64-decodes what follows
 * and takes the text before the first colon, unchecked. Bad base64 threw a NullPointerException, a value without a
 * colon a StringIndexOutOfBoundsException: a 500 with an FFDC incident, whatever the mechanism had answered, on the API
 * and the page, and no filter runs before it. No server.xml setting reaches that code; it is skipped for a request that
 * is a new authentication, the state {@code SecurityContext.authenticate} puts the request in: the request attribute
 * {@value #AUTH_PARAMS} holding {@link AuthenticationParameters} with {@code newAuthentication} set.
 * <p>
 * A request listener runs before Liberty's security in an application whose security needs CDI (a Jakarta Security
 * mechanism): this one puts a request whose {@code Authorization} header is malformed ({@link BasicAuthorization}) in
 * that state, and nothing else. The mechanism then sees an authentication request and refuses the header; a
 * well-formed header is left as it is.
 */
public class AuthorizationCheck implements ServletRequestListener {

    /** Liberty's request attribute for {@code SecurityContext.authenticate}'s parameters (JavaEESecConstants). */
    static final String AUTH_PARAMS = "com.ibm.ws.security.javaeesec.auth.params";

    @Override
    public void requestInitialized(ServletRequestEvent event) {
        if (event.getServletRequest() instanceof HttpServletRequest request && request.getAttribute(AUTH_PARAMS) == null) {
            BasicAuthorization authorization = BasicAuthorization.of(Collections.list(request.getHeaders("Authorization")));
            if (authorization != null && !authorization.wellFormed()) {
                request.setAttribute(AUTH_PARAMS, AuthenticationParameters.withParams().newAuthentication(true));
            }
        }
    }
}
