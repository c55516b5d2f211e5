package io.github.jakartainbox.inbox.delivery;

import io.github.jakartainbox.inbox.Idempotent;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import jakarta.ejb.TransactionAttribute;
import jakarta.ejb.TransactionAttributeType;
import jakarta.transaction.Transactional;
import java.lang.reflect.Method;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Flow;
import org.eclipse.microprofile.reactive.messaging.Acknowledgment;
import org.eclipse.microprofile.reactive.messaging.Message;
import org.junit.jupiter.api.Test;

/** The deployment-time checks of {@code @Idempotent} methods. */
class IdempotentExtensionTest {

    interface SpecialMessage<T> extends Message<T> {
    }

    @SuppressWarnings("unused")
    static class Consumers {
        @Idempotent(consumer = "billing")
        public void payload(String value) {
        }

        @Idempotent(consumer = "billing")
        public CompletionStage<Void> message(Message<String> message) {
            return message.ack();
        }

        @Idempotent(consumer = "billing")
        @Transactional(Transactional.TxType.REQUIRED)
        public void alsoTransactional(String value) {
        }

        @Idempotent(consumer = "billing")
        public void noParameter() {
        }

        @Idempotent(consumer = "billing")
        public boolean primitive(String value) {
            return true;
        }

        @Idempotent(consumer = "billing")
        public Flow.Publisher<String> reactive(String value) {
            return null;
        }

        @Idempotent(consumer = "billing")
        @Transactional(Transactional.TxType.REQUIRES_NEW)
        public void requiresNew(String value) {
        }

        @Idempotent(consumer = "billing")
        @TransactionAttribute(TransactionAttributeType.NOT_SUPPORTED)
        public void notSupported(String value) {
        }

        @Idempotent(consumer = "billing")
        @Acknowledgment(Acknowledgment.Strategy.PRE_PROCESSING)
        public void preProcessing(String value) {
        }

        @Idempotent(consumer = "billing")
        public CompletionStage<Void> specialMessage(SpecialMessage<String> message) {
            return null;
        }

        @Idempotent(consumer = "bad name!")
        public void badName(String value) {
        }
    }

    private static List<String> problems(String methodName) {
        Method method = Arrays.stream(Consumers.class.getMethods()).filter(m -> m.getName().equals(methodName))
                .findFirst().orElseThrow();
        return IdempotentExtension.check(Consumers.class, method, method.getAnnotation(Idempotent.class));
    }

    private static void assertRejected(String methodName, String reason) {
        List<String> found = problems(methodName);
        assertEquals(1, found.size(), found.toString());
        assertTrue(found.get(0).contains(reason), found.get(0));
    }

    @Test
    void supportedSignaturesPass() {
        assertEquals(List.of(), problems("payload"));
        assertEquals(List.of(), problems("message"));
        assertEquals(List.of(), problems("alsoTransactional"));
    }

    @Test
    void signaturesThatCannotBeMadeAtomicAreRejected() {
        assertRejected("noParameter", "takes no parameter");
        assertRejected("primitive", "returns boolean");
        assertRejected("reactive", "could outlive the inbox transaction");
        assertRejected("specialMessage", "declare the message parameter as Message<T>");
    }

    @Test
    void transactionAttributesThatSeparateClaimAndWorkAreRejected() {
        assertRejected("requiresNew", "@Transactional(REQUIRES_NEW) would separate the inbox claim");
        assertRejected("notSupported", "@TransactionAttribute(NOT_SUPPORTED)");
        assertRejected("preProcessing", "PRE_PROCESSING");
    }

    @Test
    void invalidConsumerNameIsRejected() {
        assertRejected("badName", "consumer 'bad name!' is not a valid consumer name");
    }

    @Test
    void twoConsumersStoredUnderOneNameAreAProblemNamingBoth() throws Exception {
        Method a = getClass().getDeclaredMethod("twoConsumersStoredUnderOneNameAreAProblemNamingBoth");
        Method b = getClass().getDeclaredMethod("supportedSignaturesPass");
        Map<String, List<Method>> methods = new TreeMap<>(Map.of(
                "analytics", List.of(a), "billing", List.of(b)));
        List<String> problems = IdempotentExtension.sharedStoredNames(
                new TreeMap<>(Map.of("analytics", "orders", "billing", "orders")), methods);
        assertEquals(1, problems.size(), problems.toString());
        String problem = problems.get(0);
        assertTrue(problem.startsWith("INBOX0007E: ") && problem.contains("'analytics'")
                && problem.contains("'billing'") && problem.contains("twoConsumersStoredUnderOneName")
                && problem.contains("supportedSignaturesPass") && problem.contains("'orders'"), problem);
        assertEquals(List.of(), IdempotentExtension.sharedStoredNames(
                Map.of("analytics", "analytics", "billing", "billing"), methods));
    }
}
