package io.github.jakartainbox.inbox;

import io.github.jakartainbox.inbox.text.CataloguedMessage;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Function;
import org.eclipse.microprofile.config.Config;

/**
 * One MicroProfile Config key of an application or a library part outside the inbox's own namespace (the outbox, the
 * example), declared once with its default, what a value must be and its parser, and read by the rules of
 * {@link InboxConfig}'s keys: values are trimmed, an empty value counts as unset, booleans are {@code true} or
 * {@code false} ignoring case, durations ISO-8601. A catalogue is a class of such constants and a list of them;
 * {@link #problems} reads them all at deployment, so that a wrong value fails it naming the key.
 *
 * @param <T> the type of its parsed value
 */
public final class ConfigKey<T> {

    private final String name;
    private final String defaultText;
    private final String allowed;
    private final Function<String, T> parser;
    private final CataloguedMessage wrong;

    private ConfigKey(String name, String defaultText, String allowed, Function<String, T> parser,
                      CataloguedMessage wrong) {
        this.name = Objects.requireNonNull(name, "name");
        this.defaultText = defaultText;
        this.allowed = Objects.requireNonNull(allowed, "allowed");
        this.parser = Objects.requireNonNull(parser, "parser");
        this.wrong = Objects.requireNonNull(wrong, "wrong");
        if (defaultText != null && parser.apply(defaultText) == null) {
            throw new IllegalArgumentException(name + ": default " + defaultText + " is not " + allowed);
        }
    }

    /**
     * @param name        the property name
     * @param defaultText the default as text, {@code null} for none
     * @param allowed     what a value must be, as the error says it ("an integer from 1 to 10")
     * @param parser      the value of a trimmed, non-empty text; {@code null} when the text is no such value
     * @param wrong       the message a wrong value fails with: {@code {0}} the property, {@code {1}} the value,
     *                    {@code {2}} {@code allowed}
     * @param <T>         the value's type
     * @return the key
     * @throws IllegalArgumentException when the default does not parse
     * @throws NullPointerException     when an argument but the default is {@code null}
     */
    public static <T> ConfigKey<T> of(String name, String defaultText, String allowed, Function<String, T> parser,
                                      CataloguedMessage wrong) {
        return new ConfigKey<>(name, defaultText, allowed, parser, wrong);
    }

    /**
     * @param name        the property name
     * @param defaultText the default, {@code null} for none
     * @param wrong       the message a wrong value fails with (never, as any text is a value)
     * @return a key whose value is any text
     */
    public static ConfigKey<String> text(String name, String defaultText, CataloguedMessage wrong) {
        return of(name, defaultText, "a text", InboxConfig::text, wrong);
    }

    /**
     * @param name        the property name
     * @param defaultText {@code true} or {@code false}, {@code null} for none
     * @param wrong       the message a wrong value fails with
     * @return a key whose value is {@code true} or {@code false}, ignoring case
     */
    public static ConfigKey<Boolean> bool(String name, String defaultText, CataloguedMessage wrong) {
        return of(name, defaultText, "true or false", InboxConfig::bool, wrong);
    }

    /**
     * @param name        the property name
     * @param defaultText the default, {@code null} for none
     * @param min         the least value
     * @param max         the greatest value
     * @param wrong       the message a wrong value fails with
     * @return a key whose value is an integer from {@code min} to {@code max}
     */
    public static ConfigKey<Integer> integer(String name, String defaultText, int min, int max,
                                             CataloguedMessage wrong) {
        return of(name, defaultText, "an integer from " + min + " to " + max, InboxConfig.integer(min, max), wrong);
    }

    /**
     * @param name        the property name
     * @param defaultText the default, {@code null} for none
     * @param allowed     what a value must be, as the error says it ("a positive ISO-8601 duration such as PT1S")
     * @param allowZero   whether {@code PT0S} is a value
     * @param max         the longest value, {@code null} for no bound
     * @param wrong       the message a wrong value fails with
     * @return a key whose value is a non-negative ISO-8601 duration (positive unless {@code allowZero})
     */
    public static ConfigKey<Duration> duration(String name, String defaultText, String allowed, boolean allowZero,
                                               Duration max, CataloguedMessage wrong) {
        Function<String, Duration> parse = InboxConfig.duration(allowZero);
        return of(name, defaultText, allowed, text -> {
            Duration value = parse.apply(text);
            return value == null || max != null && value.compareTo(max) > 0 ? null : value;
        }, wrong);
    }

    /** @return the property name */
    public String name() {
        return name;
    }

    /** @return the default as text, empty when the key has none */
    public Optional<String> defaultText() {
        return Optional.ofNullable(defaultText);
    }

    /** @return what a value must be, as the error says it */
    public String allowed() {
        return allowed;
    }

    /**
     * @param config the configuration
     * @return the value, else the default; empty when neither is set
     * @throws IllegalStateException (the key's message) when the value does not parse
     */
    public Optional<T> find(Config config) {
        Optional<String> text = config.getOptionalValue(name, String.class).map(String::trim)
                .filter(v -> !v.isEmpty());
        return text.map(this::parse).or(() -> Optional.ofNullable(defaultText).map(parser));
    }

    /**
     * @param config the configuration
     * @return the value, else the default
     * @throws IllegalStateException            (the key's message) when the value does not parse
     * @throws java.util.NoSuchElementException for a key without a default that is not set: use {@link #find}
     */
    public T get(Config config) {
        return find(config).orElseThrow();
    }

    /**
     * @param text a trimmed value
     * @return the parsed value
     * @throws IllegalStateException (the key's message, naming the key) when it does not parse
     */
    public T parse(String text) {
        T value = parser.apply(text);
        if (value == null) {
            throw new IllegalStateException(wrong.format(name, text, allowed));
        }
        return value;
    }

    /**
     * Reads every key, as a deployment check does.
     *
     * @param config the configuration
     * @param keys   a catalogue's keys
     * @return one text for each key whose value does not parse (the key's message, naming it); empty when all do
     */
    public static List<String> problems(Config config, Collection<? extends ConfigKey<?>> keys) {
        List<String> found = new ArrayList<>();
        for (ConfigKey<?> key : keys) {
            try {
                key.find(config);
            } catch (IllegalStateException e) {
                found.add(e.getMessage());
            }
        }
        return found;
    }

    @Override
    public String toString() {
        return name;
    }
}
