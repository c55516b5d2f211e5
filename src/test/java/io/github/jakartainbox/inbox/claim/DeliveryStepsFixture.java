package io.github.jakartainbox.inbox.claim;

import io.github.jakartainbox.inbox.InboxStatistics;

/** {@link DeliverySteps} outside a container, for the delivery paths' unit tests in other packages. */
public final class DeliveryStepsFixture {

    private DeliveryStepsFixture() {
    }

    /**
     * @param statistics where the steps count skipped duplicates, retries and waits
     * @return the steps
     */
    public static DeliverySteps steps(InboxStatistics statistics) {
        DeliverySteps steps = new DeliverySteps();
        steps.statistics = statistics;
        return steps;
    }
}
