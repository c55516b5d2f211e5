package io.github.jakartainbox.billing.web;

import io.github.jakartainbox.billing.BillingConfig;
import io.github.jakartainbox.billing.BillingMessage;
import io.github.jakartainbox.billing.order.OrderConfirmed;
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
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.regex.Pattern;
import org.eclipse.microprofile.config.ConfigProvider;

/**
 * Every request to the billing application (the operator page and {@code /api/*}) passes here first (web.xml):
 * <ul>
 *   <li><b>Requests to other names are refused</b> (403, {@code BILLING0259E}): a {@code Host} header whose name (port
 *       aside) is not in {@code billing.api.allowed-hosts} (by default the local names, {@code localhost,127.0.0.1,[::1]}), whatever the
 *       method, or that is no {@code host[:port]} as received (a trailing tab, a space or another control character);
 *       so is an absolute-form target ({@code GET http://other.example/billing/... HTTP/1.1}) whose host is
 *       not ({@code BILLING0298E}: its authority counts before {@code Host}), and a request without {@code Host} is a
 *       400 ({@code BILLING0297E}). A page of another name whose address is made to resolve to this server (DNS
 *       rebinding) is its own origin: its {@code Host} and {@code Origin} agree and the rule below passes it; only the
 *       name tells it apart. Liberty's own endpoints ({@code /metrics}, {@code /health}) are outside the application
 *       and this filter.</li>
 *   <li><b>A URL with a character it may not carry unencoded is refused</b> (400, {@code BILLING0295E}, saying to
 *       percent-encode it as UTF-8): the JAX-RS runtime could not parse the URI and answered without a hint.</li>
 *   <li><b>A body in another charset than UTF-8 is refused</b> (415, {@code BILLING0299E}): every API body is read as
 *       UTF-8, a {@code charset=latin1} one included.</li>
 *   <li><b>A guard header sent twice is refused</b> (400, {@code BILLING0260E}): {@code Host}, {@code Origin},
 *       {@code Sec-Fetch-Site}, {@code Sec-Fetch-Mode}; only the first {@code Origin} was checked.</li>
 *   <li><b>A repeated query parameter of the API is refused</b> (400, {@code BILLING0261E}, naming it): the runtime
 *       takes the first and drops the others, as the bulk body's reader refuses a repeated member.</li>
 *   <li><b>Cross-site writes are refused</b> (403, {@code BILLING0230E}): a request with any method but GET, HEAD and
 *       OPTIONS whose {@code Origin} header is present and is neither this service's origin (the request's scheme
 *       and its {@code Host} header, default port filled in) nor in {@code billing.api.allowed-origins}, or whose
 *       {@code Sec-Fetch-Site} is {@code cross-site} or {@code same-site}. A browser holding an operator's BASIC
 *       credentials sent them with a plain HTML form of another site ({@code enctype="text/plain"}) and an invoice was
 *       made; browsers send {@code Origin} with every such request, and the Fetch Metadata headers with every request.
 *       A client that sends neither (curl, a script, another service) is not refused.</li>
 *   <li><b>Cross-site reads of the API are refused</b> (403, {@code BILLING0231E}) unless they are navigations
 *       (a link opened): {@code Sec-Fetch-Site} {@code cross-site} or {@code same-site} with another
 *       {@code Sec-Fetch-Mode} (a {@code <script>}, {@code <img>} or {@code fetch} of another page).</li>
 *   <li><b>Malformed negotiation headers are refused</b> (400, {@code BILLING0306E}, naming the header and what is
 *       wrong): {@code Accept}, {@code Accept-Charset}, {@code Accept-Encoding}, {@code Accept-Language} and a
 *       {@code Content-Type}'s weight, which the JAX-RS runtime parses before any resource ({@link NegotiationHeaders}):
 *       a weight {@code q=abc} was a 500.</li>
 *   <li><b>The operator page's files are read only</b> (405, {@code BILLING0304E}, with {@code Allow}): any method
 *       but GET, HEAD and OPTIONS outside {@code /api/}; the container's file server answered 200 to a DELETE.</li>
 *   <li><b>Compressed bodies are refused</b> (415, {@code BILLING0233E}, with {@code Accept-Encoding: identity}):
 *       Liberty's HTTP channel inflates a {@code Content-Encoding: gzip} body while it is read; garbage made it throw
 *       {@code IllegalHttpBodyException} (a 500), and a 19 KB bomb inflated to 20 MB. No client of this API needs
 *       one.</li>
 *   <li><b>Hardening headers</b> on every answer: {@value #CSP} as {@code Content-Security-Policy} (the page has no
 *       inline script or style), {@code X-Content-Type-Options: nosniff}, {@code Referrer-Policy: no-referrer},
 *       {@code X-Frame-Options: DENY}; and {@code Cache-Control: no-store} on the API's answers and error pages.</li>
 * </ul>
 * {@code X-Forwarded-*} and {@code Forwarded} headers are not trusted (a client can send them): behind a reverse proxy
 * that changes the host or scheme, name the public origin in {@code billing.api.allowed-origins}
 * ({@link BillingConfig#ALLOWED_ORIGINS}).
 * <p>
 * The rule is OWASP's Cross-Site Request Forgery Prevention Cheat Sheet, "Verifying Origin With Standard Headers" and
 * "Fetch Metadata headers" (https://cheatsheetseries.owasp.org/cheatsheets/Cross-Site_Request_Forgery_Prevention_Cheat_Sheet.html),
 * and the resource isolation policy of https://web.dev/articles/fetch-metadata; Origin: RFC 6454 section 7;
 * Sec-Fetch-*: W3C Fetch Metadata Request Headers.
 */
