package io.github.jakartainbox.billing;

import io.github.jakartainbox.inbox.text.Printable;
import jakarta.json.Json;
import jakarta.servlet.DispatcherType;
import jakarta.servlet.Filter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.FilterConfig;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashSet;
import java.util.Locale;
import java.util.Set;
import org.eclipse.microprofile.config.ConfigProvider;

/**
 * Every request to the billing application (the operator page and {@code /api/*}) passes here first (web.xml):
 * <ul>
 *   <li><b>Cross-site writes are refused</b> (403, {@code BILLING0230E}): a request with any method but GET, HEAD and
 *       OPTIONS whose {@code Origin} header is present and is neither this service's origin (the request's scheme
 *       and its {@code Host} header, default port filled in) nor in {@value #ALLOWED_ORIGINS}, or whose
 *       {@code Sec-Fetch-Site} is {@code cross-site} or {@code same-site}. A browser holding an operator's BASIC
 *       credentials sent them with a plain HTML form of another site ({@code enctype="text/plain"}) and an invoice was
 *       made; browsers send {@code Origin} with every such request, and the Fetch Metadata headers with every request.
 *       A client that sends neither (curl, a script, another service) is not refused.</li>
 *   <li><b>Cross-site reads of the API are refused</b> (403, {@code BILLING0231E}) unless they are navigations
 *       (a link opened): {@code Sec-Fetch-Site} {@code cross-site} or {@code same-site} with another
 *       {@code Sec-Fetch-Mode} (a {@code <script>}, {@code <img>} or {@code fetch} of another page).</li>
 *   <li><b>Compressed bodies are refused</b> (415, {@code BILLING0233E}, with {@code Accept-Encoding: identity}):
 *       Liberty's HTTP channel inflates a {@code Content-Encoding: gzip} body while it is read; garbage made it throw
 *       {@code IllegalHttpBodyException} (a 500), and a 19 KB bomb inflated to 20 MB. No client of this API needs
 *       one.</li>
 *   <li><b>Hardening headers</b> on every answer: {@value #CSP} as {@code Content-Security-Policy} (the page has no
 *       inline script or style), {@code X-Content-Type-Options: nosniff}, {@code Referrer-Policy: no-referrer},
 *       {@code X-Frame-Options: DENY}; and {@code Cache-Control: no-store} on the API's answers and error pages.</li>
 * </ul>
 * {@code X-Forwarded-*} and {@code Forwarded} headers are not trusted (a client can send them): behind a reverse proxy
 * that changes the host or scheme, name the public origin in {@value #ALLOWED_ORIGINS}.
 * <p>
 * The rule is OWASP's Cross-Site Request Forgery Prevention Cheat Sheet, "Verifying Origin With Standard Headers" and
 * "Fetch Metadata headers" (https://cheatsheetseries.owasp.org/cheatsheets/Cross-Site_Request_Forgery_Prevention_Cheat_Sheet.html),
 * and the resource isolation policy of https://web.dev/articles/fetch-metadata; Origin: RFC 6454 section 7;
 * Sec-Fetch-*: W3C Fetch Metadata Request Headers.
 */
public class RequestGuard implements Filter {

    /** MicroProfile Config key (also a server.xml variable): origins besides the service's own, comma-separated. */
    public static final String ALLOWED_ORIGINS = "billing.api.allowed-origins";

    static final String CSP = "default-src 'self'; frame-ancestors 'none'; form-action 'self'; base-uri 'none'";

    private static final Set<String> SAFE_METHODS = Set.of("GET", "HEAD", "OPTIONS");

    private Set<String> allowed = Set.of();

    @Override
    public void init(FilterConfig config) {
        String list = ConfigProvider.getConfig().getOptionalValue(ALLOWED_ORIGINS, String.class).orElse("");
        Set<String> origins = new LinkedHashSet<>();
        for (String entry : list.split(",")) {
            if (entry.isBlank()) {
                continue;
            }
            String origin = origin(entry.trim());
            if (origin == null) {
                BillingMessage.BILLING0239E.log(Printable.of(entry.trim(), 100));
            } else {
                origins.add(origin);
            }
        }
        allowed = Set.copyOf(origins);
    }

