package io.github.jakartainbox.billing.web;

import jakarta.servlet.ServletResponse;
import jakarta.servlet.ServletResponseWrapper;
import jakarta.servlet.http.HttpServletResponse;
import java.lang.reflect.Method;

/**
 * A status whose reason phrase Liberty does not know. Its HTTP channel takes the phrase from a table that lacks some
 * codes (429 among them, RFC 6585), so {@code setStatus(429)} went out as {@code HTTP/1.1 429 Undefined}; Servlet 6.0
 * has no way to set the phrase. Liberty's own response has a public {@code setReason(String)}: used when it is there,
 * otherwise the status goes out with whatever phrase the container gives (RFC 9112 section 4: clients ignore it).
 */
final class ReasonPhrase {

    private ReasonPhrase() {
    }

    /**
     * Sets the status and, where the container allows, its reason phrase.
     *
     * @param response the response, possibly wrapped
     * @param status   the status code
     * @param reason   its reason phrase, as RFC 9110 section 15 names it (e.g. "Too Many Requests")
     */
    static void set(HttpServletResponse response, int status, String reason) {
        response.setStatus(status);
        ServletResponse inner = response;
        while (inner instanceof ServletResponseWrapper wrapper) {
            inner = wrapper.getResponse();
        }
        try {
            Method setReason = inner.getClass().getMethod("setReason", String.class);
            setReason.invoke(inner, reason);
        } catch (ReflectiveOperationException | RuntimeException notLiberty) {
            // another container, or a response of a kind without it: the status alone
        }
    }
}
