/**
 * What a delivery is, below everything that handles one: the {@code Delivery} value (the method's payload, its
 * message, a message-driven bean's JMS message), the re-drive aim a re-driven Kafka record carries, and the
 * settlement a transport that counts deliveries hears ({@code TransportSettlement}).
 */
package io.github.jakartainbox.inbox.incoming;
