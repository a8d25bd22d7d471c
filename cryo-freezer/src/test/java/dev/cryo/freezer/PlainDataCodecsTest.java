package dev.cryo.freezer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.cbor.databind.CBORMapper;
import com.fasterxml.jackson.dataformat.smile.databind.SmileMapper;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.io.Serializable;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Both built-in codecs, {@link SmileCodec} (the default) and {@link CborCodec}, to one contract. */
class PlainDataCodecsTest {

  /** A class a hostile parcel names; its constructor and readObject record any instantiation. */
  public static final class Planted implements Serializable {
    static volatile boolean instantiated;
    public String value = "x";

    public Planted() {
      instantiated = true;
    }

    private void readObject(ObjectInputStream in) throws IOException, ClassNotFoundException {
      instantiated = true;
      in.defaultReadObject();
    }
  }

  static Stream<Arguments> codecs() {
    return Stream.of(
        Arguments.of(new SmileCodec(), new SmileMapper()),
        Arguments.of(new CborCodec(), new CBORMapper()));
  }

  @BeforeEach
  void reset() {
    Planted.instantiated = false;
  }

  @ParameterizedTest
  @MethodSource("codecs")
  void aTreeOfPlainValuesComesBackEqual(ParcelCodec codec, ObjectMapper unused) throws Exception {
    Map<String, Object> page = new LinkedHashMap<>();
    page.put("title", "Cart ✓ \uD83D\uDE00");
    page.put("count", 3);
    page.put("big", 12_345_678_901L);
    page.put("ratio", 0.25);
    page.put("ok", true);
    page.put("nothing", null);
    page.put("bytes", new byte[] {0, 1, (byte) 0xFF});
    page.put("list", List.of("a", 1, List.of(), Map.of()));
    Object back = codec.decode(codec.encode(Map.of("pages", List.of(page))));
    @SuppressWarnings("unchecked")
    Map<String, Object> read = (Map<String, Object>) ((List<?>) ((Map<?, ?>) back).get("pages")).get(0);
    assertThat(read).containsEntry("title", "Cart ✓ \uD83D\uDE00").containsEntry("count", 3)
        .containsEntry("big", 12_345_678_901L).containsEntry("ratio", 0.25).containsEntry("ok", true)
        .containsEntry("nothing", null).containsEntry("list", List.of("a", 1, List.of(), Map.of()));
    assertThat((byte[]) read.get("bytes")).containsExactly(0, 1, 0xFF);
  }

