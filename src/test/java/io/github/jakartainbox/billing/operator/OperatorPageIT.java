package io.github.jakartainbox.billing.operator;

import io.github.jakartainbox.billing.SampleEvents;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.jakartainbox.billing.SampleEvents.Event;
import io.github.jakartainbox.inbox.kafka.KeyOrderProbe;
import io.github.jakartainbox.testing.Api;
import io.github.jakartainbox.testing.Db;
import io.github.jakartainbox.testing.Deployments;
import io.github.jakartainbox.testing.KeyOrderProbes;
import io.github.jakartainbox.testing.TestEnv;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.shrinkwrap.api.spec.WebArchive;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.openqa.selenium.By;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.StaleElementReferenceException;
import org.openqa.selenium.TakesScreenshot;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * The operator page at {@code /billing/} in a real headless Chromium (Debian packages {@code chromium} and
 * {@code chromium-driver}), driven by Selenium: logins as reader and operator, figures that follow the events sent,
 * a dead letter re-driven from the page whose invoice then appears, and a reader who gets no re-drive button and
 * whose forged request the API refuses, and key sequences of a consumer with {@code dead-letter.order=key} listed
 * and acted on from the page, their parked events taking effect in order. Writes a screenshot to
 * {@code target/screenshots/operator-page.png}.
 */
@ExtendWith(ArquillianExtension.class)
class OperatorPageIT {

    private static final Duration WAIT = Duration.ofSeconds(90);
    private static final String PAGE = TestEnv.url("/billing/?refresh=1000");
    private static WebDriver browser;
    private final Db db = Db.overJdbc();

    private static final String RUN = UUID.randomUUID().toString().substring(0, 8);
    /** {@link KeyOrderProbe}'s consumer that the page's sequences belong to, with {@code dead-letter.order=key}. */
    private static final String KEYED = KeyOrderProbes.CHANNELS.get(0);

    @Deployment(testable = false)
    static WebArchive deployment() throws Exception {
        return Deployments.billingWithProbes().addAsLibrary(KeyOrderProbes.archive(OperatorPageIT::keyedTopic, ""));
    }

    private static String keyedTopic(String channel) {
        return "it.page." + channel + "." + RUN;
    }

    @BeforeAll
    static void startBrowser() {
        ChromeOptions options = new ChromeOptions();
        options.setBinary(System.getProperty("chromium.binary", "/usr/bin/chromium"));
        // no sandbox: CI runs as root, where Chromium refuses its sandbox
        options.addArguments("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1400,1100");
        ChromeDriverService service = new ChromeDriverService.Builder()
                .usingDriverExecutable(Path.of(System.getProperty("chromedriver", "/usr/bin/chromedriver")).toFile())
                .build();
        browser = new ChromeDriver(service, options);
    }

    @AfterAll
    static void stopBrowser() {
        if (browser != null) {
            browser.quit();
        }
    }

    private static void signIn(Api.User user) {
        browser.manage().deleteAllCookies();
        browser.get(PAGE);
        browser.findElement(By.id("login-user")).sendKeys(user.name());
        browser.findElement(By.id("login-password")).sendKeys(user.password());
        browser.findElement(By.id("login-submit")).click();
        new WebDriverWait(browser, WAIT).until(ExpectedConditions.visibilityOfElementLocated(By.id("dashboard")));
        new WebDriverWait(browser, WAIT).until(d -> !d.findElement(By.id("updated")).getText().equals("never"));
    }

    private static long processed(String consumer) {
        // the page redraws its table at each refresh: a cell found just before a redraw is gone when read
        for (int attempt = 1; ; attempt++) {
            try {
                List<WebElement> cells = browser.findElements(
                        By.cssSelector("#consumers tr[data-consumer='" + consumer + "'] td.processed"));
                return cells.isEmpty() ? -1 : Long.parseLong(cells.get(0).getText());
            } catch (StaleElementReferenceException e) {
                if (attempt == 5) {
                    throw e;
                }
            }
        }
    }

