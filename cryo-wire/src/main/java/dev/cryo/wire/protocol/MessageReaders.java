package dev.cryo.wire.protocol;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import java.io.IOException;
import java.util.List;

/**
 * The hand-written readers of the messages on a request's and a move's path, with Jackson's
 * streaming parser from {@link ProtocolCodec#FACTORY} (the mapper's own: duplicate keys are refused
 * at every depth, and the same limits of length and depth hold). They read what data binding reads:
 * one JSON object and nothing after it (whitespace aside); its fields in any order; unknown fields
 * skipped whole, nested values included; an absent field as null, except a primitive one
 * ({@code boolean}, {@code int}, {@code long}), which is refused absent or null, as data binding
 * refuses it with {@code FAIL_ON_NULL_FOR_PRIMITIVES}; then the record's canonical constructor,
 * whose refusal (a required field missing or null, values that do not go together) is refused as
 * data binding's is. A root {@code null} is "a message was null"; every refusal is a
 * {@link ProtocolException} naming the message's type and what was wrong.
 * {@code MessageReadersAcceptanceTest} holds them to it.
 *
 * <p><b>Deliberately stricter than data binding.</b> Each field takes only its own JSON type (and
 * null where data binding takes null). Data binding also coerces scalars of other types, which
 * gives one value many spellings on the wire: a peer's {@code "watermark": 1.9} would read as 1,
 * {@code "ofQuit": 2} as true, {@code "user": true} as the user "true". No writer of cryo writes
 * them (both sides write through {@link MessageWriters}), so each is refused here:
 *
 * <ol>
 *   <li>an {@code int} or {@code long} field given a string ({@code "5"}, {@code " 5 "},
 *       {@code "+5"}, which data binding parses) or a number with a fraction or an exponent
 *       ({@code 5.7}, {@code 1e2}, which data binding truncates to an integer);
 *   <li>a {@code boolean} or {@code Boolean} field given a string ({@code "true"}, {@code "True"},
 *       {@code "TRUE"}, {@code "false"}, ...; for a {@code Boolean}, {@code ""} and {@code "null"},
 *       which data binding reads as null) or an integer (0 false, any other true);
 *   <li>a {@code String} field, or an element of a list of strings, given a number or a boolean
 *       (data binding takes its text: {@code 5.5e3} becomes {@code "5.5e3"});
 *   <li>a {@code byte[]} field given an array of numbers ({@code [1, 2, 255]}, elements from -128
 *       to 255, or strings and fractions coerced to them) instead of base64.
 * </ol>
 *
 * <p>{@code DeliberateDifferencesTest} shows each. Stateless and thread-safe.
 */
final class MessageReaders {

  private MessageReaders() {}

  /** Whether messages of {@code type} are read by hand. */
  static boolean reads(Class<?> type) {
    return type == HttpCall.class || type == HttpResult.class || type == AnnouncementMessage.class
        || type == UserOrder.class || type == FreezeResult.class || type == PushMessage.class
        || type == PushResult.class;
  }

  /**
   * Reads one message of {@code type}, one {@link #reads} says yes to.
   *
   * @throws ProtocolException when the JSON is well formed but not such a message
   * @throws IOException when the parser refuses the JSON (malformed, a duplicate key, past a limit)
   * @throws RuntimeException the record's constructor's refusal of the values read
   */
  static Object read(byte[] bytes, Class<?> type) throws IOException {
    try (JsonParser json = ProtocolCodec.FACTORY.createParser(bytes)) {
      JsonToken first = json.nextToken();
      if (first != JsonToken.START_OBJECT) {
        throw notAnObject(type, first);
      }
      Object message;
      if (type == HttpCall.class) {
        message = httpCall(json);
      } else if (type == HttpResult.class) {
        message = httpResult(json);
      } else if (type == AnnouncementMessage.class) {
        message = announcement(json);
      } else if (type == UserOrder.class) {
        message = userOrder(json);
      } else if (type == FreezeResult.class) {
        message = freezeResult(json);
      } else if (type == PushMessage.class) {
        message = pushMessage(json);
      } else if (type == PushResult.class) {
        message = pushResult(json);
      } else {
        throw new IllegalStateException("no hand-written reader for " + type);
      }
      JsonToken after = json.nextToken();
      if (after != null) {
        throw new ProtocolException("a " + type.getSimpleName() + " message did not read: "
            + FieldValues.describe(after) + " follows its object");
      }
      return message;
    }
  }

