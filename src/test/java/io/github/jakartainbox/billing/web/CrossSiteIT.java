package io.github.jakartainbox.billing.web;

import io.github.jakartainbox.billing.SampleEvents;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpServer;
import io.github.jakartainbox.testing.Api;
import io.github.jakartainbox.testing.Db;
import io.github.jakartainbox.testing.Deployments;
import io.github.jakartainbox.testing.TestEnv;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.logging.Level;
import java.util.stream.Collectors;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.container.test.api.RunAsClient;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.shrinkwrap.api.spec.WebArchive;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.logging.LogEntry;
import org.openqa.selenium.logging.LogType;
import org.openqa.selenium.logging.LoggingPreferences;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * Cross-site use of the API (RequestGuard): a page of another origin, served from this JVM on another port and opened
 * in headless Chromium whose session holds the operator's BASIC credentials, submits a {@code text/plain} form and a
 * {@code no-cors} fetch to {@code POST /jms/orders} and to a re-drive. Nothing is sent, invoiced or re-driven (a
 * same-origin control order sent afterwards is invoiced, so the wait was long enough), and what the browser got is
 * the 403 with {@code BILLING0230E}. The same rule checked with a plain HTTP client; the hardening headers; the page's
 * {@code ?refresh=} floor.
 */
@ExtendWith(ArquillianExtension.class)
@RunAsClient
class CrossSiteIT {

    private static final Duration WAIT = Duration.ofSeconds(90);
    private static final String SERVICE = TestEnv.url("");
    private static final String API = TestEnv.url("/billing/api");
    /** In the test server's billing.api.allowed-origins (src/test/liberty/server.xml). */
    private static final String ALLOWED = "https://ops.example.test:8443";
    private static final String CSP = "default-src 'self'; frame-ancestors 'none'; form-action 'self'; base-uri 'none'";
    private static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    private static HttpServer attacker;
    private static String attackerOrigin;
    private static WebDriver browser;
    private static volatile Map<String, String> pages = Map.of();

    private final Db db = Db.overJdbc(System.getenv().getOrDefault("DB_NAME", "billing"));

    @Deployment(testable = false)
    static WebArchive deployment() {
        return Deployments.billingWithProbes();
    }

    @BeforeAll
    static void start() throws Exception {
        // 127.0.0.1 against the service's localhost: another origin, and another site
        attacker = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        attacker.createContext("/", exchange -> {
            byte[] page = pages.getOrDefault(exchange.getRequestURI().getPath(), "not found")
                    .getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().set("Content-Type", "text/html; charset=utf-8");
            exchange.sendResponseHeaders(200, page.length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(page);
            }
        });
        attacker.start();
        attackerOrigin = "http://127.0.0.1:" + attacker.getAddress().getPort();

        ChromeOptions options = new ChromeOptions();
        options.setBinary(System.getProperty("chromium.binary", "/usr/bin/chromium"));
        options.addArguments("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1200,900");
        LoggingPreferences logs = new LoggingPreferences();
        logs.enable(LogType.BROWSER, Level.ALL);
        options.setCapability("goog:loggingPrefs", logs);
        browser = new ChromeDriver(new ChromeDriverService.Builder()
                .usingDriverExecutable(Path.of(System.getProperty("chromedriver", "/usr/bin/chromedriver")).toFile())
                .build(), options);
    }

    @AfterAll
    static void stop() {
        if (browser != null) {
            browser.quit();
        }
        if (attacker != null) {
            attacker.stop(0);
        }
    }

    private long openDeadLetter(String eventId, String orderId) {
        String payload = SampleEvents.event(eventId, orderId, "9.99", "EUR").json();
        return db.number("INSERT INTO inbox_dead_letter (consumer, event_id, payload_ref, error, attempts, payload_sha256) "
                + "VALUES ('billing', ?, decode(?, 'hex'), 'simulated failure', 3, sha256(convert_to(?, 'UTF8'))) "
                + "RETURNING id", eventId, db.deadLetterPayload(payload), payload);
    }

    /** A JSON order as an HTML form with enctype text/plain sends it: {@code name=value}, the '=' inside a string. */
    private static String textPlainForm(String action, String json) {
        String name = json.substring(0, json.length() - 1) + ",\"pad\":\"";
        return "<!DOCTYPE html><html><body><form method=\"POST\" enctype=\"text/plain\" action=\"" + action + "\">"
                + "<input type=\"hidden\" name=\"" + name.replace("\"", "&quot;") + "\" value=\"&quot;}\"></form>"
                + "<script>document.forms[0].submit()</script></body></html>";
    }

