package io.github.jakartainbox.inbox.eventid;

import io.github.jakartainbox.inbox.InvalidEventIdException;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class EventIdsTest {

    private static String normalize(String raw) {
        return EventIds.normalize(raw, 128, "JSON field 'event_id'");
    }

    @Test
    void uuidIsLowerCasedWhateverTheCaseOfItsHexDigits() {
        assertEquals("3f2504e0-4f89-11d3-9a0c-0305e82c3301", normalize("3F2504E0-4F89-11D3-9A0C-0305E82C3301"));
        assertEquals(normalize("3f2504e0-4f89-11d3-9a0c-0305e82c3301"), normalize("3F2504E0-4f89-11D3-9a0c-0305E82C3301"));
    }

    @Test
    void otherIdsAreCaseSensitiveAndKeptAsTheyAre() {
        assertEquals("Order-42", normalize("Order-42"));
        assertNotEquals(normalize("Order-42"), normalize("order-42"));
        // not the canonical 8-4-4-4-12 form, so not treated as a UUID
        assertEquals("3F2504E04F8911D39A0C0305E82C3301", normalize("3F2504E04F8911D39A0C0305E82C3301"));
    }

    @Test
    void missingIdIsRejectedNamingWhereItWasLookedFor() {
        InvalidEventIdException e = assertThrows(InvalidEventIdException.class, () -> normalize(null));
        assertTrue(e.getMessage().contains("No event id: JSON field 'event_id' is missing"), e.getMessage());
    }

    @ParameterizedTest
    @ValueSource(strings = {"", " ", "\t", "   \n"})
    void blankIdIsRejected(String blank) {
        InvalidEventIdException e = assertThrows(InvalidEventIdException.class, () -> normalize(blank));
        assertTrue(e.getMessage().startsWith("INBOX0211E: Blank event id"), e.getMessage());
    }

    @ParameterizedTest
    @ValueSource(strings = {" a1", "a1 ", "a1\n"})
    void paddedIdIsRejectedNotTrimmed(String padded) {
        assertThrows(InvalidEventIdException.class, () -> normalize(padded));
    }

    @ParameterizedTest
    @ValueSource(strings = {"abc\u00a0", "\u2007abc", "abc\u3000"})
    void unicodeSpacesAtTheEndsAreRejected(String padded) {
        assertThrows(InvalidEventIdException.class, () -> normalize(padded));
    }

    @Test
    void invisibleFormatCharactersAndReplacementCharactersAreRejected() {
        assertThrows(InvalidEventIdException.class, () -> normalize("ab\u200bc"));
        assertThrows(InvalidEventIdException.class, () -> normalize("\ufeffabc"));
        InvalidEventIdException e = assertThrows(InvalidEventIdException.class, () -> normalize("id-\ufffd"));
        assertTrue(e.getMessage().contains("not valid UTF-8"), e.getMessage());
    }

    /** A tester's two spellings of one id (precomposed and decomposed) made two events: only the NFC one passes. */
    @Test
    void anIdNfcWouldChangeIsRejectedNotNormalized() {
        assertEquals("caf\u00e9-1", normalize("caf\u00e9-1"), "the NFC spelling is kept as it is");
        InvalidEventIdException e = assertThrows(InvalidEventIdException.class, () -> normalize("cafe\u0301-1"));
        assertTrue(e.getMessage().startsWith("INBOX0249E: ") && e.getMessage().contains("NFC"), e.getMessage());
        assertThrows(InvalidEventIdException.class, () -> normalize("\u212b"), "the angstrom sign, NFC U+00C5");
        assertEquals("\uac00", normalize("\uac00"), "a precomposed Hangul syllable is NFC");
    }

    @Test
    void controlCharactersAreRejected() {
        assertThrows(InvalidEventIdException.class, () -> normalize("a\u0000b"));
        assertThrows(InvalidEventIdException.class, () -> normalize("a\u001bb"));
    }

    @Test
    void lengthIsCountedInCharactersUpToTheLimit() {
        assertEquals(128, normalize("x".repeat(128)).length());
        InvalidEventIdException e = assertThrows(InvalidEventIdException.class, () -> normalize("x".repeat(129)));
        assertTrue(e.getMessage().contains("129 characters long, more than 128"), e.getMessage());
        // 128 emoji are 256 UTF-16 units but 128 characters
        String emoji = "\uD83D\uDE00".repeat(128);
        assertEquals(emoji, normalize(emoji));
    }

    @Test
    void rejectedIdsAreQuotedWithoutTheirLineBreaks() {
        InvalidEventIdException e = assertThrows(InvalidEventIdException.class,
                () -> EventIds.normalize("zz\n[ERROR   ] INBOX0101I: forged line\n", 128, "field"));
        assertFalse(e.getMessage().contains("\n"), e.getMessage());
        assertTrue(e.getMessage().contains("zz\\u000A[ERROR   ]"), e.getMessage());
    }
}