    @Override
    public void doFilter(ServletRequest req, ServletResponse res, FilterChain chain)
            throws IOException, ServletException {
        HttpServletRequest request = (HttpServletRequest) req;
        HttpServletResponse response = (HttpServletResponse) res;
        boolean error = request.getDispatcherType() == DispatcherType.ERROR;
        response.setHeader("Content-Security-Policy", CSP);
        response.setHeader("X-Content-Type-Options", "nosniff");
        response.setHeader("Referrer-Policy", "no-referrer");
        response.setHeader("X-Frame-Options", "DENY");
        String path = request.getRequestURI();
        boolean api = path.startsWith(request.getContextPath() + "/api/");
        if (api || error) {
            response.setHeader("Cache-Control", "no-store");
        }
        if (error || request.getDispatcherType() != DispatcherType.REQUEST) {
            chain.doFilter(req, res); // the request itself passed already; an error page only gets the headers
            return;
        }
        String method = request.getMethod().toUpperCase(Locale.ROOT);
        String originHeader = request.getHeader("Origin");
        String site = request.getHeader("Sec-Fetch-Site");
        String origin = originHeader == null ? null : origin(originHeader.trim());
        boolean allowListed = origin != null && allowed.contains(origin);
        boolean otherSite = site != null && (site.equalsIgnoreCase("cross-site") || site.equalsIgnoreCase("same-site"));
        String own = ownOrigin(request);
        if (!SAFE_METHODS.contains(method) && !allowListed
                && ((originHeader != null && !own.equals(origin)) || otherSite)) {
            String message = BillingMessage.BILLING0230E.format(method, Printable.of(path, 100),
                    shown(originHeader), shown(site), own);
            BillingMessage.BILLING0230E.log(method, Printable.of(path, 100), shown(originHeader), shown(site), own);
            refuse(response, HttpServletResponse.SC_FORBIDDEN, message);
            return;
        }
        String mode = request.getHeader("Sec-Fetch-Mode");
        if (api && SAFE_METHODS.contains(method) && otherSite && !allowListed && !"navigate".equalsIgnoreCase(mode)) {
            refuse(response, HttpServletResponse.SC_FORBIDDEN, BillingMessage.BILLING0231E.format(method,
                    Printable.of(path, 100), shown(site), shown(mode), shown(originHeader)));
            return;
        }
        String query = request.getQueryString();
        int bad = malformedEscape(path);
        String where = "path";
        if (bad < 0 && query != null) {
            bad = malformedEscape(query);
            where = "query";
        }
        if (bad >= 0) {
            // the JAX-RS runtime would fail to parse the URI wherever it reads it, and answer 500
            String text = where.equals("path") ? path : query;
            refuse(response, HttpServletResponse.SC_BAD_REQUEST, BillingMessage.BILLING0251E.format(method,
                    where, String.valueOf(bad), Printable.of(text.substring(bad, Math.min(text.length(), bad + 3)), 10)));
            return;
        }
        String encoding = request.getHeader("Content-Encoding");
        if (encoding != null && !encoding.isBlank() && !encoding.trim().equalsIgnoreCase("identity")) {
            response.setHeader("Accept-Encoding", "identity"); // RFC 9110 section 12.5.3
            refuse(response, HttpServletResponse.SC_UNSUPPORTED_MEDIA_TYPE, BillingMessage.BILLING0233E.format(method,
                    Printable.of(path, 100), "it is compressed (Content-Encoding " + shown(encoding)
                            + "), which this service does not take", String.valueOf(OrderConfirmed.MAX_BYTES)));
            return;
        }
        chain.doFilter(req, res);
    }

    /**
     * @param raw a path or query as sent, percent-encoded
     * @return the index of the first {@code %} not followed by two hexadecimal digits (RFC 3986 section 2.1), or -1
     */
    static int malformedEscape(String raw) {
        for (int i = raw.indexOf('%'); i >= 0; i = raw.indexOf('%', i + 1)) {
            if (i + 2 >= raw.length() || Character.digit(raw.charAt(i + 1), 16) < 0
                    || Character.digit(raw.charAt(i + 2), 16) < 0) {
                return i;
            }
        }
        return -1;
    }

    private static String shown(String header) {
        return header == null ? "none" : Printable.of(header, 100);
    }

    private static void refuse(HttpServletResponse response, int status, String message) throws IOException {
        response.setStatus(status);
        response.setContentType("application/json");
        response.setCharacterEncoding("UTF-8");
        byte[] body = Json.createObjectBuilder().add("error", message).build().toString()
                .getBytes(StandardCharsets.UTF_8);
        response.setContentLength(body.length);
        response.getOutputStream().write(body);
    }

    /**
     * @return the request's own origin: its scheme and its {@code Host} header (what the browser addressed), with the
     *         scheme's default port when the header names none; the server's name and port without a Host header
     */
    static String ownOrigin(HttpServletRequest request) {
        String scheme = request.getScheme().toLowerCase(Locale.ROOT);
        String host = request.getHeader("Host");
        String own = host == null || host.isBlank() ? null : origin(scheme + "://" + host.trim());
        if (own != null) {
            return own;
        }
        return normalised(scheme, request.getServerName(), request.getServerPort());
    }

    /**
     * @param text an origin as RFC 6454 serialises it ({@code scheme://host[:port]}), or an allow-list entry
     * @return it normalised ({@code scheme://host:port}, lower case, default port filled in), {@code null} when it is
     *         no http(s) origin ({@code null}, an opaque origin, a path, user info, a query)
     */
    static String origin(String text) {
        try {
            URI uri = new URI(text);
            String scheme = uri.getScheme();
            if (scheme == null || uri.getHost() == null || uri.getRawUserInfo() != null || uri.getRawQuery() != null
                    || uri.getRawFragment() != null || !(uri.getRawPath() == null || uri.getRawPath().isEmpty())) {
                return null;
            }
            scheme = scheme.toLowerCase(Locale.ROOT);
            if (!scheme.equals("http") && !scheme.equals("https")) {
                return null;
            }
            return normalised(scheme, uri.getHost(), uri.getPort());
        } catch (Exception e) {
            return null;
        }
    }

    private static String normalised(String scheme, String host, int port) {
        int effective = port > 0 ? port : (scheme.equals("https") ? 443 : 80);
        return scheme + "://" + host.toLowerCase(Locale.ROOT) + ":" + effective;
    }
}
