package io.github.jakartainbox.billing.order;

import io.github.jakartainbox.billing.BillingMessage;
import io.github.jakartainbox.inbox.UnprocessableEventException;
import io.github.jakartainbox.inbox.text.Printable;

/**
 * The event contract's rule for a customer's e-mail address ({@code customer_email} of {@code orders.confirmed} and
 * {@code invoices.issued}): exactly one addr-spec in its plain dot-atom form, {@code local-part@domain}, and
 * nothing else.
 *
 * <ul>
 * <li>ASCII only. <b>Internationalized addresses are refused, not supported</b>: no SMTPUTF8 (RFC 6531) for a
 * non-ASCII local part, no IDNA (RFC 5890) for a non-ASCII domain. The mailer has neither, and an address with
 * non-ASCII characters went out on {@code RCPT TO} in a platform charset (Latin-1 bytes): to a mailbox nobody
 * named, or refused by the relay after the invoice was issued.</li>
 * <li>The local part is a dot-atom (RFC 5322 section 3.2.3): {@code atext} characters (letters, digits and
 * {@code !#$%&'*+-/=?^_`{|}~}) in runs separated by single dots, no dot first or last; at most 64 octets
 * (RFC 5321 section 4.5.3.1.1).</li>
 * <li>The domain is a host name (RFC 5321 section 4.1.2, {@code Domain}; RFC 1035 section 2.3.1): two or more
 * labels separated by dots, each 1 to 63 letters, digits and hyphens, not starting or ending with a hyphen; the
 * last label not all digits (RFC 3696 section 2: no top-level domain is, and {@code 192.0.2.1} is an IP address);
 * at most 255 octets (RFC 5321 section 4.5.3.1.2).</li>
 * <li>The whole address at most 254 octets: an SMTP path holds 256 with its angle brackets (RFC 5321 section
 * 4.5.3.1.3).</li>
 * </ul>
 *
 * <p>Refused therefore, though RFC 5322 section 3.4 allows them in a header: group syntax
 * ({@code undisclosed:a@example.net,b@example.net;}, which Jakarta Mail expands into one {@code RCPT TO} per
 * member), several addresses, display names and angle brackets, comments, source routes ({@code @a.org:bob@b.org}),
 * quoted local parts, domain literals ({@code [192.0.2.1]}) and whitespace anywhere. Each of these can make the mail
 * go to someone other than the one customer the invoice belongs to.
 */
public final class CustomerEmail {

    /** Longest local part, in octets (RFC 5321 section 4.5.3.1.1). */
    public static final int MAX_LOCAL_OCTETS = 64;
    /** Longest domain, in octets (RFC 5321 section 4.5.3.1.2). */
    public static final int MAX_DOMAIN_OCTETS = 255;
    /** Longest label of the domain, in octets (RFC 1035 section 2.3.4). */
    public static final int MAX_LABEL_OCTETS = 63;
    /** Longest address, in octets: a path of 256 octets less its angle brackets (RFC 5321 section 4.5.3.1.3). */
    public static final int MAX_OCTETS = 254;

    /** RFC 5322 section 3.2.3's atext, besides letters and digits. */
    private static final String ATEXT_SYMBOLS = "!#$%&'*+-/=?^_`{|}~";

    private CustomerEmail() {
    }

