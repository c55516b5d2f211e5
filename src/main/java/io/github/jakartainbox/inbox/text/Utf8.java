package io.github.jakartainbox.inbox.text;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;

/**
 * Strict UTF-8 decoding: malformed bytes are reported, never replaced by U+FFFD. The inbox reads payloads with it;
 * an application that takes events as bytes (a REST endpoint feeding a queue) should too, so that both refuse the
 * same bytes.
 */
public final class Utf8 {

    private Utf8() {
    }

    /**
     * @param bytes the bytes, not {@code null}
     * @return the text, or {@code null} when the bytes are not valid UTF-8 (RFC 3629)
     */
    public static String decode(byte[] bytes) {
        try {
            return StandardCharsets.UTF_8.newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(ByteBuffer.wrap(bytes))
                    .toString();
        } catch (CharacterCodingException e) {
            return null;
        }
    }
}
