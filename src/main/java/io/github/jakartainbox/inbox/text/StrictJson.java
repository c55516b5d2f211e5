package io.github.jakartainbox.inbox.text;

import jakarta.json.JsonArray;
import jakarta.json.JsonArrayBuilder;
import jakarta.json.JsonException;
import jakarta.json.JsonObject;
import jakarta.json.JsonObjectBuilder;
import jakarta.json.JsonValue;
import jakarta.json.spi.JsonProvider;
import jakarta.json.stream.JsonLocation;
import jakarta.json.stream.JsonParser;
import jakarta.json.stream.JsonParsingException;
import java.io.StringReader;
import java.math.BigDecimal;
import java.util.HashSet;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads an event's JSON text the one strict way that every reader of the event can agree on: exactly one JSON
 * object with nothing after it, each member name at most once per object, no unpaired UTF-16 surrogate in a name or
 * string, nested at most {@value #MAX_DEPTH} levels. The inbox reads event ids with it; an application should read
 * its events with it too, so that the inbox and the application refuse the same payloads.
 *
 * <p>Sources of the rules: RFC 8259 section 4 says member names SHOULD be unique and that readers differ on an
 * object whose names are not (some take the first value, most the last): such an object means different things to
 * different consumers of one topic, so it is refused. I-JSON (RFC 7493) section 2.3 makes unique names a MUST, and its
 * section 2.1 forbids strings holding surrogate code points (an unpaired surrogate is no character: PostgreSQL text
 * cannot store it). Works with any Jakarta JSON Processing implementation: duplicates are found while streaming, not
 * with an implementation's own option.
 */
public final class StrictJson {

    /** How deeply arrays and objects may nest, the top-level object counting as 1. */
    public static final int MAX_DEPTH = 64;

    /**
     * Looked up once: {@code Json.createParser}, {@code Json.createValue} and the other static methods of
     * {@code jakarta.json.Json} each call {@link JsonProvider#provider()}, a {@code ServiceLoader} lookup through
     * the application's class loaders (jakarta.json API issue 346), which on Liberty cost more than the parse.
     */
    private static final JsonProvider JSON = JsonProvider.provider();

    private StrictJson() {
    }

    /**
     * @param text the JSON text (RFC 8259), not {@code null}
     * @return the object it holds
     * @throws JsonException when the text is not exactly one JSON object by the rules above. The message is a
     *                       predicate to put after the subject, e.g. {@code "the payload " + e.getMessage()}:
     *                       {@code is not valid JSON: ...}, {@code is not a JSON object ...}, {@code has member
     *                       name 'amount' more than once ...}, {@code holds an unpaired surrogate ...},
     *                       {@code is nested deeper than 64 levels}
     */
    public static JsonObject readObject(String text) {
        try (JsonParser parser = JSON.createParser(new StringReader(text))) {
            if (!parser.hasNext()) {
                throw new Refused("is not valid JSON: it is empty");
            }
            JsonParser.Event first = parser.next();
            if (first != JsonParser.Event.START_OBJECT) {
                throw new Refused("is not a JSON object (it starts with " + first + ")");
            }
            JsonObject object = object(parser, 1);
            if (parser.hasNext()) {
                throw new Refused("is not valid JSON: more follows the JSON object (" + where(parser) + ")");
            }
            return object;
        } catch (Refused e) {
            throw new JsonException(e.getMessage());
        } catch (JsonParsingException e) {
            throw new JsonException("is not valid JSON: " + described(e), e);
        } catch (RuntimeException e) {
            // an implementation's own limit as a plain RuntimeException
            throw new JsonException("is not valid JSON: " + Printable.of(e.getMessage(), 200), e);
        }
    }

    private static final Pattern UNEXPECTED_CHAR = Pattern.compile(
            "Unexpected char (-?[\\d.,\\s\\u00a0\\u202f']+) at \\([^)]*\\)(.*)", Pattern.DOTALL);
    private static final Pattern INVALID_TOKEN = Pattern.compile("Invalid token=(\\w+) at \\([^)]*\\)\\.? ?(.*)",
            Pattern.DOTALL);

    /**
     * Rewords Parsson's parse errors, whose character code is formatted in the server's locale ("Unexpected char
     * 65,279") and whose location is wrong at the end of the text: the character as U+XXXX, the line and column,
     * "ends before ..." for a text cut short, what RFC 8259 says of a leading byte order mark. Another
     * implementation's message is kept as it is.
     */
    static String described(JsonParsingException e) {
        String message = e.getMessage() == null ? "" : e.getMessage();
        JsonLocation at = e.getLocation();
        String where = at == null ? "" : " at line " + at.getLineNumber() + ", column " + at.getColumnNumber();
        Matcher unexpected = UNEXPECTED_CHAR.matcher(message);
        if (unexpected.matches()) {
            int code = Integer.parseInt(unexpected.group(1).replaceAll("[^-0-9]", ""));
            if (code < 0) {
                return "the text ends before the JSON object is complete";
            }
            if (code == 0xFEFF && at != null && at.getStreamOffset() == 0) {
                return "it starts with a byte order mark (U+FEFF), which JSON text must not (RFC 8259 section 8.1); "
                        + "remove it";
            }
            String printable = code >= 0x20 && code < 0x7f ? " ('" + (char) code + "')" : "";
            return String.format("unexpected character U+%04X%s%s%s", code, printable, where, unexpected.group(2));
        }
        Matcher token = INVALID_TOKEN.matcher(message);
        if (token.matches()) {
            if (token.group(1).equals("EOF")) {
                return "the text ends before the JSON object is complete";
            }
            return "unexpected " + token.group(1) + where + (token.group(2).isEmpty() ? "" : "; " + token.group(2));
        }
        return Printable.of(message, 200);
    }

    /** Marks refusals of this reader, so that they are not reworded as parse errors on the way out. */
    private static final class Refused extends RuntimeException {
        private static final long serialVersionUID = 1L;

        Refused(String message) {
            super(message, null, false, false);
        }
    }

    private static JsonObject object(JsonParser parser, int depth) {
        JsonObjectBuilder builder = JSON.createObjectBuilder();
        Set<String> names = new HashSet<>();
        while (true) {
            JsonParser.Event event = parser.next();
            if (event == JsonParser.Event.END_OBJECT) {
                return builder.build();
            }
            String name = checked(parser.getString(), parser, "a member name");
            if (!names.add(name)) {
                throw new Refused("has member name '" + Printable.of(name, 60) + "' more than once in one object ("
                        + where(parser) + "): readers differ on which value counts (RFC 8259 section 4), so the "
                        + "object is ambiguous; I-JSON (RFC 7493 section 2.3) forbids it. Send each member once");
            }
            builder.add(name, value(parser, parser.next(), depth));
        }
    }

    private static JsonArray array(JsonParser parser, int depth) {
        JsonArrayBuilder builder = JSON.createArrayBuilder();
        while (true) {
            JsonParser.Event event = parser.next();
            if (event == JsonParser.Event.END_ARRAY) {
                return builder.build();
            }
            builder.add(value(parser, event, depth));
        }
    }

    private static JsonValue value(JsonParser parser, JsonParser.Event event, int depth) {
        return switch (event) {
            case START_OBJECT -> object(parser, deeper(parser, depth));
            case START_ARRAY -> array(parser, deeper(parser, depth));
            case VALUE_STRING -> JSON.createValue(checked(parser.getString(), parser, "a string"));
            case VALUE_NUMBER -> JSON.createValue(number(parser));
            case VALUE_TRUE -> JsonValue.TRUE;
            case VALUE_FALSE -> JsonValue.FALSE;
            case VALUE_NULL -> JsonValue.NULL;
            default -> throw new Refused("is not valid JSON: unexpected " + event + " (" + where(parser) + ")");
        };
    }

    /**
     * The number's value. A number longer than the implementation reads (Parsson: 1,100 characters, system property
     * {@code org.eclipse.parsson.maxBigDecimalLength}) is valid JSON all the same: refused as too long, not as a
     * parse error.
     */
    private static BigDecimal number(JsonParser parser) {
        try {
            return parser.getBigDecimal();
        } catch (RuntimeException e) {
            throw new Refused(String.format("holds a number of %,d characters (%s), longer than the JSON reader "
                    + "takes; send it shorter, or as a JSON string", parser.getString().length(), where(parser)));
        }
    }

    private static int deeper(JsonParser parser, int depth) {
        if (depth >= MAX_DEPTH) {
            throw new Refused("is nested deeper than " + MAX_DEPTH + " levels (" + where(parser) + ")");
        }
        return depth + 1;
    }

    private static String checked(String text, JsonParser parser, String what) {
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            boolean paired = Character.isHighSurrogate(c) ? i + 1 < text.length()
                    && Character.isLowSurrogate(text.charAt(i + 1)) : !Character.isLowSurrogate(c);
            if (!paired) {
                throw new Refused("holds an unpaired surrogate \\u" + String.format("%04X", (int) c) + " in " + what
                        + " (" + where(parser) + "), which is no character (I-JSON, RFC 7493 section 2.1)");
            }
            if (Character.isHighSurrogate(c)) {
                i++;
            }
        }
        return text;
    }

    private static String where(JsonParser parser) {
        JsonLocation at = parser.getLocation();
        return "line " + at.getLineNumber() + ", column " + at.getColumnNumber();
    }
}