public class RequestGuard implements Filter {

    /** {@code billing.api.allowed-hosts} when it is not set: the local names. */
    static final String LOCAL_HOSTS = BillingConfig.ALLOWED_HOSTS.defaultText().orElseThrow();

    /** Headers the guard decides on: a request carrying one of them twice is refused, not judged by its first. */
    private static final List<String> SINGLE_HEADERS = List.of("Host", "Origin", "Sec-Fetch-Site", "Sec-Fetch-Mode");

    static final String CSP = "default-src 'self'; frame-ancestors 'none'; form-action 'self'; base-uri 'none'";

    private static final Set<String> SAFE_METHODS = Set.of("GET", "HEAD", "OPTIONS");

    private Set<String> allowed = Set.of();
    private Set<String> hosts = Set.of();

    @Override
    public void init(FilterConfig config) {
        hosts = hosts(BillingConfig.ALLOWED_HOSTS.get(ConfigProvider.getConfig()),
                entry -> BillingMessage.BILLING0264E.log(Printable.of(entry, 100)));
        String list = BillingConfig.ALLOWED_ORIGINS.get(ConfigProvider.getConfig());
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
        for (String name : SINGLE_HEADERS) {
            int count = Collections.list(request.getHeaders(name)).size();
            if (count > 1) {
                refuse(response, HttpServletResponse.SC_BAD_REQUEST, BillingMessage.BILLING0260E.format(method,
                        Printable.of(path, 100), name, String.valueOf(count)));
                return;
            }
        }
        String hostHeader = request.getHeader("Host");
        String target = serverName(request.getServerName());
        BillingMessage hostRefusal = hostRefusal(hostHeader, request.getServerName(), hosts);
        if (hostRefusal == BillingMessage.BILLING0297E) {
            // nothing names the host the client addressed, so the rule below could not be applied (RFC 9112 section
            // 3.2: a request without Host is a 400)
            refuse(response, HttpServletResponse.SC_BAD_REQUEST, BillingMessage.BILLING0297E.format(method,
                    Printable.of(path, 100), String.join(", ", hosts)));
            return;
        }
        if (hostRefusal == BillingMessage.BILLING0259E) {
            // DNS rebinding: a page of another name, resolved to this server, is its own origin; its Host names it.
            // A Host that is no host[:port] (a trailing tab) names none of the names either
            sayAtMostEveryMinute(BillingMessage.BILLING0259E, method, Printable.of(path, 100), shown(hostHeader),
                    String.join(", ", hosts));
            refuse(response, HttpServletResponse.SC_FORBIDDEN, BillingMessage.BILLING0259E.format(method,
                    Printable.of(path, 100), shown(hostHeader), String.join(", ", hosts)));
            return;
        }
        if (hostRefusal == BillingMessage.BILLING0298E) {
            // an absolute-form target (GET http://evil.example/billing/... HTTP/1.1) addresses its own authority,
            // which RFC 9112 section 3.2.2 puts before Host, and so does Liberty's getServerName
            sayAtMostEveryMinute(BillingMessage.BILLING0298E, method, Printable.of(path, 100),
                    Printable.of(target, 100), String.join(", ", hosts));
            refuse(response, HttpServletResponse.SC_FORBIDDEN, BillingMessage.BILLING0298E.format(method,
                    Printable.of(path, 100), Printable.of(target, 100), String.join(", ", hosts)));
            return;
        }
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
            sayAtMostEveryMinute(BillingMessage.BILLING0230E, method, Printable.of(path, 100), shown(originHeader),
                    shown(site), own);
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
        UriFlaw bad = UriFlaw.first(path, query, RequestGuard::malformedEscape);
        if (bad != null) {
            // the JAX-RS runtime would fail to parse the URI wherever it reads it, and answer 500
            refuse(response, HttpServletResponse.SC_BAD_REQUEST, BillingMessage.BILLING0251E.format(method,
                    bad.where(), String.valueOf(bad.at()), Printable.of(bad.text().substring(bad.at(),
                            Math.min(bad.text().length(), bad.at() + 3)), 10)));
            return;
        }
        UriFlaw raw = UriFlaw.first(path, query, RequestGuard::notInUri);
        if (raw != null) {
            // a character sent as it is (é, a space's neighbours such as | or "): the JAX-RS runtime could not parse
            // the URI and answered "GET ? answered 400" without saying why
            refuse(response, HttpServletResponse.SC_BAD_REQUEST, BillingMessage.BILLING0295E.format(method + " "
                    + Printable.of(path, 100), raw.where(), String.format("U+%04X", raw.text().codePointAt(raw.at())),
                    String.valueOf(raw.at())));
            return;
        }
        UriFlaw notUtf8 = UriFlaw.first(path, query, RequestGuard::notUtf8);
        if (notUtf8 != null) {
            // the runtime decodes such escapes to U+FFFD: ?orderId=%FF looked for another order and answered []
            refuse(response, HttpServletResponse.SC_BAD_REQUEST, BillingMessage.BILLING0300E.format(method + " "
                    + Printable.of(path, 100), notUtf8.where(), String.valueOf(notUtf8.at())));
            return;
        }
        String repeated = query == null ? null : repeatedParameter(query);
        if (api && repeated != null) {
            // as the bulk body refuses a repeated member: the runtime would take the first and drop the others
            refuse(response, HttpServletResponse.SC_BAD_REQUEST, BillingMessage.BILLING0261E.format(
                    Printable.of(repeated, 60), method, Printable.of(path, 100)));
            return;
        }
        if (api) {
            for (String name : NegotiationHeaders.NAMES) {
                String value = request.getHeader(name);
                String flaw = value == null ? null : NegotiationHeaders.flaw(name, value);
                if (flaw != null) {
                    // the JAX-RS runtime parses these before any resource: a weight q=abc was a 500
                    refuse(response, HttpServletResponse.SC_BAD_REQUEST, BillingMessage.BILLING0306E.format(method,
                            Printable.of(path, 100), name, Printable.of(flaw, 120), Printable.of(value, 100)));
                    return;
                }
            }
        }
        if (!api && !SAFE_METHODS.contains(method)) {
            // the operator page's files are read only: the container's file server answered 200 to DELETE and POST
            response.setHeader("Allow", "GET, HEAD, OPTIONS"); // RFC 9110 section 15.5.6
            refuse(response, HttpServletResponse.SC_METHOD_NOT_ALLOWED, BillingMessage.BILLING0304E.format(method,
                    Printable.of(path, 100)));
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
        String contentType = request.getContentType();
        java.util.List<String> contentTypes = api && contentType != null
                ? java.util.Collections.list(request.getHeaders("Content-Type")) : java.util.List.of();
        if (contentTypes.size() > 1) {
            // a singleton field (RFC 9110 section 8.3) sent twice: the runtime took the first, a proxy may take
            // the last, so the body's type is not known
            refuse(response, HttpServletResponse.SC_UNSUPPORTED_MEDIA_TYPE, BillingMessage.BILLING0232E.format(method,
                    Printable.of(path, 100), shown(String.join(" and ", contentTypes) + ", twice")));
            return;
        }
        if (api && contentType != null && !mediaType(contentType)) {
            // the runtime would answer a header it cannot parse with a bare 400, before any resource
            refuse(response, HttpServletResponse.SC_UNSUPPORTED_MEDIA_TYPE, BillingMessage.BILLING0232E.format(method,
                    Printable.of(path, 100), shown(contentType)));
            return;
        }
        String charset = api ? charset(contentType) : null;
        if (charset != null && !charset.equalsIgnoreCase("UTF-8")) {
            // the API reads every body as UTF-8: a body declared latin1 was read as UTF-8 all the same
            refuse(response, HttpServletResponse.SC_UNSUPPORTED_MEDIA_TYPE, BillingMessage.BILLING0299E.format(method,
                    Printable.of(path, 100), shown(request.getContentType()), Printable.of(charset, 40)));
            return;
        }
        chain.doFilter(req, res);
    }

    /** The least time between two log lines of one refusal's message: anyone can send refused requests. */
    static final long SAY_EVERY_NANOS = TimeUnit.MINUTES.toNanos(1);
    /** When each refusal's message was last logged ({@link System#nanoTime()}). */
    private final Map<BillingMessage, Long> said = new ConcurrentHashMap<>();

    /** Logs a refusal unless its message was logged less than a minute ago; the client is answered either way. */
    private void sayAtMostEveryMinute(BillingMessage message, Object... args) {
        if (due(said, message, System.nanoTime())) {
            message.log(args);
        }
    }

    /**
     * @param said    when each message was last logged; updated when this returns true
     * @param message the message
     * @param now     {@link System#nanoTime()} now
     * @return whether the message is due: never logged, or not for {@link #SAY_EVERY_NANOS}
     */
    static boolean due(Map<BillingMessage, Long> said, BillingMessage message, long now) {
        Long last = said.get(message);
        if (last == null) {
            return said.putIfAbsent(message, now) == null;
        }
        return now - last >= SAY_EVERY_NANOS && said.replace(message, last, now);
    }

    private static final String TOKEN = "[!#$%&'*+.^_`|~0-9A-Za-z-]+";
    /** RFC 9110 section 8.3.1's media type: one type/subtype, parameters of a token and a token or quoted string. */
    private static final Pattern MEDIA_TYPE = Pattern.compile(TOKEN + "/" + TOKEN + "(?:[ \\t]*;[ \\t]*(?:" + TOKEN
            + "=(?:" + TOKEN + "|\"(?:[^\"\\\\]|\\\\.)*\"))?)*[ \\t]*");
    private static final Pattern CHARSET_PARAMETER = Pattern.compile("(?i);[ \\t]*charset[ \\t]*=");

    /**
     * @param contentType a {@code Content-Type} header
     * @return whether it is one media type (RFC 9110 section 8.3.1) with at most one {@code charset}: a list, a
     *         missing subtype or a charset given twice is not
     */
    static boolean mediaType(String contentType) {
        return MEDIA_TYPE.matcher(contentType.trim()).matches()
                && CHARSET_PARAMETER.matcher(contentType).results().count() <= 1;
    }

    /**
     * @param contentType a {@code Content-Type} header, may be null
     * @return its {@code charset} parameter (RFC 9110 section 8.3.2; quotes removed), or null when it has none
     */
    static String charset(String contentType) {
        if (contentType == null) {
            return null;
        }
        String[] parts = contentType.split(";");
        for (int i = 1; i < parts.length; i++) {
            int equals = parts[i].indexOf('=');
            if (equals > 0 && parts[i].substring(0, equals).trim().equalsIgnoreCase("charset")) {
                String value = parts[i].substring(equals + 1).trim();
                if (value.length() >= 2 && value.startsWith("\"") && value.endsWith("\"")) {
                    value = value.substring(1, value.length() - 1);
                }
                return value;
            }
        }
        return null;
    }

    /**
     * @param raw a path or query as sent
     * @return the index of the first character a URI may not carry unencoded (RFC 3986 section 2: anything but
     *         ASCII letters, digits, {@code -._~}, the delimiters {@code !$&'()*+,;=:@/?} and {@code %}), or -1
     */
    static int notInUri(String raw) {
        for (int i = 0; i < raw.length(); i++) {
            char c = raw.charAt(i);
            boolean allowed = c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
                    || "-._~!$&'()*+,;=:@/?%".indexOf(c) >= 0;
            if (!allowed) {
                return i;
            }
        }
        return -1;
    }

    /**
     * @param name what {@code getServerName()} gives: the host of an absolute-form target, else the Host header's
     * @return it as {@link #host} gives a name: lower case, an IPv6 address in brackets
     */
    static String serverName(String name) {
        String lower = String.valueOf(name).toLowerCase(Locale.ROOT);
        return lower.indexOf(':') >= 0 && !lower.startsWith("[") ? "[" + lower + "]" : lower;
    }

    /**
     * @param raw a path or query as sent, percent-encoded
     * @return the index of the first {@code %} not followed by two hexadecimal digits (RFC 3986 section 2.1), or -1
     */
    /**
     * Where a check of the URL found its first flaw: the path before the query.
     *
     * @param where {@code path} or {@code query}
     * @param text  that part as sent
     * @param at    the index the check gave
     */
    record UriFlaw(String where, String text, int at) {

        /** @return the first flaw the check finds (an index, -1 for none) in the path, then the query; null: none */
        static UriFlaw first(String path, String query, java.util.function.ToIntFunction<String> check) {
            int at = check.applyAsInt(path);
            if (at >= 0) {
                return new UriFlaw("path", path, at);
            }
            at = query == null ? -1 : check.applyAsInt(query);
            return at >= 0 ? new UriFlaw("query", query, at) : null;
        }
    }

    /**
     * @param raw a path or query as sent, its escapes well formed ({@link #malformedEscape}) and its characters ASCII
     *            ({@link #notInUri})
     * @return the index of the first byte, among the bytes its escapes and characters stand for, at which they stop
     *         being UTF-8 (RFC 3987 section 3.2; a {@code +} is a byte as any other), or -1 when they are
     */
    static int notUtf8(String raw) {
        if (raw.indexOf('%') < 0) {
            return -1;
        }
        java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream(raw.length());
        for (int i = 0; i < raw.length(); i++) {
            char c = raw.charAt(i);
            if (c == '%' && i + 2 < raw.length()) {
                bytes.write(Integer.parseInt(raw, i + 1, i + 3, 16));
                i += 2;
            } else {
                bytes.write(c);
            }
        }
        java.nio.ByteBuffer in = java.nio.ByteBuffer.wrap(bytes.toByteArray());
        java.nio.charset.CoderResult result = StandardCharsets.UTF_8.newDecoder()
                .onMalformedInput(java.nio.charset.CodingErrorAction.REPORT)
                .onUnmappableCharacter(java.nio.charset.CodingErrorAction.REPORT)
                .decode(in, java.nio.CharBuffer.allocate(bytes.size()), true);
        return result.isError() ? in.position() : -1;
    }

    static int malformedEscape(String raw) {
        for (int i = raw.indexOf('%'); i >= 0; i = raw.indexOf('%', i + 1)) {
            if (i + 2 >= raw.length() || !asciiHex(raw.charAt(i + 1)) || !asciiHex(raw.charAt(i + 2))) {
                return i;
            }
        }
        return -1;
    }

    /** @return whether c is 0-9, a-f or A-F ({@link Character#digit} also takes other scripts' digits) */
    private static boolean asciiHex(char c) {
        return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F';
    }

    /**
     * @param query a query string as sent, its percent-escapes well-formed ({@link #malformedEscape})
     * @return the (decoded) name of the first parameter that appears more than once, or null
     */
    static String repeatedParameter(String query) {
        Set<String> seen = new HashSet<>();
        for (String pair : query.split("&")) {
            if (pair.isEmpty()) {
                continue;
            }
            int equals = pair.indexOf('=');
            String name = URLDecoder.decode(equals < 0 ? pair : pair.substring(0, equals), StandardCharsets.UTF_8);
            if (!seen.add(name)) {
                return name;
            }
        }
        return null;
    }

    /**
     * @param list comma-separated host names, IPv4 addresses and bracketed IPv6 addresses, without ports
     * @param bad  told each entry that is none of these (it is left out)
     * @return the entries, normalised by {@link #host}
     */
    static Set<String> hosts(String list, Consumer<String> bad) {
        Set<String> names = new LinkedHashSet<>();
        for (String entry : list.split(",")) {
            if (entry.isBlank()) {
                continue;
            }
            URI uri = hostUri(entry.trim());
            if (uri == null || uri.getPort() >= 0 || entry.trim().endsWith(":")) {
                bad.accept(entry.trim());
            } else {
                names.add(uri.getHost().toLowerCase(Locale.ROOT));
            }
        }
        return Set.copyOf(names);
    }

    /**
     * Which refusal the request's host calls for, decided on the {@code Host} header first: a Host that is no
     * {@code host[:port]} (a tab, a space or another control character in it, user info, a path) is the Host's
     * refusal, whatever the runtime then makes of it as the server name; only a well-formed, allowed Host whose
     * request target names another host is the target's (an absolute-form target, RFC 9112 section 3.2.2).
     *
     * @param hostHeader the {@code Host} header as received, may be null
     * @param serverName {@code getServerName()}: the host of an absolute-form target, else the runtime's reading of
     *                   {@code Host}
     * @param hosts      the allowed names, as {@link #hosts} gives them
     * @return {@code BILLING0297E} (no Host, or an empty one), {@code BILLING0259E} (a Host that is malformed, white
     *         space only among them, or not allowed),
     *         {@code BILLING0298E} (a target of another host), or null when the request passes
     */
    static BillingMessage hostRefusal(String hostHeader, String serverName, Set<String> hosts) {
        if (hostHeader == null || hostHeader.isEmpty()) {
            return BillingMessage.BILLING0297E;
        }
        if (!hosts.contains(String.valueOf(host(hostHeader)))) {
            return BillingMessage.BILLING0259E;
        }
        return hosts.contains(serverName(serverName)) ? null : BillingMessage.BILLING0298E;
    }

    /**
     * @param hostHeader a {@code Host} header ({@code name[:port]}, RFC 9110 section 7.2), as received: it is not
     *                   trimmed, since the runtime's server name keeps what surrounds it (a trailing tab was read as
     *                   {@code localhost} here and {@code localhost\t} there)
     * @return its host, lower case (an IPv6 address in brackets), without the port; null when it is no host, or holds
     *         white space or a control character
     */
    static String host(String hostHeader) {
        URI uri = hostUri(hostHeader);
        return uri == null ? null : uri.getHost().toLowerCase(Locale.ROOT);
    }

    /** @return {@code http://} and the text as a URI when the text is a host with an optional port only, else null */
    private static URI hostUri(String text) {
        try {
            URI uri = new URI("http://" + text);
            if (uri.getHost() == null || uri.getRawUserInfo() != null || !(uri.getRawPath() == null
                    || uri.getRawPath().isEmpty()) || uri.getRawQuery() != null || uri.getRawFragment() != null) {
                return null;
            }
            return uri;
        } catch (Exception e) {
            return null;
        }
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
