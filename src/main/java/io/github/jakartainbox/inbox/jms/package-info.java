/**
 * Message-driven beans (Jakarta Messaging): the claim in the bean's transaction, event ids from JMS properties; the
 * only package naming Jakarta Messaging types.
 */
package io.github.jakartainbox.inbox.jms;
