package io.github.jakartainbox.inbox.delivery;

import io.github.jakartainbox.inbox.InboxStatistics;
import io.github.jakartainbox.inbox.claim.DeliverySteps;
import io.github.jakartainbox.inbox.claim.InboxClaim;
import io.github.jakartainbox.inbox.spi.DeliveryOutcome;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;

/**
 * A delivery inside a transaction its caller owns (an EJB's, a caller's own): the claim joins it; every failure
 * goes to the caller, whose transaction rolls back, and acknowledging is the caller's too.
 */
@ApplicationScoped
public class CallerTransactionPath implements DeliveryPath {

    @Inject
    InboxClaim inbox;
    @Inject
    InboxStatistics statistics;
    @Inject
    DeliverySteps steps;
    @Inject
    RedriveAims aims;
    /** Writes the dead letter of a payload that differs from the processed one, in a transaction of its own. */
    @Inject
    OwnTransactionPath own;

    @Override
    public Object deliver(DeliveryCall call) throws Exception {
        String consumer = call.consumer().name();
        if (aims.aimedElsewhere(call, true)) {
            statistics.redriveForOtherSkipped(consumer);
            return call.notCalled(); // acknowledged, as a skipped duplicate is here, by the transaction's owner
        }
        String eventId = call.key().eventId();
        call.span().eventId(eventId);
        InboxClaim.Claim key = call.key().claim();
        InboxClaim.Result claim = inbox.claim(consumer, eventId, key.fingerprint(), key.month());
        if (claim != InboxClaim.Result.NEW) {
            call.span().outcome(steps.skipped(call.consumer(), eventId, claim, own.deadLetters(call)), null);
            return call.notCalled();
        }
        Object result = call.context().proceed();
        // as far as the inbox knows: the caller's transaction commits
        call.span().outcome(DeliveryOutcome.PROCESSED, null);
        return result;
    }
}
