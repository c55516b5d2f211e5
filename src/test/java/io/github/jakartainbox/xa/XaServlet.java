package io.github.jakartainbox.xa;

import jakarta.annotation.Resource;
import jakarta.inject.Inject;
import jakarta.jms.ConnectionFactory;
import jakarta.jms.JMSContext;
import jakarta.jms.Queue;
import jakarta.jms.QueueBrowser;
import jakarta.servlet.annotation.WebServlet;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Collections;

/**
 * The XA tests' entry point: {@code POST /xa/ledger?fault=...} and {@code POST /xa/jms?fault=...} with the event
 * as body call the consumers of {@link XaLedger} (no transaction is active: the inbox begins one per attempt);
 * {@code GET /xa/queue?event_id=...} counts the committed messages of queue {@code ledger.booked} with that event id
 * (a browser, which consumes nothing). {@code POST /xa/bench?consumer=...&n=...&run=...} processes {@code n} new
 * events one after the other and answers the elapsed nanoseconds (the benchmark).
 */
@WebServlet("/xa/*")
public class XaServlet extends HttpServlet {

    @Inject
    XaLedger ledger;
    @Resource(lookup = "jms/xaFactory")
    ConnectionFactory factory;
    @Resource(lookup = "jms/ledgerBooked")
    Queue booked;

    @Override
    protected void doPost(HttpServletRequest request, HttpServletResponse response) throws IOException {
        String path = request.getPathInfo();
        try {
            if ("/bench".equals(path)) {
                int n = Integer.parseInt(request.getParameter("n"));
                String run = request.getParameter("run");
                boolean jms = "xa-jms".equals(request.getParameter("consumer"));
                long start = System.nanoTime();
                for (int i = 0; i < n; i++) {
                    String json = "{\"event_id\":\"" + run + "-" + i + "\",\"order_id\":\"" + run + "-" + i + "\"}";
                    if (jms) {
                        ledger.notify(json, XaLedger.Fault.NONE);
                    } else {
                        ledger.book(json, XaLedger.Fault.NONE);
                    }
                }
                answer(response, 200, String.valueOf(System.nanoTime() - start));
                return;
            }
            String json = new String(request.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            XaLedger.Fault fault = XaLedger.Fault.valueOf(request.getParameter("fault") == null ? "NONE"
                    : request.getParameter("fault"));
            String result = switch (path) {
                case "/ledger" -> ledger.book(json, fault);
                case "/jms" -> ledger.notify(json, fault);
                default -> throw new IllegalArgumentException("no such path " + path);
            };
            answer(response, 200, result == null ? "skipped" : result);
        } catch (Exception e) {
            answer(response, 500, e.toString());
        }
    }

    @Override
    protected void doGet(HttpServletRequest request, HttpServletResponse response) throws IOException {
        String eventId = request.getParameter("event_id");
        try (JMSContext context = factory.createContext();
             QueueBrowser browser = context.createBrowser(booked, "event_id = '" + eventId.replace("'", "''") + "'")) {
            answer(response, 200, String.valueOf(Collections.list(browser.getEnumeration()).size()));
        } catch (Exception e) {
            answer(response, 500, e.toString());
        }
    }

    private static void answer(HttpServletResponse response, int status, String text) throws IOException {
        response.setStatus(status);
        response.setContentType("text/plain;charset=UTF-8");
        response.getWriter().write(text);
    }
}