    private static void send(List<Event> events) throws Exception {
        try (KafkaProducer<String, String> producer = SampleEvents.producer(TestEnv.BOOTSTRAP)) {
            SampleEvents.send(producer, TestEnv.ORDERS_TOPIC, events);
        }
    }

    private long deadLetter(String consumer, String eventId, String payload) {
        return db.number("INSERT INTO inbox_dead_letter (consumer, event_id, payload_ref, error, attempts) "
                + "VALUES (?, ?, decode(?, 'hex'), 'simulated failure for the page', 3) RETURNING id", consumer, eventId,
                db.deadLetterPayload(payload));
    }

    @Test
    void aReaderSeesTheFiguresFollowTheEventsSent() throws Exception {
        signIn(Api.READER);
        assertEquals("reader", browser.findElement(By.id("role")).getText());
        long before = Math.max(0, processed("billing"));
        String invoicesBefore = browser.findElement(By.id("invoice-count")).getText();
        send(SampleEvents.events("page-" + UUID.randomUUID().toString().substring(0, 8), 5));
        new WebDriverWait(browser, WAIT).until(d -> processed("billing") >= before + 5);
        assertTrue(processed("billing") >= before + 5, "processed moved by the 5 events sent");
        new WebDriverWait(browser, WAIT).until(d -> !d.findElement(By.id("invoice-count")).getText().equals(invoicesBefore));
        assertTrue(Long.parseLong(browser.findElement(By.id("invoice-count")).getText())
                >= Long.parseLong(invoicesBefore) + 5, "the invoice count follows");
    }

    /**
     * An operator who signs in while the database refuses connections is not taken for a reader: the page says the
     * role is not known yet and reads it again once the API answers, instead of showing "reader" for the rest of the
     * session.
     */
    @Test
    void anOperatorSignedInDuringADatabaseOutageIsAnOperatorOnceItEnds() {
        String database = System.getenv().getOrDefault("DB_NAME", "billing");
        Db admin = Db.overJdbc("postgres");
        admin.execute("ALTER DATABASE " + database + " ALLOW_CONNECTIONS false");
        try {
            admin.number("SELECT count(*) FILTER (WHERE pg_terminate_backend(pid, 10000)) FROM pg_stat_activity "
                    + "WHERE datname = ? AND pid <> pg_backend_pid()", database);
            browser.manage().deleteAllCookies();
            browser.get(PAGE);
            browser.findElement(By.id("login-user")).sendKeys(Api.OPERATOR.name());
            browser.findElement(By.id("login-password")).sendKeys(Api.OPERATOR.password());
            browser.findElement(By.id("login-submit")).click();
            new WebDriverWait(browser, WAIT).until(ExpectedConditions.visibilityOfElementLocated(By.id("dashboard")));
            String role = new WebDriverWait(browser, WAIT).until(d -> {
                String text = d.findElement(By.id("role")).getText();
                return text.isEmpty() ? null : text;
            });
            assertTrue(role.startsWith("role not known yet"), "while the API answers 503: " + role);
            assertFalse(browser.findElement(By.id("dead-letters-reader")).isDisplayed(),
                    "no 'readers cannot see dead letters' while the role is not known");
        } finally {
            admin.execute("ALTER DATABASE " + database + " ALLOW_CONNECTIONS true");
        }
        new WebDriverWait(browser, WAIT).until(ExpectedConditions.textToBe(By.id("role"), "operator"));
        new WebDriverWait(browser, WAIT).until(ExpectedConditions.visibilityOfElementLocated(
                By.id("dead-letters-operator")));
    }