    /**
     * Checks that a value is one plain address, by the rules of this class's description.
     *
     * @param field the name of the field the value comes from ({@code customer_email}), for the message
     * @param value the field's value, as sent
     * @return {@code value}, unchanged (an accepted address needs no normalizing)
     * @throws UnprocessableEventException when the value is not one plain ASCII addr-spec: null, with a character
     *                                     that marks a group, list, display name, comment, route, quoted string,
     *                                     domain literal or whitespace ({@code BILLING0112E}), a non-ASCII character
     *                                     ({@code BILLING0113E}), not exactly one {@code @} with text on both sides
     *                                     ({@code BILLING0114E}), a local part that is no dot-atom
     *                                     ({@code BILLING0115E}) or longer than 64 octets ({@code BILLING0116E}), a
     *                                     domain that is no host name ({@code BILLING0117E}) or longer than 255
     *                                     octets ({@code BILLING0118E}), or an address longer than 254 octets
     *                                     ({@code BILLING0119E}); the message names the field and the rule
     */
    public static String check(String field, String value) {
        if (value == null) {
            throw refused(BillingMessage.BILLING0114E, field, null, "it is null");
        }
        // first what makes it more (or other) than one address: the dangerous forms get their own words
        for (char c : new char[] {',', ';', ':', '<', '>', '(', ')', '"', '\\', '[', ']'}) {
            int at = value.indexOf(c);
            if (at >= 0) {
                throw refused(BillingMessage.BILLING0112E, field, value, "a '" + c + "' at index "
                        + codePointIndex(value, at) + " (" + meaning(c) + ")");
            }
        }
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            if (c == ' ' || c == '\t' || (c < 0x80 && Character.isISOControl(c))) {
                throw refused(BillingMessage.BILLING0112E, field, value, (c == ' ' ? "a space" : String.format(
                        "character U+%04X", (int) c)) + " at index " + codePointIndex(value, i)
                        + " (whitespace or a control character: a display name, folding or several words)");
            }
        }
        for (int i = 0; i < value.length(); ) {
            int cp = value.codePointAt(i);
            if (cp >= 0x80) {
                throw new UnprocessableEventException(BillingMessage.BILLING0113E.format(field, shown(value),
                        String.format("%04X", cp), String.valueOf(codePointIndex(value, i))));
            }
            i += Character.charCount(cp);
        }
        // ASCII from here on: a char is an octet
        int at = value.indexOf('@');
        int ats = (int) value.chars().filter(c -> c == '@').count();
        if (ats != 1) {
            throw refused(BillingMessage.BILLING0114E, field, value, ats == 0 ? "it has no '@'"
                    : "it has " + ats + " '@' (one address has one)");
        }
        String local = value.substring(0, at);
        String domain = value.substring(at + 1);
        if (local.isEmpty()) {
            throw refused(BillingMessage.BILLING0114E, field, value, "the local part before the '@' is empty");
        }
        if (domain.isEmpty()) {
            throw refused(BillingMessage.BILLING0114E, field, value, "the domain after the '@' is empty");
        }
        checkLocalPart(field, value, local);
        checkDomain(field, value, domain);
        if (value.length() > MAX_OCTETS) {
            throw new UnprocessableEventException(BillingMessage.BILLING0119E.format(field, shown(value),
                    String.valueOf(value.length())));
        }
        return value;
    }

    private static void checkLocalPart(String field, String value, String local) {
        if (local.startsWith(".")) {
            throw refused(BillingMessage.BILLING0115E, field, value, "starts with a '.'");
        }
        if (local.endsWith(".")) {
            throw refused(BillingMessage.BILLING0115E, field, value, "ends with a '.'");
        }
        int dots = local.indexOf("..");
        if (dots >= 0) {
            throw refused(BillingMessage.BILLING0115E, field, value, "holds '..' at index " + dots);
        }
        for (int i = 0; i < local.length(); i++) {
            char c = local.charAt(i);
            if (c != '.' && !isLetterOrDigit(c) && ATEXT_SYMBOLS.indexOf(c) < 0) {
                // unreachable with the specials refused above; kept so that the rule does not depend on their list
                throw refused(BillingMessage.BILLING0115E, field, value, "holds '" + c + "' at index " + i
                        + ", which is not atext");
            }
        }
        if (local.length() > MAX_LOCAL_OCTETS) {
            throw new UnprocessableEventException(BillingMessage.BILLING0116E.format(field, shown(value),
                    String.valueOf(local.length())));
        }
    }

    private static void checkDomain(String field, String value, String domain) {
        String[] labels = domain.split("\\.", -1);
        for (String label : labels) {
            if (label.isEmpty()) {
                throw refused(BillingMessage.BILLING0117E, field, value, "has an empty label (a '.' first, last or"
                        + " twice in a row)");
            }
            if (label.length() > MAX_LABEL_OCTETS) {
                throw refused(BillingMessage.BILLING0117E, field, value, "has a label of " + label.length()
                        + " octets, more than " + MAX_LABEL_OCTETS);
            }
            if (label.startsWith("-") || label.endsWith("-")) {
                throw refused(BillingMessage.BILLING0117E, field, value, "has label '" + shown(label)
                        + "', which starts or ends with a hyphen");
            }
            for (int i = 0; i < label.length(); i++) {
                char c = label.charAt(i);
                if (c != '-' && !isLetterOrDigit(c)) {
                    throw refused(BillingMessage.BILLING0117E, field, value, "has label '" + shown(label)
                            + "', which holds '" + c + "', not a letter, digit or hyphen");
                }
            }
        }
        if (labels.length < 2) {
            throw refused(BillingMessage.BILLING0117E, field, value, "is the single label '" + shown(domain)
                    + "' (a host name without its domain)");
        }
        if (labels[labels.length - 1].chars().allMatch(c -> c >= '0' && c <= '9')) {
            throw refused(BillingMessage.BILLING0117E, field, value, "ends with the all-digit label '"
                    + labels[labels.length - 1] + "' (no top-level domain is; RFC 3696 section 2)");
        }
        if (domain.length() > MAX_DOMAIN_OCTETS) {
            throw new UnprocessableEventException(BillingMessage.BILLING0118E.format(field, shown(value),
                    String.valueOf(domain.length())));
        }
    }

    private static boolean isLetterOrDigit(char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
    }

    /** @return what a character that is no part of a plain address is for, in RFC 5322 section 3.4 */
    private static String meaning(char c) {
        return switch (c) {
            case ',' -> "several addresses or a group";
            case ';' -> "the end of a group, or several addresses";
            case ':' -> "a group or a source route";
            case '<', '>' -> "a display name or angle brackets";
            case '(', ')' -> "a comment";
            case '"', '\\' -> "a quoted local part";
            default -> "a domain literal such as an IP address";
        };
    }

    /** @return the position of the char at {@code index} counted in characters (code points), as a person counts */
    private static int codePointIndex(String value, int index) {
        return value.codePointCount(0, index);
    }

    private static UnprocessableEventException refused(BillingMessage message, String field, String value,
                                                       String rule) {
        return new UnprocessableEventException(message.format(field, shown(value), rule));
    }

    private static String shown(String text) {
        return Printable.of(text, 60);
    }
}