  private static HttpCall httpCall(JsonParser json) throws IOException {
    Class<?> type = HttpCall.class;
    String user = null;
    String connection = null;
    String admit = null;
    long generation = 0;
    boolean generationSeen = false;
    long parcelGeneration = 0;
    boolean parcelSeen = false;
    String method = null;
    String path = null;
    String query = null;
    List<List<String>> headers = null;
    byte[] body = null;
    MoveInfo move = null;
    Boolean socketless = null;
    String credential = null;
    String successor = null;
    for (String field = json.nextFieldName(); field != null; field = json.nextFieldName()) {
      json.nextToken();
      switch (field) {
        case "user" -> user = FieldValues.string(json, type, field);
        case "connection" -> connection = FieldValues.string(json, type, field);
        case "admit" -> admit = FieldValues.string(json, type, field);
        case "generation" -> {
          generation = FieldValues.longInteger(json, type, field);
          generationSeen = true;
        }
        case "parcelGeneration" -> {
          parcelGeneration = FieldValues.longInteger(json, type, field);
          parcelSeen = true;
        }
        case "method" -> method = FieldValues.string(json, type, field);
        case "path" -> path = FieldValues.string(json, type, field);
        case "query" -> query = FieldValues.string(json, type, field);
        case "headers" -> headers = FieldValues.stringLists(json, type, field);
        case "body" -> body = FieldValues.bytes(json, type, field);
        case "move" -> move = moveInfo(json);
        case "socketless" -> socketless = FieldValues.nullableBool(json, type, field);
        case "credential" -> credential = FieldValues.string(json, type, field);
        case "successor" -> successor = FieldValues.string(json, type, field);
        default -> json.skipChildren();
      }
    }
    if (!generationSeen || !parcelSeen) {
      throw FieldValues.missing(type, generationSeen ? "parcelGeneration" : "generation");
    }
    return new HttpCall(user, connection, admit, generation, parcelGeneration, method, path, query,
        headers, body, move, socketless, credential, successor);
  }

  /** The {@code move} of an {@link HttpCall}: an object or null. */
  private static MoveInfo moveInfo(JsonParser json) throws IOException {
    Class<?> type = HttpCall.class;
    JsonToken token = json.currentToken();
    if (token == JsonToken.VALUE_NULL) {
      return null;
    }
    if (token != JsonToken.START_OBJECT) {
      throw FieldValues.wrong(type, "move", token, "an object or null");
    }
    String from = null;
    String to = null;
    String refused = null;
    for (String field = json.nextFieldName(); field != null; field = json.nextFieldName()) {
      json.nextToken();
      switch (field) {
        case "from" -> from = FieldValues.string(json, type, "move.from");
        case "to" -> to = FieldValues.string(json, type, "move.to");
        case "refused" -> refused = FieldValues.string(json, type, "move.refused");
        default -> json.skipChildren();
      }
    }
    return new MoveInfo(from, to, refused);
  }

  private static HttpResult httpResult(JsonParser json) throws IOException {
    Class<?> type = HttpResult.class;
    int status = 0;
    boolean statusSeen = false;
    List<List<String>> headers = null;
    byte[] body = null;
    String user = null;
    long watermark = 0;
    boolean watermarkSeen = false;
    for (String field = json.nextFieldName(); field != null; field = json.nextFieldName()) {
      json.nextToken();
      switch (field) {
        case "status" -> {
          status = FieldValues.integer(json, type, field);
          statusSeen = true;
        }
        case "headers" -> headers = FieldValues.stringLists(json, type, field);
        case "body" -> body = FieldValues.bytes(json, type, field);
        case "user" -> user = FieldValues.string(json, type, field);
        case "watermark" -> {
          watermark = FieldValues.longInteger(json, type, field);
          watermarkSeen = true;
        }
        default -> json.skipChildren();
      }
    }
    if (!statusSeen || !watermarkSeen) {
      throw FieldValues.missing(type, statusSeen ? "watermark" : "status");
    }
    return new HttpResult(status, headers, body, user, watermark);
  }

