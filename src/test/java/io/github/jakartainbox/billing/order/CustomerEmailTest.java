package io.github.jakartainbox.billing.order;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.jakartainbox.inbox.UnprocessableEventException;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/**
 * customer_email is one plain addr-spec (RFC 5322 section 3.4.1, dot-atom form) or a refusal naming the rule: group
 * syntax, for one, would send the invoice to every member.
 */
class CustomerEmailTest {

    /** @return the refusal's message, after asserting its id and that it names the field */
    private static String refused(String id, String value) {
        UnprocessableEventException e = assertThrows(UnprocessableEventException.class,
                () -> CustomerEmail.check("customer_email", value), value);
        String message = e.getMessage();
        assertTrue(message.startsWith(id + ": customer_email '"), message);
        return message;
    }

    private static void refused(String id, String value, String... ruleParts) {
        String message = refused(id, value);
        for (String part : ruleParts) {
            assertTrue(message.contains(part), "'" + part + "' in: " + message);
        }
    }

    @Test
    void groupSyntaxIsRefused() {
        refused("BILLING0112E", "undisclosed:a@example.net,b@example.net;",
                "is not one plain address: it holds a ',' at index 25 (several addresses or a group)");
        refused("BILLING0112E", "undisclosed:;", "a ';'");
        refused("BILLING0112E", "undisclosed:a@example.net", "a ':' at index 11 (a group or a source route)");
    }

    @Test
    void displayNamesAngleBracketsAndCommentsAreRefused() {
        refused("BILLING0112E", "Bob <bob@x.org>", "a '<' at index 4 (a display name or angle brackets)");
        refused("BILLING0112E", "<bob@x.org>", "a '<' at index 0");
        refused("BILLING0112E", "bob@x.org>", "a '>'");
        refused("BILLING0112E", "bob@x.org (Bob)", "a '(' at index 10 (a comment)");
        refused("BILLING0112E", "bob(Bob)@x.org", "(a comment)");
    }

    @Test
    void routesAndSeveralAddressesAreRefused() {
        refused("BILLING0112E", "@a.org:bob@b.org", "a ':' at index 6 (a group or a source route)");
        refused("BILLING0112E", "a@x.org, b@y.org", "a ',' at index 7 (several addresses or a group)");
        refused("BILLING0112E", "a@x.org;b@y.org", "a ';' at index 7");
        refused("BILLING0114E", "a@x.orgb@y.org", "it has 2 '@'");
    }

    @Test
    void quotedLocalPartsAndDomainLiteralsAreRefused() {
        refused("BILLING0112E", "\"bob,alice\"@x.org", "a ',' at index 4");
        refused("BILLING0112E", "\"bob smith\"@x.org", "a '\"' at index 0 (a quoted local part)");
        refused("BILLING0112E", "bob\\@x.org", "a '\\' at index 3 (a quoted local part)");
        refused("BILLING0112E", "bob@[192.0.2.1]", "a '[' at index 4 (a domain literal such as an IP address)");
        refused("BILLING0112E", "bob@[IPv6:2001:db8::1]", "a ':'");
        refused("BILLING0117E", "bob@192.0.2.1", "the domain ends with the all-digit label '1'");
    }

    @Test
    void whitespaceAnywhereIsRefused() {
        refused("BILLING0112E", "bob @x.org", "a space at index 3");
        refused("BILLING0112E", " bob@x.org", "a space at index 0");
        refused("BILLING0112E", "bob@x.org ", "a space at index 9");
        refused("BILLING0112E", "bob@x.\torg", "character U+0009 at index 6 (whitespace or a control character");
        refused("BILLING0112E", "bob@x.org\r\nBcc eve@y.org", "character U+000D at index 9");
    }

    @Test
    void internationalizedAddressesAreRefusedSayingWhy() {
        refused("BILLING0113E", "j\u00f6rg@example.com", "holds non-ASCII character U+00F6 at index 1",
                "internationalized addresses are not supported");
        refused("BILLING0113E", "bob@b\u00fccher.de", "U+00FC at index 5"); // an IDN, not its A-label
        refused("BILLING0113E", "bob@xn--bcher-kva.d\u0435", "U+0435 at index 19"); // Cyrillic e
        refused("BILLING0113E", "\ud83d\ude00\ud83d\ude00x@example.com", "U+1F600 at index 0");
        refused("BILLING0113E", "x\ud83d\ude00\u00e9@example.com", "U+1F600 at index 1");
        refused("BILLING0113E", "bob@x.org\u00a0", "U+00A0 at index 9"); // no-break space
        refused("BILLING0113E", "bob\uff20x.org", "U+FF20"); // full-width '@'
    }

