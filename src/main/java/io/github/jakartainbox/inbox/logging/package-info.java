/**
 * The inbox's log messages and their ids (docs/messages.md).
 */
package io.github.jakartainbox.inbox.logging;
