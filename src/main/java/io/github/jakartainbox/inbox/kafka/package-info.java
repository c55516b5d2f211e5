/**
 * The {@code inbox-kafka} connector: the poll loop, groups of records in one JTA transaction, offsets kept in the
 * database and committed to Kafka. One channel is {@code InboxKafkaChannel} (the publisher), {@code PollLoop},
 * {@code GroupTransaction}, {@code PartitionOffsets}, {@code KafkaCommits}, {@code OffsetRows} and
 * {@code LostCommits} (docs/architecture.md).
 */
package io.github.jakartainbox.inbox.kafka;