    @Test
    void theLocalPartIsADotAtomOfAtMost64Octets() {
        refused("BILLING0116E", "a".repeat(65) + "@example.com",
                "the local part has 65 octets, more than 64 (RFC 5321 section 4.5.3.1.1)");
        assertEquals("a".repeat(64) + "@example.com", CustomerEmail.check("customer_email",
                "a".repeat(64) + "@example.com"));
        refused("BILLING0115E", ".bob@x.org", "the local part starts with a '.'", "dot-atom", "RFC 5322 section 3.2.3");
        refused("BILLING0115E", "bob.@x.org", "the local part ends with a '.'");
        refused("BILLING0115E", "bo..b@x.org", "the local part holds '..' at index 2");
        refused("BILLING0114E", "@x.org", "the local part before the '@' is empty");
    }

    @Test
    void theDomainIsAHostNameOfTwoOrMoreLdhLabels() {
        refused("BILLING0114E", "bob@", "the domain after the '@' is empty");
        refused("BILLING0114E", "bob", "it has no '@'");
        refused("BILLING0117E", "bob@localhost", "the domain is the single label 'localhost'",
                "two or more labels");
        refused("BILLING0117E", "bob@" + "a".repeat(64) + ".com", "has a label of 64 octets, more than 63");
        assertEquals("bob@" + "a".repeat(63) + ".com", CustomerEmail.check("customer_email",
                "bob@" + "a".repeat(63) + ".com"));
        refused("BILLING0117E", "bob@-x.org", "label '-x', which starts or ends with a hyphen");
        refused("BILLING0117E", "bob@x-.org", "label 'x-', which starts or ends with a hyphen");
        refused("BILLING0117E", "bob@x.org-", "label 'org-'");
        refused("BILLING0117E", "bob@.x.org", "has an empty label");
        refused("BILLING0117E", "bob@x.org.", "has an empty label");
        refused("BILLING0117E", "bob@x..org", "has an empty label");
        refused("BILLING0117E", "bob@my_host.org", "label 'my_host', which holds '_', not a letter, digit or hyphen");
        refused("BILLING0117E", "bob@x.org/", "holds '/'");
    }

    @Test
    void lengthsAreCountedInOctetsAgainstRfc5321() {
        // labels of 63, 63, 63, 60 and 3 octets: a 256-octet domain behind a 1-octet local part
        String domain = String.join(".", "a".repeat(63), "b".repeat(63), "c".repeat(63), "d".repeat(60), "com");
        assertEquals(256, domain.length());
        refused("BILLING0118E", "x@" + domain, "the domain has 256 octets, more than 255 (RFC 5321 section 4.5.3.1.2)");
        // 64 + 1 + 190: each part within its limit, the whole one octet over
        String whole = "a".repeat(64) + "@" + "b".repeat(63) + "." + "c".repeat(63) + "." + "d".repeat(58) + ".org";
        assertEquals(255, whole.length());
        refused("BILLING0119E", whole, "has 255 octets, more than 254", "RFC 5321 section 4.5.3.1.3");
        String longest = whole.substring(1);
        assertEquals(longest, CustomerEmail.check("customer_email", longest), "254 octets are accepted");
        assertTrue(refused("BILLING0119E", whole).contains("... (255 characters)"), "the value is shown shortened");
    }

    @Test
    void nullIsRefused() {
        refused("BILLING0114E", null, "it is null");
    }

    @Test
    void plainAddressesAreAcceptedUnchanged() {
        for (String ok : new String[] {"a@example.com", "bob+invoices@example.com", "o-1@example.com",
                "42@123.example", "first.last@mail.sub.example.co.uk", "Bob.Smith@Example.ORG",
                "x@a-b-c.example", "!#$%&'*+-/=?^_`{|}~@example.com", "a@b.c0", "x@xn--bcher-kva.de"}) {
            assertEquals(ok, CustomerEmail.check("customer_email", ok));
        }
    }

    @Test
    void theFieldNameIsTheCallersAndTheValueIsPrintable() {
        UnprocessableEventException e = assertThrows(UnprocessableEventException.class,
                () -> CustomerEmail.check("recipient", "a@x.org,\u202eb@y.org"));
        assertTrue(e.getMessage().startsWith("BILLING0112E: recipient 'a@x.org,\\u202Eb@y.org' is not one plain"),
                e.getMessage());
        assertTrue(e.getMessage().getBytes(StandardCharsets.UTF_8).length < 400, "one or two sentences");
    }
}
