package dev.cryo.wire.protocol;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.exc.InputCoercionException;
import com.fasterxml.jackson.core.exc.StreamReadException;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * Reads the value of one field of a hand-read message ({@link MessageReaders}), the parser on the
 * value's first token and left on its last. Each kind of field takes the JSON type of its Java type
 * and {@code null} where data binding takes it; any other JSON type is a
 * {@link ProtocolException} naming the message's type, the field and what it was instead. The
 * values are those data binding makes: a string's text, a number in its Java type's range (past it
 * is refused), base64 decoded by the parser in {@link ProtocolCodec#BASE64}, a list as an
 * {@link ArrayList} that keeps null elements. Stateless and thread-safe.
 */
final class FieldValues {

  private FieldValues() {}

  /** A string, or null. */
  static String string(JsonParser json, Class<?> type, String field) throws IOException {
    JsonToken token = json.currentToken();
    if (token == JsonToken.VALUE_STRING) {
      return json.getText();
    }
    if (token == JsonToken.VALUE_NULL) {
      return null;
    }
    throw wrong(type, field, token, "a string or null");
  }

  /** {@code true} or {@code false}, for a {@code boolean}: null is refused. */
  static boolean bool(JsonParser json, Class<?> type, String field) {
    JsonToken token = json.currentToken();
    if (token == JsonToken.VALUE_TRUE) {
      return true;
    }
    if (token == JsonToken.VALUE_FALSE) {
      return false;
    }
    throw wrong(type, field, token, "true or false");
  }

  /** {@code true}, {@code false} or null, for a {@code Boolean}. */
  static Boolean nullableBool(JsonParser json, Class<?> type, String field) {
    JsonToken token = json.currentToken();
    if (token == JsonToken.VALUE_TRUE) {
      return Boolean.TRUE;
    }
    if (token == JsonToken.VALUE_FALSE) {
      return Boolean.FALSE;
    }
    if (token == JsonToken.VALUE_NULL) {
      return null;
    }
    throw wrong(type, field, token, "true, false or null");
  }

  /** An integer in the range of an {@code int}; null is refused. */
  static int integer(JsonParser json, Class<?> type, String field) throws IOException {
    JsonToken token = json.currentToken();
    if (token != JsonToken.VALUE_NUMBER_INT) {
      throw wrong(type, field, token, "an integer");
    }
    try {
      return json.getIntValue();
    } catch (InputCoercionException e) {
      throw refused(type, "its field '" + field + "' is an integer past the range of an int", e);
    }
  }

  /** An integer in the range of a {@code long}; null is refused. */
  static long longInteger(JsonParser json, Class<?> type, String field) throws IOException {
    JsonToken token = json.currentToken();
    if (token != JsonToken.VALUE_NUMBER_INT) {
      throw wrong(type, field, token, "an integer");
    }
    try {
      return json.getLongValue();
    } catch (InputCoercionException e) {
      throw refused(type, "its field '" + field + "' is an integer past the range of a long", e);
    }
  }

  /** Base64 in {@link ProtocolCodec#BASE64}, decoded, or null. */
  static byte[] bytes(JsonParser json, Class<?> type, String field) throws IOException {
    JsonToken token = json.currentToken();
    if (token == JsonToken.VALUE_NULL) {
      return null;
    }
    if (token != JsonToken.VALUE_STRING) {
      throw wrong(type, field, token, "a base64 string or null");
    }
    try {
      return json.getBinaryValue(ProtocolCodec.BASE64);
    } catch (StreamReadException e) {
      throw refused(type, "its field '" + field + "' is not base64: " + e.getOriginalMessage(), e);
    }
  }

  /** An array of strings and nulls, or null. */
  static List<String> strings(JsonParser json, Class<?> type, String field) throws IOException {
    JsonToken token = json.currentToken();
    if (token == JsonToken.VALUE_NULL) {
      return null;
    }
    if (token != JsonToken.START_ARRAY) {
      throw wrong(type, field, token, "an array of strings or null");
    }
    return stringArray(json, type, field);
  }

  /** An array of arrays of strings and nulls (each inner array may be null), or null. */
  static List<List<String>> stringLists(JsonParser json, Class<?> type, String field)
      throws IOException {
    JsonToken token = json.currentToken();
    if (token == JsonToken.VALUE_NULL) {
      return null;
    }
    if (token != JsonToken.START_ARRAY) {
      throw wrong(type, field, token, "an array of arrays of strings or null");
    }
    List<List<String>> values = new ArrayList<>();
    for (token = json.nextToken(); token != JsonToken.END_ARRAY; token = json.nextToken()) {
      if (token == JsonToken.VALUE_NULL) {
        values.add(null);
      } else if (token == JsonToken.START_ARRAY) {
        values.add(stringArray(json, type, field));
      } else {
        throw wrongElement(type, field, token, "an array of strings or null");
      }
    }
    return values;
  }

  /** The refusal of a message whose primitive field is absent (data binding refuses it too). */
  static ProtocolException missing(Class<?> type, String field) {
    return new ProtocolException("a " + type.getSimpleName() + " message did not read: its field '"
        + field + "' is missing");
  }

  /** The refusal of a field whose value is of another JSON type than its own. */
  static ProtocolException wrong(Class<?> type, String field, JsonToken token, String expected) {
    return new ProtocolException("a " + type.getSimpleName() + " message did not read: its field '"
        + field + "' is " + describe(token) + ", not " + expected);
  }

  /** The strings and nulls of an array, the parser on its start and left on its end. */
  private static List<String> stringArray(JsonParser json, Class<?> type, String field)
      throws IOException {
    List<String> values = new ArrayList<>();
    for (JsonToken token = json.nextToken(); token != JsonToken.END_ARRAY;
        token = json.nextToken()) {
      if (token == JsonToken.VALUE_STRING) {
        values.add(json.getText());
      } else if (token == JsonToken.VALUE_NULL) {
        values.add(null);
      } else {
        throw wrongElement(type, field, token, "a string or null");
      }
    }
    return values;
  }

  private static ProtocolException wrongElement(Class<?> type, String field, JsonToken token,
      String expected) {
    return new ProtocolException("a " + type.getSimpleName() + " message did not read: its field '"
        + field + "' holds " + describe(token) + " where " + expected + " goes");
  }

  private static ProtocolException refused(Class<?> type, String why, Throwable cause) {
    return new ProtocolException("a " + type.getSimpleName() + " message did not read: " + why,
        cause);
  }

  /** What a token is, in words: "a string", "an array", ... */
  static String describe(JsonToken token) {
    if (token == null) {
      return "absent";
    }
    return switch (token) {
      case VALUE_STRING -> "a string";
      case VALUE_NUMBER_INT -> "an integer";
      case VALUE_NUMBER_FLOAT -> "a number with a fraction or an exponent";
      case VALUE_TRUE, VALUE_FALSE -> "a boolean";
      case VALUE_NULL -> "null";
      case START_ARRAY -> "an array";
      case START_OBJECT -> "an object";
      default -> token.name();
    };
  }
}
