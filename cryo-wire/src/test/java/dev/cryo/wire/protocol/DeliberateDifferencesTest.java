package dev.cryo.wire.protocol;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/**
 * The scalar coercions of data binding that the hand-written readers refuse on purpose, one test
 * per entry of the list in {@link MessageReaders} (and in docs/wire.md, "Messages written by
 * hand"): each shows what data binding makes of the text, and that the hand-written reader refuses
 * it naming the message's type and the field.
 */
class DeliberateDifferencesTest {

  private static final String RESULT = "\"headers\":[],\"body\":\"\",\"user\":null";

  @Test
  void anIntegerFieldTakesNoStringAndNoFraction() {
    assertThat(bound("{\"status\":\"5\",\"watermark\":1}", HttpResult.class).status()).isEqualTo(5);
    assertThat(bound("{\"status\":\" +5 \",\"watermark\":1}", HttpResult.class).status())
        .isEqualTo(5);
    assertThat(bound("{\"status\":200,\"watermark\":1.9}", HttpResult.class).watermark())
        .isEqualTo(1);
    assertThat(bound("{\"seq\":1e2,\"kind\":\"k\",\"generation\":0}", AnnouncementMessage.class).seq())
        .isEqualTo(100);
    assertThat(bound("{\"pages\":\"2\",\"written\":1}", PushResult.class).pages()).isEqualTo(2);

    refused("{\"status\":\"5\",\"watermark\":1," + RESULT + "}", HttpResult.class,
        "its field 'status' is a string, not an integer");
    refused("{\"status\":\" +5 \",\"watermark\":1}", HttpResult.class, "'status' is a string");
    refused("{\"status\":200,\"watermark\":1.9}", HttpResult.class,
        "its field 'watermark' is a number with a fraction or an exponent, not an integer");
    refused("{\"status\":200,\"watermark\":5.0}", HttpResult.class, "'watermark' is a number");
    refused("{\"seq\":1e2,\"kind\":\"k\",\"generation\":0}", AnnouncementMessage.class, "'seq' is a number");
    refused("{\"pages\":\"2\",\"written\":1}", PushResult.class, "'pages' is a string");
  }

  @Test
  void aBooleanFieldTakesNoStringAndNoNumber() {
    assertThat(bound("{\"user\":\"u\",\"ofQuit\":\"TRUE\"}", UserOrder.class).ofQuit()).isTrue();
    assertThat(bound("{\"user\":\"u\",\"ofQuit\":2}", UserOrder.class).ofQuit()).isTrue();
    assertThat(bound(call("\"socketless\":\"\""), HttpCall.class).socketless())
        .isNull();
    assertThat(bound(call("\"socketless\":\"null\""), HttpCall.class)
        .socketless()).isNull();
    assertThat(bound(call("\"socketless\":0"), HttpCall.class).socketless())
        .isFalse();

    refused("{\"user\":\"u\",\"ofQuit\":\"TRUE\"}", UserOrder.class,
        "its field 'ofQuit' is a string, not true, false or null");
    refused("{\"user\":\"u\",\"ofQuit\":2}", UserOrder.class, "'ofQuit' is an integer");
    refused(call("\"socketless\":\"\""), HttpCall.class,
        "'socketless' is a string");
    refused(call("\"socketless\":\"null\""), HttpCall.class,
        "'socketless' is a string");
    refused(call("\"socketless\":0"), HttpCall.class,
        "'socketless' is an integer");
  }

  @Test
  void aStringFieldOrElementTakesNoNumberAndNoBoolean() {
    assertThat(bound("{\"user\":5.5e3}", UserOrder.class).user()).isEqualTo("5.5e3");
    assertThat(bound("{\"user\":true}", UserOrder.class).user()).isEqualTo("true");
    assertThat(bound("{\"outcome\":0}", FreezeResult.class).outcome()).isEqualTo("0");
    assertThat(bound("{\"seq\":1,\"kind\":\"k\",\"generation\":0,\"keys\":[\"a\",1]}", AnnouncementMessage.class)
        .keys()).containsExactly("a", "1");
    assertThat(bound("{\"status\":200,\"watermark\":1,\"headers\":[[\"a\",false]]}",
        HttpResult.class).headers()).containsExactly(java.util.List.of("a", "false"));
    assertThat(bound(call("\"move\":{\"from\":7}"), HttpCall.class).move()
        .from()).isEqualTo("7");

    refused("{\"user\":5.5e3}", UserOrder.class, "its field 'user' is a number with a fraction"
        + " or an exponent, not a string or null");
    refused("{\"user\":true}", UserOrder.class, "'user' is a boolean");
    refused("{\"outcome\":0}", FreezeResult.class, "'outcome' is an integer");
    refused("{\"seq\":1,\"kind\":\"k\",\"generation\":0,\"keys\":[\"a\",1]}", AnnouncementMessage.class,
        "its field 'keys' holds an integer where a string or null goes");
    refused("{\"status\":200,\"watermark\":1,\"headers\":[[\"a\",false]]}", HttpResult.class,
        "its field 'headers' holds a boolean where a string or null goes");
    refused(call("\"move\":{\"from\":7}"), HttpCall.class,
        "its field 'move.from' is an integer");
  }

  @Test
  void aBytesFieldTakesBase64AndNoArrayOfNumbers() {
    assertThat(bound("{\"status\":200,\"watermark\":1,\"body\":[1,2,255]}", HttpResult.class)
        .body()).containsExactly(1, 2, -1);
    assertThat(bound("{\"target\":\"page\",\"key\":\"k\",\"data\":[\"1\",2.5]}",
        PushMessage.class).data()).containsExactly(1, 2);
    assertThat(bound(call("\"body\":[]"), HttpCall.class).body()).isEmpty();

    refused("{\"status\":200,\"watermark\":1,\"body\":[1,2,255]}", HttpResult.class,
        "its field 'body' is an array, not a base64 string or null");
    refused("{\"target\":\"page\",\"key\":\"k\",\"data\":[\"1\",2.5]}", PushMessage.class,
        "'data' is an array");
    refused(call("\"body\":[]"), HttpCall.class, "'body' is an array");
    // The same values in base64 read alike.
    assertThat(ProtocolCodec.read(bytes("{\"status\":200,\"watermark\":1,\"body\":\"AQL/\"}"),
        HttpResult.class).body()).containsExactly(1, 2, -1);
  }

  private static String call(String more) {
    return "{\"connection\":\"c\",\"admit\":\"live\",\"generation\":1,"
        + "\"parcelGeneration\":0,\"method\":\"GET\",\"path\":\"/\"," + more + "}";
  }

  private static <T> T bound(String json, Class<T> type) {
    return ProtocolCodec.readBound(bytes(json), type);
  }

  private static void refused(String json, Class<?> type, String why) {
    assertThatThrownBy(() -> ProtocolCodec.read(bytes(json), type))
        .isInstanceOf(ProtocolException.class)
        .hasMessageStartingWith("a " + type.getSimpleName() + " message did not read: ")
        .hasMessageContaining(why);
  }

  private static byte[] bytes(String text) {
    return text.getBytes(StandardCharsets.UTF_8);
  }
}
