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
 * The servlet container's own error answers (web.xml {@code <error-page>} for every 4xx and 5xx it can give, and for
 * any exception that reaches it) as the API's JSON error with a message id, instead of Liberty's HTML page. The
 * container answers these itself, before any resource: a path it refuses as suspicious (an encoded dot segment,
 * {@code /api/dead-letters/%2e%2e/history}; Servlet 6.0 section 3.5.2) or cannot decode (a malformed escape), a path no
 * servlet serves ({@code /WEB-INF/web.xml}), an exception of a filter. The answer is the status, its standard reason
 * phrase and the project's own text only: the container's message ({@code ERROR_MESSAGE}) quoted exception text
 * ({@code java.io.IOException: CWWWC0005I ...}, {@code jakarta.servlet.ServletException: SRVE0190E ...}) and is never
 * shown. A 400 says how to send a URL ({@code BILLING0296E}); a 500 gives an incident number under which the exception
 * is logged ({@code BILLING0214E}); any other status {@code BILLING0253E}.
 */
public class ErrorAnswer extends HttpServlet {

    @Override
    protected void service(HttpServletRequest request, HttpServletResponse response) throws IOException {
        boolean error = request.getDispatcherType() == DispatcherType.ERROR;
        Object code = request.getAttribute(RequestDispatcher.ERROR_STATUS_CODE);
        int status = error && code instanceof Integer number && number >= 400 && number <= 599 ? number
                : error ? HttpServletResponse.SC_INTERNAL_SERVER_ERROR : HttpServletResponse.SC_NOT_FOUND;
        Object uri = request.getAttribute(RequestDispatcher.ERROR_REQUEST_URI);
        String path = Printable.of(error && uri != null ? uri.toString() : request.getRequestURI(), 100);
        String method = Printable.of(request.getMethod(), 20);
        String message;
        if (status == HttpServletResponse.SC_BAD_REQUEST) {
            message = BillingMessage.BILLING0296E.format(method, path);
        } else if (status == HttpServletResponse.SC_INTERNAL_SERVER_ERROR) {
            long incident = FailureAnswer.nextIncident();
            Object failure = request.getAttribute(RequestDispatcher.ERROR_EXCEPTION);
            if (failure instanceof Throwable thrown) {
                BillingMessage.BILLING0214E.log(thrown, path, incident);
            } else {
                BillingMessage.BILLING0214E.log(path, incident);
            }
            message = BillingMessage.BILLING0214E.format(path, incident);
        } else {
            message = BillingMessage.BILLING0253E.format(method, path, String.valueOf(status), reason(status));
        }
        byte[] body = Json.createObjectBuilder().add("error", message).build().toString()
                .getBytes(StandardCharsets.UTF_8);
        response.resetBuffer(); // the body only: RequestGuard's headers stay
        ReasonPhrase.set(response, status, reason(status));
        response.setHeader("Cache-Control", "no-store");
        response.setContentType("application/json");
        response.setCharacterEncoding("UTF-8");
        response.setContentLength(body.length);
        response.getOutputStream().write(body);
    }

    /** @return the reason phrase RFC 9110 section 15 (RFC 6585 for 429, 431) gives the status */
    static String reason(int status) {
        return switch (status) {
            case 400 -> "Bad Request";
            case 401 -> "Unauthorized";
            case 403 -> "Forbidden";
            case 404 -> "Not Found";
            case 405 -> "Method Not Allowed";
            case 406 -> "Not Acceptable";
            case 408 -> "Request Timeout";
            case 409 -> "Conflict";
            case 410 -> "Gone";
            case 411 -> "Length Required";
            case 412 -> "Precondition Failed";
            case 413 -> "Content Too Large";
            case 414 -> "URI Too Long";
            case 415 -> "Unsupported Media Type";
            case 416 -> "Range Not Satisfiable";
            case 417 -> "Expectation Failed";
            case 429 -> "Too Many Requests";
            case 431 -> "Request Header Fields Too Large";
            case 500 -> "Internal Server Error";
            case 501 -> "Not Implemented";
            case 502 -> "Bad Gateway";
            case 503 -> "Service Unavailable";
            case 504 -> "Gateway Timeout";
            case 505 -> "HTTP Version Not Supported";
            default -> "HTTP " + status;
        };
    }
}
