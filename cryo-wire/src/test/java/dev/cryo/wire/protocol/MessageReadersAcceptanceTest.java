package dev.cryo.wire.protocol;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Random;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.statistics.Statistics;

/**
 * Valid messages mutated ({@link JsonMutations}) are accepted or refused by the hand-written
 * readers exactly as by data binding, with equal values when accepted, except where the text uses
 * one of the scalar coercions {@link MessageReaders} refuses deliberately: there the hand-written
 * reader must refuse, whatever data binding does. Every refusal is a {@link ProtocolException}
 * naming the message's type.
 */
class MessageReadersAcceptanceTest extends MessageProviders {

  /** The JSON types a field takes: what data binding coerces into it is a deliberate difference. */
  enum Kind { STRING, BOOLEAN, INTEGER, BYTES, STRINGS, STRING_LISTS, MOVE }

  private static final Map<Class<?>, Map<String, Kind>> SCHEMA = Map.of(
      HttpCall.class, Map.ofEntries(Map.entry("user", Kind.STRING),
          Map.entry("connection", Kind.STRING), Map.entry("admit", Kind.STRING),
          Map.entry("generation", Kind.INTEGER), Map.entry("parcelGeneration", Kind.INTEGER),
          Map.entry("method", Kind.STRING), Map.entry("path", Kind.STRING),
          Map.entry("query", Kind.STRING), Map.entry("headers", Kind.STRING_LISTS),
          Map.entry("body", Kind.BYTES), Map.entry("move", Kind.MOVE),
          Map.entry("socketless", Kind.BOOLEAN), Map.entry("credential", Kind.STRING),
          Map.entry("successor", Kind.STRING)),
      HttpResult.class, Map.of("status", Kind.INTEGER, "headers", Kind.STRING_LISTS, "body",
          Kind.BYTES, "user", Kind.STRING, "watermark", Kind.INTEGER),
      AnnouncementMessage.class, Map.of("seq", Kind.INTEGER, "kind", Kind.STRING, "user",
          Kind.STRING, "keys", Kind.STRINGS, "detail", Kind.STRING, "generation", Kind.INTEGER,
          "request", Kind.STRING),
      UserOrder.class, Map.of("user", Kind.STRING, "ofQuit", Kind.BOOLEAN, "generation",
          Kind.INTEGER),
      FreezeResult.class, Map.of("outcome", Kind.STRING, "message", Kind.STRING),
      PushMessage.class, Map.of("target", Kind.STRING, "key", Kind.STRING, "data", Kind.BYTES),
      PushResult.class, Map.of("pages", Kind.INTEGER, "written", Kind.INTEGER));

