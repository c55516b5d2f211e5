package io.github.jakartainbox.billing.web;

import io.github.jakartainbox.billing.BillingMessage;
import io.github.jakartainbox.inbox.text.Printable;
import jakarta.json.Json;
import jakarta.servlet.DispatcherType;
import jakarta.servlet.RequestDispatcher;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.nio.charset.StandardCharsets;

/**
 * The servlet container's own error answers (web.xml {@code <error-page>} for 400, 404 and 405) as the API's JSON error
 * with a message id ({@code BILLING0253E}), instead of Liberty's HTML page. The container answers these itself, before
 * any resource: a path it refuses as suspicious (an encoded dot segment, {@code /api/dead-letters/%2e%2e/history};
 * Servlet 6.0 section 3.5.2), or a path no servlet serves. The runtime's own 404 and 405 inside the API already come
 * as JSON ({@link FailureAnswer}). A malformed escape in the path Liberty refuses before the application (400
 * {@code CWWWC0005I}): no error page of it is used.
 */
public class ErrorAnswer extends HttpServlet {

    @Override
    protected void service(HttpServletRequest request, HttpServletResponse response) throws IOException {
        boolean error = request.getDispatcherType() == DispatcherType.ERROR;
        Object code = request.getAttribute(RequestDispatcher.ERROR_STATUS_CODE);
        int status = error && code instanceof Integer number ? number : HttpServletResponse.SC_NOT_FOUND;
        Object uri = request.getAttribute(RequestDispatcher.ERROR_REQUEST_URI);
        String path = error && uri != null ? uri.toString() : request.getRequestURI();
        Object message = request.getAttribute(RequestDispatcher.ERROR_MESSAGE);
        String reason = switch (status) {
            case HttpServletResponse.SC_BAD_REQUEST -> "Bad Request";
            case HttpServletResponse.SC_NOT_FOUND -> "Not Found";
            case HttpServletResponse.SC_METHOD_NOT_ALLOWED -> "Method Not Allowed";
            default -> "HTTP " + status;
        };
        if (error && message != null && !message.toString().isBlank()) {
            reason += ": " + Printable.of(message.toString(), 160);
        }
        byte[] body = Json.createObjectBuilder().add("error", BillingMessage.BILLING0253E.format(request.getMethod(),
                Printable.of(path, 100), String.valueOf(status), reason)).build().toString()
                .getBytes(StandardCharsets.UTF_8);
        response.resetBuffer(); // the body only: RequestGuard's headers stay
        response.setStatus(status);
        response.setHeader("Cache-Control", "no-store");
        response.setContentType("application/json");
        response.setCharacterEncoding("UTF-8");
        response.setContentLength(body.length);
        response.getOutputStream().write(body);
    }
}
