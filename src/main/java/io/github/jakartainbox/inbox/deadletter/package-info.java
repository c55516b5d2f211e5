/**
 * Dead letters: written when a delivery gives up, read, re-driven and discarded by operators.
 */
package io.github.jakartainbox.inbox.deadletter;
