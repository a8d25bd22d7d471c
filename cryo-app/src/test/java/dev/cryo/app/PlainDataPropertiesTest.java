package dev.cryo.app;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/** Properties of the trip to plain data and back. */
class PlainDataPropertiesTest {

  /** A state holding any plain value. */
  record Box(String name, Object value, List<Object> many, Map<String, Object> byKey) {}

  @Provide
  Arbitrary<Object> plain() {
    return plainOfDepth(3);
  }

  private Arbitrary<Object> plainOfDepth(int depth) {
    Arbitrary<Object> leaf = Arbitraries.oneOf(
        Arbitraries.strings().withCharRange('\u0000', '\uD7FF').withCharRange('\uE000', '\uFFFF')
            .ofMaxLength(8).map(s -> (Object) s), // well-formed: a lone surrogate is refused

        Arbitraries.longs().map(n -> (Object) n),
        Arbitraries.integers().map(n -> (Object) n),
        Arbitraries.doubles().map(d -> (Object) d),
        Arbitraries.of(true, false).map(b -> (Object) b),
        Arbitraries.bytes().array(byte[].class).ofMaxSize(6).map(b -> (Object) b));
    if (depth == 0) {
      return leaf;
    }
    Arbitrary<Object> inner = plainOfDepth(depth - 1);
    return Arbitraries.frequencyOf(
        net.jqwik.api.Tuple.of(4, leaf),
        net.jqwik.api.Tuple.of(1, inner.list().ofMaxSize(4).map(l -> (Object) l)),
        net.jqwik.api.Tuple.of(1, Arbitraries.maps(keys(), inner).ofMaxSize(4)
            .map(m -> (Object) m)));
  }

  private static Arbitrary<String> keys() {
    return Arbitraries.strings().withChars("ab.%2E5").ofMaxLength(5);
  }

  @Property(tries = 300)
  void anyPlainStateComesBackAsItWasWrittenAndThroughAFreeze(@ForAll("plain") Object value,
      @ForAll("plain") Object element, @ForAll("plain") Object byKey) {
    Box box = new Box("box", value, List.of(element), Map.of("k.k", byKey));

    Object plain = PlainData.write(box, Box.class);

    assertThat(PlainData.isPlain(plain)).isTrue();
    Box back = PlainData.read(PlainData.thaw(plain), Box.class);
    assertThat(PlainData.difference(PlainData.write(back, Box.class), plain, "Box")).isNull();
    assertThat(PlainData.difference(back.value(), value, "value")).isNull();
    assertThat(PlainData.difference(back.byKey(), Map.of("k.k", byKey), "byKey")).isNull();
  }

  @Property
  void keysEscapeToStoreKeysAndBack(@ForAll("anyKey") String key) {
    String escaped = PlainData.escape(key);
    assertThat(escaped).isNotEmpty().doesNotContain(".");
    assertThat(PlainData.unescape(escaped)).isEqualTo(key);
  }

  @Provide
  Arbitrary<String> anyKey() {
    return Arbitraries.strings().withChars("a.%25E").ofMaxLength(10);
  }
}