    @Test
    void anOperatorReDrivesADeadLetterFromThePageAndItsInvoiceAppears() throws Exception {
        String eventId = UUID.randomUUID().toString();
        String orderId = "page-redrive-" + eventId.substring(0, 8);
        long id = deadLetter("billing", eventId, SampleEvents.event(eventId, orderId, "42.00", "EUR").json());
        // and one without a usable event id, which the API refuses to re-drive (BILLING0245E)
        long idless = deadLetter("billing", null, "{\"order_id\":\"" + orderId + "-no-id\"}");
        signIn(Api.OPERATOR);
        assertEquals("operator", browser.findElement(By.id("role")).getText());
        By row = By.cssSelector("#dead-letters tr[data-id='" + id + "']");
        String text = new WebDriverWait(browser, WAIT).ignoring(StaleElementReferenceException.class)
                .until(d -> d.findElement(row).getText());
        By idlessRow = By.cssSelector("#dead-letters tr[data-id='" + idless + "']");
        new WebDriverWait(browser, WAIT).ignoring(StaleElementReferenceException.class)
                .until(d -> d.findElement(idlessRow).getText());
        assertTrue(browser.findElement(idlessRow).findElements(By.cssSelector("button.redrive")).isEmpty(),
                "no re-drive button on a dead letter without an event id");
        assertEquals(1, browser.findElement(idlessRow).findElements(By.cssSelector("button.discard")).size(),
                "but a discard button");
        db.number("UPDATE inbox_dead_letter SET discarded_at = now(), resolved_by = 'test' WHERE id = ? RETURNING id",
                idless);
        assertTrue(text.contains("simulated failure for the page"), "the reason: " + text);
        assertTrue(text.contains(orderId), "the payload: " + text);
        // the row's history, behind its toggle: read when opened
        db.number("INSERT INTO inbox_dead_letter_history (dead_letter_id, kind, attempts, error) VALUES (?, 'failed', "
                + "3, 'simulated failure for the page') RETURNING 1", id);
        new WebDriverWait(browser, WAIT).ignoring(StaleElementReferenceException.class).until(d -> {
            d.findElement(row).findElement(By.cssSelector("details.history summary")).click();
            return true;
        });
        String history = new WebDriverWait(browser, WAIT).ignoring(StaleElementReferenceException.class).until(d -> {
            String t = d.findElement(row).findElement(By.cssSelector("details.history ol")).getText();
            return t.contains("failed after 3 attempt(s): simulated failure for the page") ? t : null;
        });
        assertTrue(history.matches("(?s)\\d{4}-\\d{2}-\\d{2}T.*"), "each entry starts with its time: " + history);
        // a few refreshes, so that the rates have a window to show
        new WebDriverWait(browser, WAIT).until(d -> Long.parseLong(d.findElement(By.id("window")).getText()
                .replace(" s", "")) >= 5);
        screenshot("operator-page.png", (TakesScreenshot) browser);
        new WebDriverWait(browser, WAIT).ignoring(StaleElementReferenceException.class).until(d -> {
            d.findElement(row).findElement(By.cssSelector("button.redrive")).click();
            return true;
        });
        new WebDriverWait(browser, WAIT).until(ExpectedConditions.textToBePresentInElementLocated(By.id("action"), "Done"));
        new WebDriverWait(browser, WAIT).until(ExpectedConditions.invisibilityOfElementLocated(row));
        assertEquals(1, db.await(WAIT, n -> n == 1, "SELECT count(*) FROM invoice WHERE order_id = ?", orderId),
                "the re-driven event was invoiced");
        browser.findElement(By.id("order-id")).sendKeys(orderId);
        browser.findElement(By.cssSelector("#invoice-search button")).click();
        new WebDriverWait(browser, WAIT).until(ExpectedConditions.textToBePresentInElementLocated(By.id("invoices"), orderId));
        assertTrue(browser.findElement(By.id("invoices")).getText().contains("EUR"), "its invoice shows on the page");
        // two dead letters resolved within the window: their count fell, its rate counts increases only
        By consumerRow = By.cssSelector("#consumers tr[data-consumer='billing']");
        String before = browser.findElement(By.id("updated")).getText();
        new WebDriverWait(browser, WAIT).until(d -> !d.findElement(By.id("updated")).getText().equals(before));
        List<String> rates = new WebDriverWait(browser, WAIT).ignoring(StaleElementReferenceException.class)
                .until(d -> d.findElement(consumerRow).findElements(By.tagName("td")).stream().skip(5)
                        .map(WebElement::getText).toList());
        assertEquals(4, rates.size(), "four rates: " + rates);
        assertTrue(rates.stream().noneMatch(r -> r.startsWith("-")), "no negative rate: " + rates);
    }

