package io.github.jakartainbox.inbox.text;


/**
 * Input quoted in error messages, log lines and dead-letter reasons: control and invisible format characters
 * (newlines among them) are written as {@code \\uXXXX} and long text is cut, so that a payload can neither forge
 * log lines nor flood them (CWE-117, improper output neutralization for logs).
 *
 * <p>Public on purpose: the reasons of an {@code UnprocessableEventException} thrown by application code end in
 * the log and in the dead-letter table, and should quote event data through this method, as the library does.
 */
public final class Printable {

    private Printable() {
    }

    /**
     * @param text     the input, may be {@code null}
     * @param maxChars how many characters of it to show at most
     * @return the text with control and format characters escaped, cut after {@code maxChars} characters with a
     *         note of its full length; {@code "null"} for {@code null}
     */
    public static String of(String text, int maxChars) {
        if (text == null) {
            return "null";
        }
        StringBuilder out = new StringBuilder(Math.min(text.length(), maxChars) + 16);
        int shown = 0;
        for (int i = 0; i < text.length() && shown < maxChars; i++, shown++) {
            char c = text.charAt(i);
            if (Character.isISOControl(c) || Character.getType(c) == Character.FORMAT
                    || c == '\u2028' || c == '\u2029') {
                out.append(String.format("\\u%04X", (int) c));
            } else {
                out.append(c);
            }
        }
        if (text.length() > maxChars) {
            out.append("... (").append(text.length()).append(" characters)");
        }
        return out.toString();
    }
}