  /** Trees as strict as the protocol's parser, to find the coercions in a mutated text. */
  private static final ObjectMapper TREES = JsonMapper.builder()
      .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
      .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION).build();

  @Property(tries = 1500)
  void mutatedHttpCallsAreTakenAsByDataBinding(@ForAll("httpCalls") HttpCall call,
      @ForAll Random random) throws IOException {
    check(HttpCall.class, ProtocolCodec.write(call), random);
  }

  @Property(tries = 1500)
  void mutatedHttpResultsAreTakenAsByDataBinding(@ForAll("httpResults") HttpResult result,
      @ForAll Random random) throws IOException {
    check(HttpResult.class, ProtocolCodec.write(result), random);
  }

  @Property(tries = 1000)
  void mutatedAnnouncementsAreTakenAsByDataBinding(
      @ForAll("announcements") AnnouncementMessage announcement, @ForAll Random random)
      throws IOException {
    check(AnnouncementMessage.class, ProtocolCodec.write(announcement), random);
  }

  @Property(tries = 1000)
  void mutatedUserOrdersAreTakenAsByDataBinding(@ForAll("userOrders") UserOrder order,
      @ForAll Random random) throws IOException {
    check(UserOrder.class, ProtocolCodec.write(order), random);
  }

  @Property(tries = 1000)
  void mutatedFreezeResultsAreTakenAsByDataBinding(@ForAll("freezeResults") FreezeResult result,
      @ForAll Random random) throws IOException {
    check(FreezeResult.class, ProtocolCodec.write(result), random);
  }

  @Property(tries = 1000)
  void mutatedPushMessagesAreTakenAsByDataBinding(@ForAll("pushMessages") PushMessage push,
      @ForAll Random random) throws IOException {
    check(PushMessage.class, ProtocolCodec.write(push), random);
  }

  @Property(tries = 1000)
  void mutatedPushResultsAreTakenAsByDataBinding(@ForAll("pushResults") PushResult result,
      @ForAll Random random) throws IOException {
    check(PushResult.class, ProtocolCodec.write(result), random);
  }

  private static <T> void check(Class<T> type, byte[] valid, Random random) throws IOException {
    String text = JsonMutations.mutate(valid, random);
    byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
    Object byHand = outcome(() -> ProtocolCodec.read(bytes, type));
    Object bound = outcome(() -> ProtocolCodec.readBound(bytes, type));
    if (byHand instanceof ProtocolException refusal) {
      assertThat(refusal).hasMessageContaining(type.getSimpleName());
    }
    Statistics.label("outcome").collect(coerces(type, text)
        ? (bound instanceof ProtocolException ? "a coercion, refused by both" : "a coercion")
        : bound instanceof ProtocolException ? "refused" : "accepted");
    Statistics.label("outcome").coverage(coverage -> { // the mutations reach every outcome
      coverage.check("accepted").percentage(p -> p >= 3);
      coverage.check("refused").percentage(p -> p >= 20);
      coverage.check("a coercion").count(n -> n >= 3);
    });
    if (coerces(type, text)) {
      assertThat(byHand).as("a coercion data binding makes (%s) is refused by hand: %s",
          bound instanceof ProtocolException ? "refused there too" : "accepted there", text)
          .isInstanceOf(ProtocolException.class);
      return;
    }
    if (bound instanceof ProtocolException) {
      assertThat(byHand).as("refused by data binding (%s), so by hand: %s", bound, text)
          .isInstanceOf(ProtocolException.class);
    } else {
      if (byHand instanceof ProtocolException refusal) {
        fail("accepted by data binding, refused by hand (" + refusal.getMessage() + "): " + text);
      }
      assertThat(byHand).as(text).usingRecursiveComparison(
          HandWrittenCodecPropertiesTest.BY_CONTENT).isEqualTo(bound);
    }
  }

  private static Object outcome(java.util.function.Supplier<Object> read) {
    try {
      return read.get();
    } catch (ProtocolException e) {
      return e;
    }
  }

  /** Whether {@code text} gives a known field a JSON type data binding coerces into it. */
  static boolean coerces(Class<?> type, String text) {
    JsonNode root;
    try {
      root = TREES.readTree(text);
    } catch (IOException e) {
      return false; // not JSON: both must refuse
    }
    if (root == null || !root.isObject()) {
      return false;
    }
    for (Map.Entry<String, Kind> field : SCHEMA.get(type).entrySet()) {
      JsonNode value = root.get(field.getKey());
      if (value != null && coerces(field.getValue(), value)) {
        return true;
      }
    }
    return false;
  }

  private static boolean coerces(Kind kind, JsonNode value) {
    return switch (kind) {
      case STRING -> value.isNumber() || value.isBoolean();
      case BOOLEAN -> value.isTextual() || value.isIntegralNumber();
      case INTEGER -> value.isTextual() || value.isFloatingPointNumber();
      case BYTES -> value.isArray();
      case STRINGS -> value.isArray() && anyElement(value, Kind.STRING);
      case STRING_LISTS -> value.isArray() && anyElement(value, Kind.STRINGS);
      case MOVE -> value.isObject() && (in(value, "from") || in(value, "to")
          || in(value, "refused"));
    };
  }

  private static boolean anyElement(JsonNode array, Kind kind) {
    for (JsonNode element : array) {
      if (coerces(kind, element)) {
        return true;
      }
    }
    return false;
  }

  private static boolean in(JsonNode object, String field) {
    return object.has(field) && coerces(Kind.STRING, object.get(field));
  }
}
