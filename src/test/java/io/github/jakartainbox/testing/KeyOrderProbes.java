package io.github.jakartainbox.testing;

import io.github.jakartainbox.inbox.kafka.KeyOrderProbe;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.jboss.shrinkwrap.api.ShrinkWrap;
import org.jboss.shrinkwrap.api.asset.EmptyAsset;
import org.jboss.shrinkwrap.api.asset.StringAsset;
import org.jboss.shrinkwrap.api.spec.JavaArchive;

/**
 * {@link KeyOrderProbe}'s consumers for a deployment: both channels on {@code inbox-kafka} with
 * {@code dead-letter.order=key} and one attempt (a poison event heads its key's sequence at once), each reading a
 * topic of one partition made here, and the probe's tables ({@code key_order_effect}, {@code key_order_poison}).
 */
public final class KeyOrderProbes {

    /** The probe's channels, which are also its consumers' names. */
    public static final List<String> CHANNELS = List.of("probe-key-grouped", "probe-key-single");

    private KeyOrderProbes() {
    }

    /**
     * Makes the topics and tables and returns the library jar to add to the WAR.
     *
     * @param topic      the topic of a channel, also its consumer group's name after {@code it-}
     * @param moreConfig further lines of MicroProfile Config, each ending with a newline; empty for none
     * @return the jar holding the probe and its configuration
     * @throws Exception when a topic cannot be made (one of that name exists) or the database cannot be reached
     */
    public static JavaArchive archive(UnaryOperator<String> topic, String moreConfig) throws Exception {
        StringBuilder config = new StringBuilder();
        List<NewTopic> topics = new ArrayList<>();
        for (String channel : CHANNELS) {
            String p = "mp.messaging.incoming." + channel + ".";
            config.append(p).append("connector=inbox-kafka\n")
                    .append(p).append("topic=").append(topic.apply(channel)).append('\n')
                    .append(p).append("group.id=it-").append(topic.apply(channel)).append('\n')
                    .append(p).append("bootstrap.servers=").append(TestEnv.BOOTSTRAP).append('\n')
                    .append(p).append("key.deserializer=").append(StringDeserializer.class.getName()).append('\n')
                    .append(p).append("value.deserializer=").append(StringDeserializer.class.getName()).append('\n')
                    .append(p).append("auto.offset.reset=earliest\n")
                    .append("inbox.consumer.").append(channel).append(".dead-letter.order=key\n")
                    .append("inbox.consumer.").append(channel).append(".retry.max-attempts=1\n");
            topics.add(new NewTopic(topic.apply(channel), 1, (short) 1));
        }
        config.append(moreConfig);
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, TestEnv.BOOTSTRAP))) {
            admin.createTopics(topics).all().get();
        }
        Db db = Db.overJdbc();
        db.execute("CREATE TABLE IF NOT EXISTS key_order_effect (id bigint GENERATED ALWAYS AS IDENTITY, "
                + "consumer text NOT NULL, record_key text NOT NULL, seq integer NOT NULL, event_id text NOT NULL)");
        db.execute("CREATE TABLE IF NOT EXISTS key_order_poison (event_id text PRIMARY KEY)");
        return ShrinkWrap.create(JavaArchive.class, "key-order-probes.jar")
                .addClass(KeyOrderProbe.class)
                .addAsManifestResource(EmptyAsset.INSTANCE, "beans.xml")
                .addAsManifestResource(new StringAsset(config.toString()), "microprofile-config.properties");
    }
}
