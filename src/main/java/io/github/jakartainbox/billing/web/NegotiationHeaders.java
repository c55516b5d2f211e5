package io.github.jakartainbox.billing.web;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Pattern;

/**
 * The syntax of the headers the JAX-RS runtime parses before any resource runs: {@code Accept},
 * {@code Accept-Charset}, {@code Accept-Encoding}, {@code Accept-Language} (RFC 9110 section 12.5) and
 * {@code Content-Type} (section 8.3). The runtime failed on some malformed ones with an exception (a weight
 * {@code q=abc} in {@code Accept} or {@code Content-Type} was a 500) and answered others with a 400 that blamed the URL;
 * {@link RequestGuard} refuses them first, naming the header and what is wrong. Of {@code Content-Type} only a weight
 * parameter is checked: the other malformed forms are the 415 of a content type the API does not take.
 */
final class NegotiationHeaders {

    /** The headers checked, by lower-case name. */
    static final List<String> NAMES = List.of("Accept", "Accept-Charset", "Accept-Encoding", "Accept-Language",
            "Content-Type");

    /** RFC 9110 section 5.6.2. */
    private static final Pattern TOKEN = Pattern.compile("[!#$%&'*+.^_`|~0-9A-Za-z-]+");
    /** RFC 9110 section 12.4.2: 0 to 1 with at most three decimals. */
    private static final Pattern WEIGHT = Pattern.compile("0(?:\\.[0-9]{0,3})?|1(?:\\.0{0,3})?");
    /** RFC 9110 section 12.5.4, a language range of RFC 4647 section 2.1. */
    private static final Pattern LANGUAGE_RANGE = Pattern.compile("\\*|[A-Za-z]{1,8}(?:-[A-Za-z0-9]{1,8})*");

    private NegotiationHeaders() {
    }

    /**
     * @param name  the header's name, one of {@link #NAMES} in any case
     * @param value its value as received
     * @return what is wrong with it, in a few words; {@code null} when it is well formed
     */
    static String flaw(String name, String value) {
        String header = name.toLowerCase(Locale.ROOT);
        if (header.equals("content-type")) {
            String flaw = value.isBlank() ? null : element(header, value.trim());
            return flaw != null && flaw.startsWith("weight") ? flaw : null;
        }
        List<String> elements = split(value, ',');
        if (elements == null) {
            return "a quoted string is not closed";
        }
        for (String element : elements) {
            String trimmed = element.trim();
            if (!trimmed.isEmpty()) { // RFC 9110 section 5.6.1: empty list elements are allowed
                String flaw = element(header, trimmed);
                if (flaw != null) {
                    return flaw;
                }
            }
        }
        return null;
    }

    /** @return what is wrong with one element (a media range, a charset, a coding or a language, and parameters) */
    private static String element(String header, String element) {
        List<String> parts = split(element, ';');
        if (parts == null) {
            return "a quoted string is not closed";
        }
        String first = parts.get(0).trim();
        boolean media = header.equals("accept") || header.equals("content-type");
        if (media) {
            int slash = first.indexOf('/');
            if (slash < 0 || !TOKEN.matcher(first.substring(0, slash)).matches()
                    || !TOKEN.matcher(first.substring(slash + 1)).matches()) {
                return "'" + first + "' is not a media type type/subtype";
            }
        } else if (header.equals("accept-language") ? !LANGUAGE_RANGE.matcher(first).matches()
                : !TOKEN.matcher(first).matches()) {
            return "'" + first + "' is not a " + (header.equals("accept-language") ? "language range"
                    : header.equals("accept-charset") ? "charset" : "content coding");
        }
        for (String parameter : parts.subList(1, parts.size())) {
            String p = parameter.trim();
            if (p.isEmpty()) {
                continue; // RFC 9110 section 5.6.6: parameters = *( OWS ";" OWS [ parameter ] )
            }
            int equals = p.indexOf('=');
            String pname = equals < 0 ? p : p.substring(0, equals);
            String pvalue = equals < 0 ? null : p.substring(equals + 1);
            if (pname.trim().equalsIgnoreCase("q") && pvalue != null && !WEIGHT.matcher(pvalue.trim()).matches()) {
                return "weight q=" + pvalue.trim() + " is not a number from 0 to 1 with at most 3 decimals";
            }
            if (!TOKEN.matcher(pname).matches() || pvalue == null
                    || !(TOKEN.matcher(pvalue).matches() || quoted(pvalue))) {
                return "parameter '" + p + "' is not name=value";
            }
        }
        return null;
    }

    private static boolean quoted(String value) {
        return value.length() >= 2 && value.charAt(0) == '"' && value.charAt(value.length() - 1) == '"';
    }

    /** @return the text split at the separator outside quoted strings; {@code null} when a quoted string is open */
    private static List<String> split(String text, char separator) {
        List<String> parts = new ArrayList<>();
        StringBuilder part = new StringBuilder();
        boolean inQuotes = false;
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (inQuotes && c == '\\' && i + 1 < text.length()) {
                part.append(c).append(text.charAt(++i));
                continue;
            }
            if (c == '"') {
                inQuotes = !inQuotes;
            }
            if (c == separator && !inQuotes) {
                parts.add(part.toString());
                part.setLength(0);
            } else {
                part.append(c);
            }
        }
        if (inQuotes) {
            return null;
        }
        parts.add(part.toString());
        return parts;
    }
}
