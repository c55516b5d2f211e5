/**
 * The {@code inbox-kafka} connector: the poll loop, groups of records in one JTA transaction, offsets kept in the
 * database and committed to Kafka.
 */
package io.github.jakartainbox.inbox.kafka;
