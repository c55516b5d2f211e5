package io.github.jakartainbox.inbox.spi;

/**
 * CDI event fired by the purge timer after each scheduled run of the retention purge, on the timer's thread and
 * outside any transaction: {@code void onPurge(@Observes PurgeCompleted run)}. An observer must not throw (the run
 * is over; what it throws is logged as a purge failure) and should return quickly: the next run waits for it.
 *
 * @param ran   whether this server ran the purge ({@code false} when another server held the purge lease)
 * @param error why the run failed, {@code null} when it succeeded or did not run
 */
public record PurgeCompleted(boolean ran, String error) {
}
