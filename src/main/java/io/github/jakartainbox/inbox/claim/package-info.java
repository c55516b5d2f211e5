/**
 * The claim: a delivery's key (event id, fingerprint, month), its row in table {@code inbox}, inserted in the
 * caller's JTA transaction, one at a time or for a group of records, and the steps every path takes around it.
 */
package io.github.jakartainbox.inbox.claim;