    /**
     * The groups table above the rows: a group of three dead letters with one failure, whose "Discard all" button
     * asks for a confirmation naming the count and then discards the three. A reader sees the group, no button.
     */
    @Test
    void anOperatorDiscardsAGroupFromThePageAfterConfirmingItsCount() throws Exception {
        String failure = "io.github.pagetest.Group" + UUID.randomUUID().toString().replace("-", "").substring(0, 12)
                + "Exception";
        for (int i = 0; i < 3; i++) {
            db.number("INSERT INTO inbox_dead_letter (consumer, event_id, payload_ref, error, attempts) VALUES ('billing', "
                    + "?, decode(?, 'hex'), ?, 1) RETURNING id", UUID.randomUUID().toString(), db.deadLetterPayload("{}"),
                    failure + ": page group " + i);
        }
        By group = By.cssSelector("#dead-letter-groups tr[data-failure='" + failure + "']");

        signIn(Api.READER);
        String readerRow = new WebDriverWait(browser, WAIT).ignoring(StaleElementReferenceException.class)
                .until(d -> d.findElement(group).getText());
        assertTrue(readerRow.contains("billing") && readerRow.contains("3"), "a reader sees the group: " + readerRow);
        assertTrue(browser.findElements(By.cssSelector("#dead-letter-groups button")).isEmpty(),
                "no bulk button for a reader");

        signIn(Api.OPERATOR);
        new WebDriverWait(browser, WAIT).ignoring(StaleElementReferenceException.class).until(d -> {
            d.findElement(group).findElement(By.cssSelector("button.bulk-discard")).click();
            return true;
        });
        var dialog = new WebDriverWait(browser, WAIT).until(ExpectedConditions.alertIsPresent());
        String question = dialog.getText();
        assertTrue(question.contains("Discard all 3 open dead letters of billing failing with " + failure), question);
        dialog.accept();
        new WebDriverWait(browser, WAIT).until(ExpectedConditions.textToBePresentInElementLocated(By.id("action"),
                "Done: discard of billing / " + failure + ": 3 done"));
        new WebDriverWait(browser, WAIT).until(ExpectedConditions.invisibilityOfElementLocated(group));
        assertEquals(3, db.number("SELECT count(*) FROM inbox_dead_letter WHERE error LIKE ? AND discarded_at IS NOT NULL "
                + "AND resolved_by = 'operator'", failure + ":%"), "the three were discarded");
    }

    /**
     * A group whose dead letters have no event id (a record without one, INBOX0210E) offers no re-drive: each would
     * be refused (BILLING0245E). Before, the page offered "Re-drive all" and the bulk call refused every row.
     */
    @Test
    void aGroupWithoutEventIdsOffersItsDiscardOnly() throws Exception {
        String failure = "io.github.pagetest.NoId" + UUID.randomUUID().toString().replace("-", "").substring(0, 12)
                + "Exception";
        db.number("INSERT INTO inbox_dead_letter (consumer, event_id, payload_ref, error, attempts) VALUES ('billing', "
                + "NULL, decode(?, 'hex'), ?, 1) RETURNING id", db.deadLetterPayload("{}"), failure + ": no event id");
        By group = By.cssSelector("#dead-letter-groups tr[data-failure='" + failure + "']");

        signIn(Api.OPERATOR);
        String row = new WebDriverWait(browser, WAIT).ignoring(StaleElementReferenceException.class)
                .until(d -> d.findElement(group).getText());
        assertTrue(row.contains("no event id: discard only"), row);
        assertTrue(browser.findElement(group).findElements(By.cssSelector("button.bulk-redrive")).isEmpty(),
                "no re-drive offered");
        assertEquals(1, browser.findElement(group).findElements(By.cssSelector("button.bulk-discard")).size(),
                "the discard is");
        db.execute("UPDATE inbox_dead_letter SET discarded_at = now(), resolved_by = 'test' WHERE error LIKE '"
                + failure + ":%'");
    }