    private static String source() {
        return browser.getPageSource();
    }

    @Test
    void aPageOfAnotherSiteCannotOrderOrReDriveWithTheOperatorsBrowserLogin() throws Exception {
        String run = UUID.randomUUID().toString().substring(0, 8);
        String formEvent = UUID.randomUUID().toString();
        String fetchEvent = UUID.randomUUID().toString();
        String formOrder = "xsite-form-" + run;
        String fetchOrder = "xsite-fetch-" + run;
        String letterEvent = UUID.randomUUID().toString();
        long letter = openDeadLetter(letterEvent, "xsite-letter-" + run);
        String orders = SERVICE + "/billing/api/jms/orders";
        String redrive = SERVICE + "/billing/api/dead-letters/" + letter + "/redrive";
        String fetchJson = SampleEvents.event(fetchEvent, fetchOrder, "1.00", "EUR").json();
        pages = Map.of(
                "/form-order", textPlainForm(orders, SampleEvents.event(formEvent, formOrder, "1.00", "EUR").json()),
                "/form-redrive", "<!DOCTYPE html><html><body><form method=\"POST\" action=\"" + redrive + "\"></form>"
                        + "<script>document.forms[0].submit()</script></body></html>",
                "/fetch", "<!DOCTYPE html><html><body><script>"
                        + "const opts = (body) => ({method: 'POST', mode: 'no-cors', credentials: 'include', "
                        + "headers: {'Content-Type': 'text/plain'}, body});"
                        + "Promise.allSettled([fetch('" + orders + "', opts(" + quoted(fetchJson) + ")), "
                        + "fetch('" + redrive + "', opts(''))]).then(r => { document.title = 'done ' + "
                        + "r.map(x => x.status).join(); });</script></body></html>");

        // the operator's browser session: BASIC credentials for the service's realm, kept by Chromium
        browser.get(SERVICE.replace("http://", "http://" + Api.OPERATOR.name() + ":" + Api.OPERATOR.password() + "@")
                + "/billing/api/inbox");
        assertTrue(source().contains("\"processed\""), "the browser is signed in to the API: " + source());

        browser.get(attackerOrigin + "/fetch");
        String title = new WebDriverWait(browser, WAIT).until(d -> d.getTitle().startsWith("done") ? d.getTitle() : null);
        assertEquals("done fulfilled,fulfilled", title, "both requests went out (their answers are opaque to the page)");

        browser.get(attackerOrigin + "/form-order");
        new WebDriverWait(browser, WAIT).until(d -> d.getCurrentUrl().startsWith(orders));
        assertTrue(source().contains("BILLING0230E") && source().contains("Origin " + attackerOrigin),
                "the browser sent the form with the operator's credentials and got the 403: " + source());

        browser.get(attackerOrigin + "/form-redrive");
        new WebDriverWait(browser, WAIT).until(d -> d.getCurrentUrl().startsWith(redrive));
        assertTrue(source().contains("BILLING0230E"), "the re-drive form got the 403: " + source());

        // a same-origin control order, from the service's own page in the same session: sent and invoiced
        String controlOrder = "xsite-control-" + run;
        browser.get(SERVICE + "/billing/");
        Object status = ((JavascriptExecutor) browser).executeAsyncScript(
                "const done = arguments[arguments.length - 1];"
                        + "fetch('api/jms/orders', {method: 'POST', headers: {'Content-Type': 'application/json'}, "
                        + "body: arguments[0]}).then(r => done(r.status), e => done(String(e)));",
                SampleEvents.event(UUID.randomUUID().toString(), controlOrder, "1.00", "EUR").json());
        assertEquals(202L, status, "the page's own origin may send, with the session's credentials");
        assertEquals(1, db.await(WAIT, n -> n == 1, "SELECT count(*) FROM invoice WHERE order_id = ?", controlOrder),
                "the control order was invoiced");

        for (String order : List.of(formOrder, fetchOrder)) {
            assertEquals(0, db.number("SELECT count(*) FROM invoice WHERE order_id = ?", order), order + " invoiced");
        }
        assertEquals(0, db.number("SELECT count(*) FROM inbox WHERE event_id IN (?, ?)", formEvent, fetchEvent),
                "neither cross-site order reached a consumer");
        assertEquals(0, db.number("SELECT count(*) FROM inbox_dead_letter WHERE event_id IN (?, ?)", formEvent,
                fetchEvent), "nor was dead-lettered");
        assertEquals(1, db.number("SELECT count(*) FROM inbox_dead_letter WHERE id = ? AND redriven_at IS NULL "
                + "AND resolved_by IS NULL", letter), "the dead letter stays open");
        assertEquals(0, db.number("SELECT count(*) FROM invoice WHERE order_id = ?", "xsite-letter-" + run),
                "and its order was not invoiced");
    }

