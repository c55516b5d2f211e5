/**
 * The inbox: an idempotent consumer for Jakarta EE. Annotate a message-driven method with {@link
 * io.github.jakartainbox.inbox.Idempotent}; in the same JTA transaction as the method's work, the inbox inserts
 * {@code (consumer, event_id)} into table {@code inbox}, and a delivery whose row exists is skipped.
 *
 * <p>Which file to open for what:
 * <ul>
 *   <li>the binding and what it checks at deployment: {@code Idempotent}, {@code IdempotentExtension};</li>
 *   <li>one delivery, from claim to acknowledgement: {@code IdempotentInterceptor}, {@code Delivery},
 *       {@code DeferredAckMessage} (the {@code Message<T>} a method receives);</li>
 *   <li>message-driven beans ({@code onMessage(jakarta.jms.Message)}, Jakarta Messaging): {@code JmsDeliveries}
 *       (claim in the bean's transaction, redelivery, dead letters), {@code JmsMessages} (the only class naming
 *       Jakarta Messaging types);</li>
 *   <li>the claim statement: {@code InboxClaim};</li>
 *   <li>grouped Kafka delivery (connector {@code inbox-kafka}: several records per transaction, offsets past
 *       transaction markers): {@link io.github.jakartainbox.inbox.kafka.InboxKafkaConnector} (attributes, checks),
 *       {@code InboxKafkaChannel} (the poll loop, groups, offsets, rebalance), {@code KafkaRecordMessage} (the
 *       messages it emits), {@code DeliveryGroup} (how the interceptor knows it runs in a group);</li>
 *   <li>event ids, their rules and where they are read from: {@code EventIds}, {@code EventIdSource} and its
 *       implementations ({@code PayloadFieldEventIdSource}, {@code KafkaHeaderEventIdSource},
 *       {@code BeanEventIdSource}, {@code JmsPropertyEventIdSource}, {@code JmsMessageIdEventIdSource}), the SPI {@link io.github.jakartainbox.inbox.spi.EventIdExtractor};</li>
 *   <li>the failure policy (retry, wait out an outage or a transient error, dead-letter):
 *       {@code FailurePolicy}, {@code FailureKind}, {@code RetryPolicy};</li>
 *   <li>dead letters: {@code DeadLetterStore} (written by the interceptor) and {@link
 *       io.github.jakartainbox.inbox.deadletter.InboxDeadLetters} (read, re-drive, discard);</li>
 *   <li>retention purge: {@link io.github.jakartainbox.inbox.retention.InboxPurge}, {@code InboxPurgeTimer},
 *       {@code PurgeStatements};</li>
 *   <li>monthly partitions: {@code EventMonths}, {@code EventTimeSource}, and the migrations in
 *       {@code io/github/jakartainbox/inbox/db/migration-monthly};</li>
 *   <li>configuration, every key with its default: {@link io.github.jakartainbox.inbox.InboxConfig};</li>
 *   <li>log lines and error texts with their ids: {@code InboxMessage};</li>
 *   <li>figures for operators: {@link io.github.jakartainbox.inbox.InboxStatistics};</li>
 *   <li>the tables: {@code InboxDatabase} and the migrations in {@code io/github/jakartainbox/inbox/db/migration};</li>
 *   <li>the start-up checks for two-phase commit (XA) and a deferrable inbox key: {@code TwoPhaseCheck}.</li>
 * </ul>
 *
 * <p>Public types are the API; everything else is package-private and may change.
 */
package io.github.jakartainbox.inbox;
