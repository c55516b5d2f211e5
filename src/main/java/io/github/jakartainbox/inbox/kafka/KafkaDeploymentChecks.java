package io.github.jakartainbox.inbox.kafka;

import io.github.jakartainbox.inbox.consumer.IdempotentChannels;
import io.github.jakartainbox.inbox.delivery.IdempotentExtension;
import io.github.jakartainbox.inbox.logging.InboxLog;
import io.github.jakartainbox.inbox.logging.InboxMessage;
import jakarta.enterprise.event.Observes;
import jakarta.enterprise.inject.spi.AfterDeploymentValidation;
import jakarta.enterprise.inject.spi.BeanManager;
import jakarta.enterprise.inject.spi.DeploymentException;
import jakarta.enterprise.inject.spi.Extension;
import java.lang.reflect.Method;
import java.util.List;
import org.eclipse.microprofile.config.Config;
import org.eclipse.microprofile.config.ConfigProvider;

/**
 * The Kafka capability's deployment checks of the {@code @Idempotent} methods that {@link IdempotentExtension}
 * found: a {@code concurrency} channel without a {@code topic} fails the deployment (INBOX0609E), and so does an
 * {@code inbox-kafka} channel in groups whose method is neither {@code @Idempotent} nor {@code @Transactional}
 * (INBOX0621E); a channel that
 * reads uncommitted records (INBOX0012W) and a Kafka client with a known unsafe version (INBOX0014W) are warned of.
 */
public class KafkaDeploymentChecks implements Extension {

    void check(@Observes AfterDeploymentValidation event, BeanManager beans) {
        IdempotentExtension idempotent = beans.getExtension(IdempotentExtension.class);
        Config config = ConfigProvider.getConfig();
        for (List<Method> methods : idempotent.methodsByConsumer().values()) {
            KafkaIsolationCheck.concurrencyWithoutTopic(config, methods).forEach(channel -> {
                String problem = KafkaMessage.INBOX0609E.format(channel);
                InboxLog.LOG.severe(problem); // its own line, besides the deployment failure that carries it
                event.addDeploymentProblem(new DeploymentException(problem));
            });
        }
        IdempotentChannels channels = beans.getExtension(IdempotentChannels.class);
        java.util.Set<String> ownTransaction = new java.util.TreeSet<>(channels.consumerByChannel().keySet());
        ownTransaction.addAll(channels.transactionalChannels());
        KafkaIsolationCheck.inboxKafkaWithoutInbox(config, channels.incomingChannels(), ownTransaction)
                .forEach(found -> {
                    String problem = KafkaMessage.INBOX0621E.format(found.channel(), found.maxGroupSize());
                    InboxLog.LOG.severe(problem);
                    event.addDeploymentProblem(new DeploymentException(problem));
                });
        for (List<Method> methods : idempotent.methodsByConsumer().values()) {
            KafkaIsolationCheck.readUncommitted(config, methods).forEach(f -> InboxMessage.INBOX0012W.log(
                    f.method().getDeclaringClass().getName() + "." + f.method().getName(), f.channel(),
                    f.isolationLevel()));
        }
        java.util.Set<String> messageDriven = new java.util.HashSet<>();
        idempotent.methodsByConsumer().forEach((consumer, methods) -> {
            if (methods.stream().anyMatch(m -> io.github.jakartainbox.inbox.incoming.Delivery.jmsParameterIndex(m) >= 0)) {
                messageDriven.add(consumer);
            }
        });
        orderByKey(config, idempotent.methodsByConsumer().keySet(), channels.consumerByChannel(), messageDriven)
                .forEach(problem -> {
                    InboxLog.LOG.severe(problem);
                    event.addDeploymentProblem(new DeploymentException(problem));
                });
        String kafka = KafkaClientVersion.present();
        if (kafka != null && !KafkaClientVersion.safe(kafka)) {
            InboxMessage.INBOX0014W.log(kafka, KafkaClientVersion.SAFE);
        }
    }

    /**
     * Dead-letter order by key is kept by {@code inbox-kafka} channels in classic groups and by message-driven beans
     * (the {@code jms} package parks by a JMS property): a share group spreads a key's records over its consumers
     * (INBOX0626E), another connector, or a method that reads neither a channel nor a JMS message, does not park
     * (INBOX0627E).
     *
     * @param config        the application's configuration
     * @param consumers     the {@code @Idempotent} consumer names of the annotations
     * @param channels      channel name to the consumer name of its method
     * @param messageDriven the consumer names (of the annotations) whose method takes a JMS message
     * @return one problem per consumer that sets {@code dead-letter.order=key} where it is not kept
     */
    static java.util.List<String> orderByKey(Config config, java.util.Collection<String> consumers,
                                             java.util.Map<String, String> channels,
                                             java.util.Set<String> messageDriven) {
        java.util.List<String> problems = new java.util.ArrayList<>();
        for (String consumer : consumers) {
            String order;
            try {
                order = io.github.jakartainbox.inbox.InboxConfig.DEAD_LETTER_ORDER.get(config, consumer);
            } catch (IllegalStateException e) {
                continue; // a wrong value: the inbox's own check names it (INBOX0004E)
            }
            if (!order.equals("key")) {
                continue;
            }
            boolean any = false;
            for (java.util.Map.Entry<String, String> channel : channels.entrySet()) {
                if (!channel.getValue().equals(consumer)) {
                    continue;
                }
                any = true;
                String connector = IdempotentChannels.attribute(config, channel.getKey(), "connector").orElse("");
                String type = IdempotentChannels.attribute(config, channel.getKey(), "group.type").orElse("classic");
                if (!connector.trim().equals(InboxKafkaConnector.NAME)) {
                    problems.add(KafkaMessage.INBOX0627E.format(consumer, "channel " + channel.getKey()
                            + " uses connector " + (connector.isBlank() ? "(none)" : connector.trim())));
                } else if (type.trim().equalsIgnoreCase("share")) {
                    problems.add(KafkaMessage.INBOX0626E.format(consumer, channel.getKey()));
                }
            }
            if (!any && !messageDriven.contains(consumer)) {
                problems.add(KafkaMessage.INBOX0627E.format(consumer, "it reads neither a Reactive Messaging "
                        + "channel nor a JMS message"));
            }
        }
        return problems;
    }
}
