/**
 * A test kit for teams whose consumers use {@code @Idempotent}: {@link io.github.jakartainbox.testkit.IdempotencyCheck}
 * delivers one event many times (in a row, concurrently, around a crash) through the team's own channel or queue and
 * asserts that the state the team names is the state after one delivery, with the inbox's figures saying why.
 * Usable in an Arquillian test on the server ({@link io.github.jakartainbox.testkit.InboxFigures#inContainer}) and
 * in a plain integration test outside it ({@link io.github.jakartainbox.testkit.InboxFigures#overJdbc}). It throws
 * {@link java.lang.AssertionError}, which JUnit 5 reports as a failure; it needs no test framework of its own.
 */
package io.github.jakartainbox.testkit;