    @Test
    void aReaderGetsNoReDriveButtonAndTheApiRefusesAForgedRequest() throws Exception {
        String eventId = UUID.randomUUID().toString();
        long id = deadLetter("billing", eventId, "{\"event_id\":\"" + eventId + "\"}");
        try {
            signIn(Api.READER);
            assertTrue(browser.findElements(By.cssSelector("button.redrive")).isEmpty(), "no re-drive button for a reader");
            assertTrue(browser.findElement(By.id("dead-letters-reader")).isDisplayed(), "the reader is told why");
            assertTrue(browser.findElement(By.id("dead-letters-operator")).getAttribute("hidden") != null);
            Object status = ((JavascriptExecutor) browser).executeAsyncScript(
                    "const done = arguments[arguments.length - 1];"
                            + "fetch('api/dead-letters/' + arguments[0] + '/redrive', {method: 'POST', headers: "
                            + "{Authorization: 'Basic ' + btoa(arguments[1] + ':' + arguments[2])}})"
                            + ".then(r => done(r.status), e => done(String(e)));",
                    id, Api.READER.name(), Api.READER.password());
            assertEquals(403L, status, "the API refuses the reader's forged re-drive");
            assertEquals(1, db.number("SELECT count(*) FROM inbox_dead_letter WHERE id = ? AND redriven_at IS NULL", id),
                    "the dead letter stays open");
        } finally {
            db.number("WITH d AS (UPDATE inbox_dead_letter SET discarded_at = now() WHERE id = ? RETURNING 1) "
                    + "SELECT count(*) FROM d", id);
        }
    }

