/**
 * Readiness checks (MicroProfile Health): the inbox database and the idempotent channels.
 */
package io.github.jakartainbox.inbox.health;
