package io.github.jakartainbox.billing.web;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.List;
import java.util.regex.Pattern;

/**
 * An {@code Authorization} header read strictly as HTTP BASIC credentials (RFC 7617): the scheme {@code Basic} in any
 * case (RFC 9110 section 11.1), one space, and the base64 of {@code user:password} in UTF-8, padded as RFC 4648
 * section 4 asks, nothing else. Anything else is malformed and says why, without quoting the header (it may hold a
 * password). The strict form is also what keeps Liberty's own audit parse of the header, which runs after the sign-in
 * mechanism, from failing ({@link SignInGuard}).
 */
record BasicAuthorization(String user, String password, String problem) {

    /** Longest header taken: far above any real user name and password, far below Liberty's 32 KB field limit. */
    static final int MAX_LENGTH = 4_096;

    private static final Pattern BASE64 = Pattern.compile("(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?");

    /** @return whether the header was read as credentials; otherwise {@link #problem()} says why not */
    boolean wellFormed() {
        return problem == null;
    }

    /**
     * @param headers every {@code Authorization} header of the request, in order
     * @return the credentials, or the problem of the headers; null when there is none
     */
    static BasicAuthorization of(List<String> headers) {
        if (headers.isEmpty()) {
            return null;
        }
        if (headers.size() > 1) {
            return malformed("appears " + headers.size() + " times; a request carries it once");
        }
        return parse(headers.get(0));
    }

    /** @param header an {@code Authorization} header's value, as received */
    static BasicAuthorization parse(String header) {
        if (header.isEmpty()) {
            return malformed("is empty");
        }
        if (header.length() > MAX_LENGTH) {
            return malformed("has " + header.length() + " characters, more than the " + MAX_LENGTH + " taken");
        }
        int end = 0;
        while (end < header.length() && header.charAt(end) != ' ' && header.charAt(end) != '\t') {
            end++;
        }
        if (!header.substring(0, end).equalsIgnoreCase("Basic")) {
            return malformed("is not of scheme Basic");
        }
        if (end == header.length() || header.length() == end + 1 && header.charAt(end) == ' ') {
            return malformed("has nothing after Basic");
        }
        if (header.charAt(end) != ' ') {
            return malformed("has another character than one space after Basic");
        }
        String token = header.substring(end + 1);
        if (token.startsWith(" ") || token.startsWith("\t")) {
            return malformed("has more than one space after Basic");
        }
        if (!BASE64.matcher(token).matches()) {
            return malformed("is not one base64 value after Basic (RFC 4648 section 4, padded)");
        }
        byte[] bytes = Base64.getDecoder().decode(token);
        String credentials;
        try {
            credentials = StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(bytes)).toString();
        } catch (CharacterCodingException e) {
            return malformed("is not UTF-8 once base64-decoded");
        }
        int colon = credentials.indexOf(':');
        if (colon < 0) {
            return malformed("holds no colon between user and password once decoded");
        }
        if (colon == 0) {
            return malformed("holds no user name before the colon once decoded");
        }
        for (int i = 0; i < credentials.length(); i++) {
            char c = credentials.charAt(i);
            if (c < 0x20 || c == 0x7F) {
                return malformed("holds a control character once decoded (RFC 7617 section 2)");
            }
        }
        return new BasicAuthorization(credentials.substring(0, colon), credentials.substring(colon + 1), null);
    }

    private static BasicAuthorization malformed(String problem) {
        return new BasicAuthorization(null, null, problem);
    }

    @Override
    public String toString() {
        return wellFormed() ? "BasicAuthorization[user=" + user + "]" : "BasicAuthorization[" + problem + "]";
    }
}
