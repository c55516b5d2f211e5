/**
 * The inbox's API: an idempotent consumer for Jakarta EE. Annotate a message-driven method with {@link
 * io.github.jakartainbox.inbox.Idempotent}; in the same JTA transaction as the method's work, the inbox inserts
 * {@code (consumer, event_id)} into table {@code inbox}, and a delivery whose row exists is skipped.
 *
 * <p>The API is this package, {@code spi}, {@code text}, and the operator types named in docs/using-the-library.md
 * ("Public types"). The other packages hold one capability each (docs/architecture.md); their public types are public
 * for sibling packages and may change.
 */
package io.github.jakartainbox.inbox;
