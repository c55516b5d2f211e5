package io.github.jakartainbox.testing.probes;

import java.nio.charset.StandardCharsets;
import org.apache.kafka.common.errors.SerializationException;
import org.apache.kafka.common.serialization.Deserializer;

/**
 * The value deserializer of the test channel "probe-health": a record whose value is {@value #POISON} cannot be
 * deserialized, so the Kafka consumer's poll fails and liberty-kafka shuts the channel down (CWMRX1002E, then
 * SRMSG00201), as a real broken channel would.
 */
public class FailingDeserializer implements Deserializer<String> {

    /** The value that fails. */
    public static final String POISON = "undeserializable";

    @Override
    public String deserialize(String topic, byte[] data) {
        String value = data == null ? null : new String(data, StandardCharsets.UTF_8);
        if (POISON.equals(value)) {
            throw new SerializationException("test record that cannot be deserialized on " + topic);
        }
        return value;
    }
}
