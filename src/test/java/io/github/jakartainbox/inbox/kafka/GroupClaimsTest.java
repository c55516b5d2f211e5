package io.github.jakartainbox.inbox.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;

import io.github.jakartainbox.inbox.claim.InboxClaim;
import io.github.jakartainbox.inbox.incoming.Delivery;
import java.util.List;
import org.eclipse.microprofile.reactive.messaging.Message;
import org.junit.jupiter.api.Test;

/**
 * A group's delivery reuses the event id, fingerprint and month read ahead only when it is, by reference, the very
 * message and payload read then; anything else (a converter's new payload, another message) reads its own.
 */
class GroupClaimsTest {

    private static final String JSON = "{\"event_id\":\"1f0c3e5e-6a3b-4f0e-9a3e-0c6f1f2a3b4c\"}";

    private static GroupClaims readAhead(Delivery... predicted) {
        List<InboxClaim.Claim> claims = java.util.Arrays.stream(predicted)
                .map(d -> new InboxClaim.Claim("id-of-" + d.payload(), d.fingerprint(), null)).toList();
        InboxClaim.Result[] results = new InboxClaim.Result[predicted.length];
        java.util.Arrays.fill(results, InboxClaim.Result.NEW);
        return new GroupClaims(null, "c", claims, results, List.of(predicted));
    }

    @Test
    void theSamePayloadObjectOfAPayloadMethodTakesTheReadAhead() {
        String payload = new String(JSON);
        GroupClaims group = readAhead(new Delivery(payload, null, -1));
        InboxClaim.Claim claim = group.readAheadFor(0, new Delivery(payload, null, -1));
        assertEquals("id-of-" + payload, claim.eventId());
    }

    @Test
    void anEqualButOtherPayloadObjectReadsItsOwn() {
        GroupClaims group = readAhead(new Delivery(new String(JSON), null, -1));
        assertNull(group.readAheadFor(0, new Delivery(new String(JSON), null, -1)),
                "a converter made a new payload: it is read again, and checked against the read-ahead");
    }

    @Test
    void theSameMessageTakesTheReadAheadAnotherMessageWithTheSamePayloadDoesNot() {
        byte[] payload = JSON.getBytes(java.nio.charset.StandardCharsets.UTF_8);
        Message<byte[]> message = Message.of(payload);
        GroupClaims group = readAhead(new Delivery(payload, message, 0));
        assertSame(group.readAheadFor(0, new Delivery(payload, message, 0)),
                group.readAheadFor(0, new Delivery(payload, message, 0)));
        assertEquals("id-of-" + payload, group.readAheadFor(0, new Delivery(payload, message, 0)).eventId());
        assertNull(group.readAheadFor(0, new Delivery(payload, Message.of(payload), 0)),
                "another message object may carry other metadata (a header event id): read again");
    }

    @Test
    void eachPositionHasItsOwnReadAheadAndANullPayloadNone() {
        String first = new String(JSON);
        String second = new String(JSON);
        GroupClaims group = readAhead(new Delivery(first, null, -1), new Delivery(second, null, -1),
                new Delivery(null, null, -1));
        assertNull(group.readAheadFor(0, new Delivery(second, null, -1)), "position 0 was read from the first");
        assertEquals("id-of-" + second, group.readAheadFor(1, new Delivery(second, null, -1)).eventId());
        assertNull(group.readAheadFor(2, new Delivery(null, null, -1)));
    }

    @Test
    void aParkedRecordsClaimIsGivenBackAndItsDeadLettersLeftOpen() throws Exception {
        List<String> released = new java.util.ArrayList<>();
        List<String> resolved = new java.util.ArrayList<>();
        InboxClaim inbox = new InboxClaim() {
            @Override
            public void release(String consumer, List<InboxClaim.Claim> claims) {
                claims.forEach(c -> released.add(c.eventId()));
            }

            @Override
            public void resolveDeadLetters(String consumer, List<InboxClaim.Claim> claims) {
                claims.forEach(c -> resolved.add(c.eventId()));
            }
        };
        List<InboxClaim.Claim> claims = List.of(new InboxClaim.Claim("a1", null, null),
                new InboxClaim.Claim("k2", null, null), new InboxClaim.Claim("a3", null, null));
        InboxClaim.Result[] results = {InboxClaim.Result.NEW, InboxClaim.Result.NEW, InboxClaim.Result.NEW};
        GroupClaims group = new GroupClaims(inbox, "c", claims, results, List.of(new Delivery("1", null, -1),
                new Delivery("2", null, -1), new Delivery("3", null, -1)));
        group.parked(1); // parked behind its key's dead letter: not processed in this group
        group.beforeCommit(3);
        assertEquals(List.of("k2"), released, "its inbox row would say processed: given back");
        assertEquals(List.of("a1", "a3"), resolved);
    }
}