    /**
     * Key sequences on the page, real ones: five keys of {@link #KEYED} whose first event is a poison that heads the
     * key's sequence, their later events parked. A reader is told that sequences are for operators (their keys and
     * reasons quote event data, as dead letters do); the operator sees each as one row (head's reason, parked count,
     * oldest parked age). The operator's re-drive is refused while another server holds the sequence's lease (the
     * page shows {@code BILLING0267E}, not the raw body), then, the poison fixed, applies the key's three events in
     * order; a discarded head lets the two parked behind it take effect in order; a whole discard, once cancelled at
     * its confirmation and then confirmed, processes none; a bulk re-drive of the heads' dead-letter group closes the
     * last two sequences, each in order.
     */
    @Test
    void anOperatorActsOnKeySequencesFromThePageAndTheParkedEventsTakeEffectInOrder() throws Exception {
        String redriven = "page-redrive-" + RUN;
        String headDiscarded = "page-head-" + RUN;
        String discarded = "page-whole-" + RUN;
        String bulkOne = "page-bulk1-" + RUN;
        String bulkTwo = "page-bulk2-" + RUN;
        Map<String, List<String>> ids = new LinkedHashMap<>();
        for (String key : List.of(redriven, headDiscarded, discarded, bulkOne, bulkTwo)) {
            int events = key.startsWith("page-bulk") ? 2 : 3;
            List<String> keyIds = new ArrayList<>();
            for (int i = 0; i < events; i++) {
                keyIds.add(UUID.randomUUID().toString());
            }
            ids.put(key, keyIds);
            db.number("INSERT INTO key_order_poison (event_id) VALUES (?) RETURNING 1", keyIds.get(0));
        }
        try (KafkaProducer<String, String> producer = SampleEvents.producer(TestEnv.BOOTSTRAP)) {
            ids.forEach((key, keyIds) -> {
                for (int seq = 1; seq <= keyIds.size(); seq++) {
                    producer.send(new ProducerRecord<>(keyedTopic(KEYED), key, keyedEvent(keyIds.get(seq - 1), key,
                            seq)));
                }
            });
            producer.flush();
        }
        for (String key : ids.keySet()) {
            long later = ids.get(key).size() - 1;
            assertEquals(later, db.await(WAIT, n -> n == later, PARKED, KEYED, key), key + "'s later events parked");
        }

        signIn(Api.READER);
        assertTrue(browser.findElement(By.id("sequences-reader")).isDisplayed(), "the reader is told why");
        assertFalse(browser.findElement(By.id("sequences-operator")).isDisplayed(),
                "no keys, reasons or buttons for a reader: they quote event data");

        signIn(Api.OPERATOR);
        String row = new WebDriverWait(browser, WAIT).ignoring(StaleElementReferenceException.class)
                .until(d -> d.findElement(sequence(redriven)).getText());
        assertTrue(row.contains(KEYED) && row.contains("poison event " + ids.get(redriven).get(0)),
                "the consumer and the head's reason: " + row);
        assertEquals("2", browser.findElement(sequence(redriven)).findElement(By.cssSelector("td.parked")).getText());
        String age = browser.findElement(sequence(redriven)).findElement(By.cssSelector("td.age")).getText();
        assertTrue(age.matches("\\d+ (s|min \\d+ s)"), "the oldest parked event's age: " + age);
        new WebDriverWait(browser, WAIT).until(ExpectedConditions.visibilityOfElementLocated(
                By.id("sequence-groups-operator")));
        screenshot("operator-page-sequences.png", browser.findElement(By.id("sequences-section")));

        // another server's re-drive holds the lease: refused, shown as the API's message, nothing delivered
        db.number("UPDATE inbox_key_sequence SET redrive_claimed_at = now(), redrive_claimed_by = 'other-server' "
                + "WHERE consumer = ? AND record_key = ? RETURNING 1", KEYED, redriven);
        click(sequence(redriven), "button.seq-redrive");
        String refusal = new WebDriverWait(browser, WAIT).until(d -> {
            String t = d.findElement(By.id("sequence-action")).getText();
            return t.startsWith("Refused") ? t : null;
        });
        assertTrue(refusal.startsWith("Refused: re-drive of the sequence of key " + redriven + " (" + KEYED
                + "): BILLING0267E") && refusal.contains("other-server") && !refusal.contains("{"), refusal);
        assertEquals(0, effects(redriven));
        db.number("UPDATE inbox_key_sequence SET redrive_claimed_at = NULL, redrive_claimed_by = NULL "
                + "WHERE consumer = ? AND record_key = ? RETURNING 1", KEYED, redriven);

        // the poison fixed, a re-drive applies the key's three events in order and closes the sequence
        db.number("DELETE FROM key_order_poison WHERE event_id = ? RETURNING 1", ids.get(redriven).get(0));
        click(sequence(redriven), "button.seq-redrive");
        new WebDriverWait(browser, WAIT).until(ExpectedConditions.textToBe(By.id("sequence-action"), "Done: re-drive "
                + "of the sequence of key " + redriven + " (" + KEYED + "): 3 delivered in order; the sequence is "
                + "closed."));
        assertEquals(List.of("1", "2", "3"), seqs(redriven), "the re-driven key's events in order");
        new WebDriverWait(browser, WAIT).until(ExpectedConditions.invisibilityOfElementLocated(sequence(redriven)));

        // the head discarded after its confirmation: the two behind it take effect, in order
        click(sequence(headDiscarded), "button.seq-discard-head");
        var question = new WebDriverWait(browser, WAIT).until(ExpectedConditions.alertIsPresent());
        assertTrue(question.getText().contains("deliver the 2 parked events behind it"), question.getText());
        question.accept();
        new WebDriverWait(browser, WAIT).until(ExpectedConditions.textToBe(By.id("sequence-action"), "Done: discard "
                + "of the head of the sequence of key " + headDiscarded + " (" + KEYED + "): the head discarded, 2 "
                + "delivered in order; the sequence is closed."));
        assertEquals(List.of("2", "3"), seqs(headDiscarded), "the parked events in order, the head never");
        assertEquals(1, db.number("SELECT count(*) FROM inbox_dead_letter WHERE consumer = ? AND event_id = ? "
                + "AND discarded_at IS NOT NULL", KEYED, ids.get(headDiscarded).get(0)), "the head discarded");

        // a whole discard: cancelled at the confirmation, nothing happens; confirmed, none of the key is processed
        click(sequence(discarded), "button.seq-discard");
        question = new WebDriverWait(browser, WAIT).until(ExpectedConditions.alertIsPresent());
        assertTrue(question.getText().startsWith("Discard the whole sequence of key " + discarded + " of " + KEYED)
                && question.getText().contains("the 2 parked events"), question.getText());
        question.dismiss();
        assertEquals(2, db.number(PARKED, KEYED, discarded), "cancelled: still parked");
        click(sequence(discarded), "button.seq-discard");
        new WebDriverWait(browser, WAIT).until(ExpectedConditions.alertIsPresent()).accept();
        new WebDriverWait(browser, WAIT).until(ExpectedConditions.textToBe(By.id("sequence-action"), "Done: discard "
                + "of the sequence of key " + discarded + " (" + KEYED + "): 3 discarded unprocessed (the head "
                + "included); the sequence is closed."));
        assertEquals(0, effects(discarded), "none of the discarded key processed");
        assertEquals(0, db.number("SELECT count(*) FROM inbox_key_sequence WHERE consumer = ? AND record_key = ?",
                KEYED, discarded), "its sequence closed");

        // the last two heads' dead-letter group, re-driven in bulk once their poison is fixed
        db.number("DELETE FROM key_order_poison WHERE event_id IN (?, ?) RETURNING 1", ids.get(bulkOne).get(0),
                ids.get(bulkTwo).get(0));
        By group = By.cssSelector("#sequence-groups tr[data-consumer='" + KEYED + "']");
        String failure = new WebDriverWait(browser, WAIT).ignoring(StaleElementReferenceException.class)
                .until(d -> d.findElement(group).getAttribute("data-failure"));
        click(group, "button.seq-bulk-redrive");
        new WebDriverWait(browser, WAIT).until(ExpectedConditions.alertIsPresent()).accept();
        String done = new WebDriverWait(browser, WAIT).until(d -> {
            String t = d.findElement(By.id("sequence-action")).getText();
            return t.startsWith("Done: bulk redrive") ? t : null;
        });
        assertTrue(done.startsWith("Done: bulk redrive of the sequences of " + KEYED + " / " + failure
                + ": 2 selected, 2 closed, 0 stopped at a new head, 0 under way elsewhere, 0 refused; 4 event(s) "
                + "delivered"), done);
        assertEquals(List.of("1", "2"), seqs(bulkOne), bulkOne + " in order");
        assertEquals(List.of("1", "2"), seqs(bulkTwo), bulkTwo + " in order");
        new WebDriverWait(browser, WAIT).until(ExpectedConditions.visibilityOfElementLocated(By.id("no-sequences")));
    }