  @ParameterizedTest
  @MethodSource("codecs")
  void anObjectThatIsNotPlainDataIsRefusedOnWriteNamingWhereItSits(ParcelCodec codec,
      ObjectMapper unused) {
    assertThatThrownBy(() -> codec.encode(Map.of("user", Map.of("cart", List.of(new Planted())))))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("the payload.user.cart[0] is a " + Planted.class.getName())
        .hasMessageContaining("; the " + codec.name() + " codec maps maps, lists");
    assertThatThrownBy(() -> codec.encode(Map.of(1, "x"))).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> codec.encode(Map.of("a", List.of("ok", "x\uD800"))))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("the payload.a[1]")
        .hasMessageContaining("lone surrogate");
    assertThatThrownBy(() -> codec.encode(Map.of("\uDC00", 1))).isInstanceOf(IllegalArgumentException.class);
  }

  @ParameterizedTest
  @MethodSource("codecs")
  void typeHintsNamingAClassAreReadAsPlainDataNeverInstantiated(ParcelCodec codec,
      ObjectMapper hostile) throws Exception {
    String name = Planted.class.getName();
    Object property = codec.decode(hostile.writeValueAsBytes(Map.of("@class", name, "value", "y")));
    Object wrapperArray = codec.decode(hostile.writeValueAsBytes(List.of(name, Map.of("value", "y"))));
    Object wrapperObject = codec.decode(hostile.writeValueAsBytes(Map.of(name, Map.of("value", "y"))));
    assertThat(property).isEqualTo(Map.of("@class", name, "value", "y"));
    assertThat(wrapperArray).isEqualTo(List.of(name, Map.of("value", "y")));
    assertThat(wrapperObject).isInstanceOf(Map.class);
    assertThat(Planted.instantiated).isFalse();
  }

  @ParameterizedTest
  @MethodSource("codecs")
  void aJavaSerializedObjectIsRefusedNeverInstantiated(ParcelCodec codec, ObjectMapper unused)
      throws Exception {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
      out.writeObject(new Planted());
    }
    Planted.instantiated = false;
    byte[] serialized = bytes.toByteArray();
    try {
      Object read = codec.decode(serialized);
      assertThat(read).isNotInstanceOf(Planted.class);
    } catch (IOException refused) {
      // refused as invalid: the other acceptable outcome
    }
    assertThat(Planted.instantiated).isFalse();
    // The fixture works: plain Java deserialisation does instantiate it.
    try (ObjectInputStream in = new ObjectInputStream(new java.io.ByteArrayInputStream(serialized))) {
      assertThat(in.readObject()).isInstanceOf(Planted.class);
    }
    assertThat(Planted.instantiated).isTrue();
  }

  @ParameterizedTest
  @MethodSource("codecs")
  void integersComeBackInTheNarrowestTypeThatHoldsThem(ParcelCodec codec, ObjectMapper unused)
      throws Exception {
    Map<String, Object> numbers = new LinkedHashMap<>();
    numbers.put("smallLong", 5L);
    numbers.put("short", (short) 7);
    numbers.put("bigLong", 12_345_678_901L);
    numbers.put("huge", new java.math.BigInteger("123456789012345678901234567890"));
    Object back = codec.decode(codec.encode(numbers));
    assertThat(back).isEqualTo(Map.of("smallLong", 5, "short", 7, "bigLong", 12_345_678_901L,
        "huge", new java.math.BigInteger("123456789012345678901234567890")));
  }

  @ParameterizedTest
  @MethodSource("codecs")
  void aPayloadIsDecodedFromItsRangeOfALargerArrayAndTrailingBytesInTheRangeAreRefused(
      ParcelCodec codec, ObjectMapper unused) throws Exception {
    Map<String, Object> value = new LinkedHashMap<>();
    value.put("cart", List.of(1, 2, 3));
    value.put("name", "alice");
    byte[] one = codec.encode(value);
    byte[] around = new byte[one.length * 2 + 11];
    java.util.Arrays.fill(around, (byte) 0x7F);
    System.arraycopy(one, 0, around, 5, one.length);
    assertThat(codec.decode(around, 5, one.length)).isEqualTo(value);
    System.arraycopy(one, 0, around, 5 + one.length, one.length);
    assertThatThrownBy(() -> codec.decode(around, 5, 2 * one.length))
        .isInstanceOf(IOException.class);
    assertThatThrownBy(() -> codec.decode(around, 5, around.length))
        .isInstanceOf(IndexOutOfBoundsException.class);
    ParcelCodec plain = new ParcelCodec() { // only the whole-array decode: the default range one
      @Override
      public String name() {
        return codec.name();
      }

      @Override
      public byte[] encode(Object payload) {
        return codec.encode(payload);
      }

      @Override
      public Object decode(byte[] bytes) throws IOException {
        return codec.decode(bytes);
      }
    };
    assertThat(plain.decode(around, 5, one.length)).isEqualTo(value);
    assertThatThrownBy(() -> plain.decode(around, 5, 2 * one.length))
        .isInstanceOf(IOException.class);
  }

  @ParameterizedTest
  @MethodSource("codecs")
  void trailingBytesAreRefused(ParcelCodec codec, ObjectMapper unused) {
    byte[] one = codec.encode(Map.of("a", 1));
    byte[] two = new byte[one.length * 2];
    System.arraycopy(one, 0, two, 0, one.length);
    System.arraycopy(one, 0, two, one.length, one.length);
    assertThatThrownBy(() -> codec.decode(two)).isInstanceOf(IOException.class);
  }
}
