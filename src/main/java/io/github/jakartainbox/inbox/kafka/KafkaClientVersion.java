package io.github.jakartainbox.inbox.kafka;

/**
 * The {@code kafka-clients} version the application carries, against the lowest one that is safe with this library:
 * before 4.4.0 an offset commit interrupted by a broker restart could throw {@code WakeupException} out of the
 * consumer (KAFKA-20232), and {@code liberty-kafka} then stops the channel until the server restarts.
 */
public final class KafkaClientVersion {

    /** The lowest safe version. */
    public static final String SAFE = "4.4.0";

    private KafkaClientVersion() {
    }

    /**
     * @return the version of the Kafka client on the application's class path, {@code null} when there is none (an
     *         application with message-driven beans only)
     */
    public static String present() {
        // the file the client reads its own version from (the class that reads it is internal)
        try (java.io.InputStream in = org.apache.kafka.clients.consumer.KafkaConsumer.class
                .getResourceAsStream("/kafka/kafka-version.properties")) {
            if (in == null) {
                return "unknown";
            }
            java.util.Properties properties = new java.util.Properties();
            properties.load(in);
            return properties.getProperty("version", "unknown").trim();
        } catch (LinkageError e) {
            return null;
        } catch (java.io.IOException e) {
            return "unknown";
        }
    }

    /**
     * @param version a Kafka client version such as {@code 4.1.1} or {@code 4.4.0-SNAPSHOT}
     * @return whether it is at least {@link #SAFE}; an unreadable version is taken as safe (nothing to go by)
     */
    public static boolean safe(String version) {
        int[] have = numbers(version);
        int[] need = numbers(SAFE);
        if (have == null) {
            return true;
        }
        for (int i = 0; i < need.length; i++) {
            if (have[i] != need[i]) {
                return have[i] > need[i];
            }
        }
        return true;
    }

    private static int[] numbers(String version) {
        if (version == null) {
            return null;
        }
        String[] parts = version.split("[.-]");
        if (parts.length < 3) {
            return null;
        }
        int[] numbers = new int[3];
        try {
            for (int i = 0; i < 3; i++) {
                numbers[i] = Integer.parseInt(parts[i]);
            }
        } catch (NumberFormatException e) {
            return null;
        }
        return numbers;
    }
}
