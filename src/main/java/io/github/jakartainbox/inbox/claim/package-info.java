/**
 * The claim: one delivery's row in table {@code inbox}, inserted in the caller's JTA transaction, one at a time or
 * for a group of records.
 */
package io.github.jakartainbox.inbox.claim;