    private static String quoted(String text) {
        return "'" + text.replace("\\", "\\\\").replace("'", "\\'") + "'";
    }

    private static HttpResponse<String> call(String method, String url, Api.User user, Map<String, String> headers)
            throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(60))
                .method(method, HttpRequest.BodyPublishers.noBody());
        headers.forEach(request::header);
        if (user != null) {
            request.header("Authorization", basic(user));
        }
        return HTTP.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    private static String basic(Api.User user) {
        return "Basic " + Base64.getEncoder().encodeToString((user.name() + ":" + user.password())
                .getBytes(StandardCharsets.UTF_8));
    }

    private static void assertRefused(HttpResponse<String> response, String id, String what) {
        assertEquals(403, response.statusCode(), what + ": " + response.body());
        assertTrue(response.body().startsWith("{\"error\":\"" + id + ": "), what + ": " + response.body());
        assertTrue(response.headers().firstValue("Content-Type").orElse("").startsWith("application/json"), what);
    }

    @Test
    void aChangeFromAnotherOriginOrSiteIsRefusedWith403AndOnesWithoutThemPass() throws Exception {
        long letter = openDeadLetter(UUID.randomUUID().toString(), "xsite-http-" + UUID.randomUUID());
        List<String[]> changes = List.of(new String[] {"POST", API + "/jms/orders"},
                new String[] {"POST", API + "/dead-letters/" + letter + "/redrive"},
                new String[] {"DELETE", API + "/dead-letters/" + letter},
                new String[] {"POST", API + "/outbox/1/retry"}, new String[] {"DELETE", API + "/outbox/1"},
                new String[] {"PUT", API + "/inbox"}, new String[] {"PATCH", API + "/inbox"});
        for (String[] change : changes) {
            String what = change[0] + " " + change[1];
            assertRefused(call(change[0], change[1], Api.OPERATOR, Map.of("Origin", attackerOrigin)), "BILLING0230E",
                    what + " with a foreign Origin");
            assertRefused(call(change[0], change[1], Api.OPERATOR, Map.of("Sec-Fetch-Site", "cross-site")),
                    "BILLING0230E", what + " with Sec-Fetch-Site cross-site");
            assertRefused(call(change[0], change[1], Api.OPERATOR, Map.of("Sec-Fetch-Site", "same-site")),
                    "BILLING0230E", what + " with Sec-Fetch-Site same-site");
            assertRefused(call(change[0], change[1], Api.OPERATOR, Map.of("Origin", SERVICE, "Sec-Fetch-Site",
                    "cross-site")), "BILLING0230E", what + ": its own Origin, but Sec-Fetch-Site cross-site");
        }
        for (String origin : List.of("null", "https://ops.example.test", "http://ops.example.test:8443",
                "https://bad.example.test", "https://bad.example.test/path", SERVICE + ".evil.test",
                "http://localhost:" + (TestEnv.HTTP_PORT + 1))) {
            assertRefused(call("DELETE", API + "/dead-letters/" + letter, Api.OPERATOR, Map.of("Origin", origin)),
                    "BILLING0230E", "Origin " + origin);
        }
        HttpResponse<String> refused = call("POST", API + "/jms/orders", Api.OPERATOR, Map.of("Origin", attackerOrigin));
        assertTrue(refused.body().contains("BILLING0230E") && refused.body().contains("Origin " + attackerOrigin)
                && refused.body().contains("origin is " + SERVICE), refused.body());
        assertEquals(1, db.number("SELECT count(*) FROM inbox_dead_letter WHERE id = ? AND resolved_by IS NULL",
                letter), "the refused calls changed nothing");

        // passing the filter: the resource answers (404: no such row)
        String none = API + "/dead-letters/999999999999";
        for (Map<String, String> headers : List.of(Map.<String, String>of(), Map.of("Origin", SERVICE),
                Map.of("Origin", SERVICE, "Sec-Fetch-Site", "same-origin"), Map.of("Sec-Fetch-Site", "none"),
                Map.of("Origin", ALLOWED, "Sec-Fetch-Site", "cross-site"), Map.of("Origin", "HTTPS://OPS.example.test:8443"),
                Map.of("Origin", SERVICE.replace("localhost", "LOCALHOST")))) {
            HttpResponse<String> passed = call("DELETE", none, Api.OPERATOR, headers);
            assertEquals(404, passed.statusCode(), headers + ": " + passed.body());
            assertTrue(passed.body().contains("BILLING0254E: No dead letter 999999999999"), passed.body());
        }
    }

    /** The service's origin is the Host header the client addressed; X-Forwarded-Host is not trusted. */
    @Test
    void theOwnOriginIsTheHostHeaderAndForwardedHeadersAreNotTrusted() throws Exception {
        String path = "/billing/api/dead-letters/999999999999";
        assertTrue(raw("DELETE", path, "billing.example.test", "Origin: http://billing.example.test\r\n")
                .startsWith("HTTP/1.1 404"), "Host billing.example.test, Origin http://billing.example.test (port 80)");
        assertTrue(raw("DELETE", path, "billing.example.test:80", "Origin: http://billing.example.test\r\n")
                .startsWith("HTTP/1.1 404"), "the default port written out");
        String other = raw("DELETE", path, "billing.example.test", "Origin: " + SERVICE + "\r\n");
        assertTrue(other.startsWith("HTTP/1.1 403") && other.contains("BILLING0230E"), other);
        String forwarded = raw("DELETE", path, "localhost:" + TestEnv.HTTP_PORT, "Origin: https://evil.example.test\r\n"
                + "X-Forwarded-Host: evil.example.test\r\nX-Forwarded-Proto: https\r\n"
                + "Forwarded: host=evil.example.test;proto=https\r\n");
        assertTrue(forwarded.startsWith("HTTP/1.1 403") && forwarded.contains("BILLING0230E"), forwarded);
    }

    /** One HTTP/1.1 request over a socket, with a Host header of the test's choosing; the whole answer as text. */
    private static String raw(String method, String path, String host, String headers) throws Exception {
        try (Socket socket = new Socket("localhost", TestEnv.HTTP_PORT)) {
            socket.setSoTimeout(60_000);
            String request = method + " " + path + " HTTP/1.1\r\nHost: " + host + "\r\nAuthorization: "
                    + basic(Api.OPERATOR) + "\r\n" + headers + "Content-Length: 0\r\nConnection: close\r\n\r\n";
            socket.getOutputStream().write(request.getBytes(StandardCharsets.ISO_8859_1));
            socket.getOutputStream().flush();
            ByteArrayOutputStream answer = new ByteArrayOutputStream();
            InputStream in = socket.getInputStream();
            in.transferTo(answer);
            return answer.toString(StandardCharsets.UTF_8);
        }
    }

    @Test
    void aReadOfTheApiByAnotherSitesPageIsRefusedButANavigationIsNot() throws Exception {
        for (String site : List.of("cross-site", "same-site")) {
            assertRefused(call("GET", API + "/inbox", Api.READER, Map.of("Sec-Fetch-Site", site, "Sec-Fetch-Mode",
                    "no-cors", "Sec-Fetch-Dest", "script")), "BILLING0231E", "a script of a " + site + " page");
            assertRefused(call("GET", API + "/invoices/count", Api.READER, Map.of("Sec-Fetch-Site", site,
                    "Sec-Fetch-Mode", "cors", "Origin", attackerOrigin)), "BILLING0231E", "a fetch of a " + site + " page");
            assertEquals(200, call("GET", API + "/inbox", Api.READER, Map.of("Sec-Fetch-Site", site, "Sec-Fetch-Mode",
                    "navigate")).statusCode(), "a link followed from another " + site + " page");
        }
        assertEquals(200, call("GET", API + "/inbox", Api.READER, Map.of("Sec-Fetch-Site", "same-origin",
                "Sec-Fetch-Mode", "cors")).statusCode());
        assertEquals(200, call("GET", API + "/inbox", Api.READER, Map.of("Sec-Fetch-Site", "cross-site",
                "Sec-Fetch-Mode", "cors", "Origin", ALLOWED)).statusCode(), "an allow-listed origin");
        assertEquals(200, call("GET", SERVICE + "/billing/ops.js", null, Map.of("Sec-Fetch-Site", "cross-site",
                "Sec-Fetch-Mode", "no-cors")).statusCode(), "the page's static files are not the API");
    }

    @Test
    void thePageAndEveryApiAnswerCarryTheHardeningHeaders() throws Exception {
        Map<String, HttpResponse<String>> answers = Map.of(
                "the page", call("GET", SERVICE + "/billing/", null, Map.of()),
                "its script", call("GET", SERVICE + "/billing/ops.js", null, Map.of()),
                "an API answer", call("GET", API + "/inbox", Api.READER, Map.of()),
                "a 400", call("GET", API + "/invoices?limit=0", Api.READER, Map.of()),
                "a 403 of the container", call("GET", API + "/dead-letters", Api.READER, Map.of()),
                "a 403 of the guard", call("POST", API + "/jms/orders", Api.OPERATOR, Map.of("Origin", attackerOrigin)),
                "a 404", call("DELETE", API + "/dead-letters/999999999999", Api.OPERATOR, Map.of()));
        answers.forEach((what, response) -> {
            var headers = response.headers();
            assertEquals(CSP, headers.firstValue("Content-Security-Policy").orElse(null), what);
            assertEquals("nosniff", headers.firstValue("X-Content-Type-Options").orElse(null), what);
            assertEquals("no-referrer", headers.firstValue("Referrer-Policy").orElse(null), what);
            assertEquals("DENY", headers.firstValue("X-Frame-Options").orElse(null), what);
            boolean api = !what.equals("the page") && !what.equals("its script");
            assertEquals(api ? "no-store" : null, headers.firstValue("Cache-Control").orElse(null), what);
        });
        assertEquals(200, answers.get("an API answer").statusCode());
        assertEquals(403, answers.get("a 403 of the container").statusCode());
        String page = answers.get("the page").body();
        assertFalse(page.matches("(?s).*<script(?![^>]*\\ssrc=)[^>]*>.*"), "no inline script: CSP would block it");
        assertFalse(page.contains("style=") || page.contains("<style"), "no inline style");
        assertFalse(page.contains(" on") && page.matches("(?s).*\\son[a-z]+=.*"), "no inline event handler");
    }

    /** The note in the dashboard, which is hidden until a sign-in. */
    private static String refreshNote() {
        return (String) ((JavascriptExecutor) browser).executeScript("return document.getElementById('refresh').textContent");
    }

    @Test
    void thePageRefreshesEveryFiveSecondsAtMostAndSaysSoWithoutBreakingItsPolicy() throws Exception {
        browser.get(SERVICE + "/billing/?refresh=1");
        String note = refreshNote();
        assertTrue(note.startsWith("Refreshes every 5 s.") && note.contains("?refresh=1"), note);
        browser.findElement(org.openqa.selenium.By.id("login-user")).sendKeys(Api.READER.name());
        browser.findElement(org.openqa.selenium.By.id("login-password")).sendKeys(Api.READER.password());
        browser.findElement(org.openqa.selenium.By.id("login-submit")).click();
        new WebDriverWait(browser, WAIT).until(d -> !d.findElement(org.openqa.selenium.By.id("updated")).getText()
                .equals("never"));
        String count = "return performance.getEntriesByType('resource').filter(e => e.name.includes('/api/')).length";
        long before = (Long) ((JavascriptExecutor) browser).executeScript(count);
        Thread.sleep(10_000); // the window the page's refreshes are counted in
        long calls = (Long) ((JavascriptExecutor) browser).executeScript(count) - before;
        // a reader's refresh makes 3 calls; 10 s at one refresh per 5 s are 2 or 3 refreshes (refresh=1 made 640)
        assertTrue(calls >= 3 && calls <= 9, "API calls in 10 s: " + calls);
        browser.get(SERVICE + "/billing/?refresh=abc");
        assertEquals("Refreshes every 5 s. (?refresh=abc asked for another interval: it must be from 5000 to 3600000 "
                + "ms.)", refreshNote());
        browser.get(SERVICE + "/billing/?refresh=30000");
        assertEquals("Refreshes every 30 s.", refreshNote());
        List<LogEntry> violations = browser.manage().logs().get(LogType.BROWSER).getAll().stream()
                .filter(e -> e.getMessage().contains("Content Security Policy")).collect(Collectors.toList());
        assertEquals(List.of(), violations.stream().map(LogEntry::getMessage).toList(), "no CSP violation on the page");
    }
}