  private static AnnouncementMessage announcement(JsonParser json) throws IOException {
    Class<?> type = AnnouncementMessage.class;
    long seq = 0;
    boolean seqSeen = false;
    String kind = null;
    String user = null;
    List<String> keys = null;
    String detail = null;
    String request = null;
    long generation = 0;
    boolean generationSeen = false;
    for (String field = json.nextFieldName(); field != null; field = json.nextFieldName()) {
      json.nextToken();
      switch (field) {
        case "generation" -> {
          generation = FieldValues.longInteger(json, type, field);
          generationSeen = true;
        }
        case "seq" -> {
          seq = FieldValues.longInteger(json, type, field);
          seqSeen = true;
        }
        case "kind" -> kind = FieldValues.string(json, type, field);
        case "user" -> user = FieldValues.string(json, type, field);
        case "keys" -> keys = FieldValues.strings(json, type, field);
        case "detail" -> detail = FieldValues.string(json, type, field);
        case "request" -> request = FieldValues.string(json, type, field);
        default -> json.skipChildren();
      }
    }
    if (!seqSeen || !generationSeen) {
      throw FieldValues.missing(type, seqSeen ? "generation" : "seq");
    }
    return new AnnouncementMessage(seq, kind, user, keys, detail, generation, request);
  }

  private static UserOrder userOrder(JsonParser json) throws IOException {
    Class<?> type = UserOrder.class;
    String user = null;
    Boolean ofQuit = null;
    Long generation = null;
    for (String field = json.nextFieldName(); field != null; field = json.nextFieldName()) {
      json.nextToken();
      switch (field) {
        case "user" -> user = FieldValues.string(json, type, field);
        case "ofQuit" -> ofQuit = FieldValues.nullableBool(json, type, field);
        case "generation" -> generation = json.currentToken() == JsonToken.VALUE_NULL ? null
            : FieldValues.longInteger(json, type, field);
        default -> json.skipChildren();
      }
    }
    return new UserOrder(user, ofQuit, generation);
  }

  private static FreezeResult freezeResult(JsonParser json) throws IOException {
    Class<?> type = FreezeResult.class;
    String outcome = null;
    String message = null;
    for (String field = json.nextFieldName(); field != null; field = json.nextFieldName()) {
      json.nextToken();
      switch (field) {
        case "outcome" -> outcome = FieldValues.string(json, type, field);
        case "message" -> message = FieldValues.string(json, type, field);
        default -> json.skipChildren();
      }
    }
    return new FreezeResult(outcome, message);
  }

  private static PushMessage pushMessage(JsonParser json) throws IOException {
    Class<?> type = PushMessage.class;
    String target = null;
    String key = null;
    byte[] data = null;
    for (String field = json.nextFieldName(); field != null; field = json.nextFieldName()) {
      json.nextToken();
      switch (field) {
        case "target" -> target = FieldValues.string(json, type, field);
        case "key" -> key = FieldValues.string(json, type, field);
        case "data" -> data = FieldValues.bytes(json, type, field);
        default -> json.skipChildren();
      }
    }
    return new PushMessage(target, key, data);
  }

  private static PushResult pushResult(JsonParser json) throws IOException {
    Class<?> type = PushResult.class;
    int pages = 0;
    boolean pagesSeen = false;
    int written = 0;
    boolean writtenSeen = false;
    for (String field = json.nextFieldName(); field != null; field = json.nextFieldName()) {
      json.nextToken();
      switch (field) {
        case "pages" -> {
          pages = FieldValues.integer(json, type, field);
          pagesSeen = true;
        }
        case "written" -> {
          written = FieldValues.integer(json, type, field);
          writtenSeen = true;
        }
        default -> json.skipChildren();
      }
    }
    if (!pagesSeen || !writtenSeen) {
      throw FieldValues.missing(type, pagesSeen ? "written" : "pages");
    }
    return new PushResult(pages, written);
  }

  private static ProtocolException notAnObject(Class<?> type, JsonToken first) {
    if (first == JsonToken.VALUE_NULL) {
      return new ProtocolException("a " + type.getSimpleName() + " message was null");
    }
    return new ProtocolException("a " + type.getSimpleName() + " message did not read: "
        + (first == null ? "it is empty" : "it is " + FieldValues.describe(first)
            + ", not an object"));
  }
}
