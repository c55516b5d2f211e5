/**
 * Retention: the purge of old inbox rows, monthly partitions' upkeep, and the check of the inbox's retention
 * against the broker's.
 */
package io.github.jakartainbox.inbox.retention;
