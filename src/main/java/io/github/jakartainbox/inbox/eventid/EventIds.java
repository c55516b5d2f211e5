package io.github.jakartainbox.inbox.eventid;

import io.github.jakartainbox.inbox.InboxConfig;
import io.github.jakartainbox.inbox.InvalidEventIdException;
import io.github.jakartainbox.inbox.logging.InboxMessage;
import io.github.jakartainbox.inbox.text.Printable;
import java.text.Normalizer;
import java.util.Locale;
import java.util.regex.Pattern;

/**
 * The rules an event id must meet before it is used as half of the inbox key, and its normal form.
 *
 * <ul>
 *   <li>It is present and not blank.</li>
 *   <li>It has at most {@code maxLength} characters (Unicode code points; configuration key
 *       {@code inbox.event-id.max-length}, default 128, at most 255 as the table's check constraint allows).</li>
 *   <li>It has no leading or trailing whitespace (any Unicode space, the no-break space included), no control
 *       characters and no invisible format characters (U+200B, U+FEFF...): {@code "a1"} and {@code "a1 "} would
 *       otherwise look the same to a person and differ to the database, so such ids are rejected rather than
 *       trimmed or collapsed into one another.</li>
 *   <li>It has no U+FFFD: a deserializer puts that character where bytes were not valid UTF-8, so two different
 *       ids could arrive as the same text.</li>
 *   <li>It is in Unicode Normalization Form C (NFC, Unicode Standard Annex #15): {@code "\u00e9"} and
 *       {@code "e\u0301"} look the same and differ to the database, so an id that NFC would change is rejected
 *       rather than normalized into another one (ASCII ids, UUIDs among them, always are in NFC).</li>
 *   <li>Case: a UUID in its canonical 8-4-4-4-12 hexadecimal text form is one value whatever the case of its
 *       hex digits (RFC 9562, section 4: the hex digits are case-insensitive on input), so it is stored in
 *       lower case. Any other id is an opaque string compared exactly, case-sensitively.</li>
 * </ul>
 * Event ids are made by the producer, once per event, and carried unchanged on every delivery (a UUID is best).
 * An id rebuilt from the payload or a timestamp would make two different events collide or one event look new.
 */
public final class EventIds {

    /** The largest {@code inbox.event-id.max-length} the table accepts. */
    public static final int MAX_LENGTH_LIMIT = InboxConfig.EVENT_ID_MAX_LENGTH_LIMIT;

    private static final Pattern UUID_TEXT =
            Pattern.compile("[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}");

    private EventIds() {
    }

    private static boolean ascii(String text) {
        for (int i = 0; i < text.length(); i++) {
            if (text.charAt(i) > 0x7F) {
                return false;
            }
        }
        return true;
    }

    private static boolean isSpace(int codePoint) {
        return Character.isWhitespace(codePoint) || Character.isSpaceChar(codePoint);
    }

    /**
     * Checks a raw event id against the rules above and returns its normal form.
     *
     * @param raw       the id as found in the message, may be {@code null}
     * @param maxLength the largest number of code points accepted, 1 to {@link #MAX_LENGTH_LIMIT}
     * @param where     where the id was looked for, e.g. {@code "JSON field 'event_id'"}; used in the error
     * @return the id to store: lower case for a UUID, unchanged otherwise
     * @throws InvalidEventIdException when the id is missing, blank, too long, padded with whitespace, holds
     *                                 control characters or U+FFFD, or is not in NFC; the message names the rule and
     *                                 {@code where}
     */
    public static String normalize(String raw, int maxLength, String where) {
        if (raw == null) {
            throw new InvalidEventIdException(InboxMessage.INBOX0210E.format(where));
        }
        if (raw.isBlank()) {
            throw new InvalidEventIdException(InboxMessage.INBOX0211E.format(where));
        }
        int length = raw.codePointCount(0, raw.length());
        if (length > maxLength) {
            throw new InvalidEventIdException(InboxMessage.INBOX0212E.format(where, length, maxLength,
                    Printable.of(raw, 40)));
        }
        if (isSpace(raw.codePointAt(0)) || isSpace(raw.codePointBefore(raw.length()))) {
            throw new InvalidEventIdException(InboxMessage.INBOX0213E.format(where, Printable.of(raw, 80)));
        }
        if (raw.codePoints().anyMatch(c -> Character.isISOControl(c) || Character.getType(c) == Character.FORMAT)) {
            throw new InvalidEventIdException(InboxMessage.INBOX0214E.format(where));
        }
        if (raw.indexOf('\uFFFD') >= 0) {
            throw new InvalidEventIdException(InboxMessage.INBOX0215E.format(where));
        }
        if (UUID_TEXT.matcher(raw).matches()) {
            return raw.toLowerCase(Locale.ROOT);
        }
        if (!ascii(raw) && !Normalizer.isNormalized(raw, Normalizer.Form.NFC)) {
            throw new InvalidEventIdException(InboxMessage.INBOX0249E.format(where, Printable.of(raw, 80)));
        }
        return raw;
    }
}
