package io.github.jakartainbox.inbox.text;

import java.text.MessageFormat;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * One message of a catalogue: an id an operator can search for, in Open Liberty's style (a prefix, four digits and
 * the severity as last letter: I information, W warning, E error), the level it is logged at, and a
 * {@link MessageFormat} pattern of one or two sentences. A catalogue is an enum implementing this interface, one
 * constant a message, named by its id, holding its {@link Text}; the longer explanation (cause, what to do) belongs in the catalogue's
 * documentation, not in the pattern.
 *
 * <p>Public so that an application's own catalogue has the library's shape, and its texts the same form: the id, a
 * colon, the text. An {@code E} id is logged at {@link Level#SEVERE}, a {@code W} id at {@link Level#WARNING}, an
 * {@code I} id at {@link Level#INFO} or finer.
 */
public interface CataloguedMessage {

    /** @return the id, such as {@code INBOX0004E}: an enum constant's name */
    String name();

    /**
     * What a catalogue holds for each message besides its id: an enum keeps one per constant and returns it from
     * {@link #text()}, so that it writes no other member.
     *
     * @param level   the level the message is logged at
     * @param pattern the {@link MessageFormat} pattern of the text; an apostrophe is written {@code ''}
     * @param logger  the logger the catalogue logs to
     */
    record Text(Level level, String pattern, Logger logger) {
    }

    /** @return this message's level, pattern and logger */
    Text text();

    /** @return the level this message is logged at */
    default Level level() {
        return text().level();
    }

    /** @return the {@link MessageFormat} pattern of the text; an apostrophe is written {@code ''} */
    default String pattern() {
        return text().pattern();
    }

    /** @return the logger this catalogue logs to */
    default Logger logger() {
        return text().logger();
    }

    /**
     * @param args the values of the pattern's {@code {n}} places
     * @return the id, a colon and the text, such as {@code INBOX0004E: Configuration key ...}: for a log line, an
     *         exception, a dead-letter reason or an HTTP answer
     */
    default String format(Object... args) {
        return name() + ": " + MessageFormat.format(pattern(), args);
    }

    /**
     * Logs this message at its level.
     *
     * @param args the values of the pattern's places
     */
    default void log(Object... args) {
        if (logger().isLoggable(level())) {
            logger().log(level(), format(args));
        }
    }

    /**
     * Logs this message at its level with a failure's stack trace.
     *
     * @param thrown the failure
     * @param args   the values of the pattern's places
     */
    default void log(Throwable thrown, Object... args) {
        if (logger().isLoggable(level())) {
            logger().log(level(), format(args), thrown);
        }
    }
}