    private static By sequence(String key) {
        return By.cssSelector("#sequences tr[data-key='" + key + "']");
    }

    /** Clicks a button of a row that the page may redraw meanwhile. */
    private static void click(By row, String button) {
        new WebDriverWait(browser, WAIT).ignoring(StaleElementReferenceException.class).until(d -> {
            d.findElement(row).findElement(By.cssSelector(button)).click();
            return true;
        });
    }

    private static final String PARKED = "SELECT count(*) FROM inbox_parked p JOIN inbox_key_sequence s "
            + "ON s.id = p.sequence_id WHERE s.consumer = ? AND s.record_key = ? AND p.dead_letter_id IS NULL";

    private long effects(String key) {
        return db.number("SELECT count(*) FROM key_order_effect WHERE consumer = ? AND record_key = ?", KEYED, key);
    }

    private List<String> seqs(String key) {
        return db.texts("SELECT seq::text FROM key_order_effect WHERE consumer = ? AND record_key = ? ORDER BY id",
                KEYED, key);
    }

    private static String keyedEvent(String eventId, String key, int seq) {
        return "{\"event_id\":\"" + eventId + "\",\"key\":\"" + key + "\",\"seq\":" + seq + "}";
    }

    /**
     * The page, or one of its sections, as an operator sees it, for docs/observability.md (copied to docs/ by hand).
     *
     * @param name   the file's name in {@code target/screenshots}
     * @param source the browser for the whole window, or an element for its section
     */
    private static void screenshot(String name, TakesScreenshot source) throws Exception {
        Path file = Path.of("target", "screenshots", name);
        Files.createDirectories(file.getParent());
        Files.copy(source.getScreenshotAs(OutputType.FILE).toPath(), file, StandardCopyOption.REPLACE_EXISTING);
    }
}
