package dev.cryo.register;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.cryo.register.StoreException.Reason;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class StoreTest {

  @Test
  void setCreatesTheMapsOnTheWayAndGetReadsThemBack() {
    Store store = new Store();
    assertThat(store.isEmpty()).isTrue();
    assertThat(store.set("a.b.c", "x")).isNull();
    assertThat(store.get("a.b.c")).isEqualTo("x");
    assertThat(store.get("a")).isEqualTo(Map.of("b", Map.of("c", "x")));
    assertThat(store.contains("a.b")).isTrue();
    assertThat(store.contains("a.z")).isFalse();
    assertThat(store.get("a.z.q")).isNull();
    assertThat(store.set("a.b.c", 7)).isEqualTo("x");
    assertThat(store.get("a.b.c", Integer.class)).isEqualTo(7);
  }

  @Test
  void mapsKeepInsertionOrder() {
    Store store = new Store();
    store.set("z", 1);
    store.set("a", 2);
    store.set("m", Map.of("only", true));
    store.set("a", 3); // replacing keeps the place
    assertThat(store.keys()).containsExactly("z", "a", "m");
    LinkedHashMap<String, Object> nested = new LinkedHashMap<>();
    nested.put("second", 2);
    nested.put("first", 1);
    store.set("n", nested);
    assertThat(List.copyOf(((Map<?, ?>) store.get("n")).keySet())).isEqualTo(List.of("second", "first"));
  }

  @Test
  void listsAreAddressedByIndexAndOnePastTheEndAppends() {
    Store store = new Store();
    store.set("l", List.of("a", "b"));
    assertThat(store.get("l.1")).isEqualTo("b");
    store.set("l.2", "c");
    assertThat(store.get("l")).isEqualTo(List.of("a", "b", "c"));
    store.set("l.3.name", "d"); // an intermediate one past the end appends a map
    assertThat(store.get("l.3")).isEqualTo(Map.of("name", "d"));
    assertThat(store.remove("l.0")).isEqualTo("a");
    assertThat(store.get("l.0")).isEqualTo("b");
    assertThat(store.get("l.9")).isNull();
    assertThat(store.remove("l.9")).isNull();
    assertThatThrownBy(() -> store.set("l.9", "x")).isInstanceOf(StoreException.class)
        .extracting(e -> ((StoreException) e).reason()).isEqualTo(Reason.INDEX_OUT_OF_RANGE);
    assertThatThrownBy(() -> store.get("l.first")).isInstanceOf(StoreException.class)
        .extracting(e -> ((StoreException) e).reason()).isEqualTo(Reason.NOT_AN_INDEX);
  }

  @Test
  void aSegmentMeansAKeyAtAMapAndAnIndexAtAList() {
    Store store = new Store();
    store.set("m.0", "key zero");
    store.set("l", List.of("element zero"));
    assertThat(store.get("m.0")).isEqualTo("key zero");
    assertThat(store.get("l.0")).isEqualTo("element zero");
  }

  @Test
  void holdsEveryKindOfValueItPromises() {
    Store store = new Store();
    store.set("s", "text");
    store.set("t", true);
    store.set("i", 1);
    store.set("l", 2L);
    store.set("d", 2.5d);
    store.set("f", 1.5f);
    store.set("big", new BigDecimal("1.10"));
    store.set("bytes", new byte[] {1, 2, 3});
    store.set("nested", List.of(Map.of("k", List.of(1, 2)), "x"));
    assertThat(store.get("bytes", byte[].class)).containsExactly(1, 2, 3);
    assertThat(store.get("big")).isEqualTo(new BigDecimal("1.10"));
    assertThat(store.get("nested.0.k.1")).isEqualTo(2);
    assertThat(store.keys()).hasSize(9);
  }

  @Test
  void theStoreOwnsItsContent() {
    Store store = new Store();
    byte[] bytes = {1, 2};
    List<Object> list = new ArrayList<>(List.of("a"));
    store.set("b", bytes);
    store.set("l", list);
    bytes[0] = 9;
    list.add("b");
    assertThat(store.get("b", byte[].class)).containsExactly(1, 2);
    assertThat(store.get("l")).isEqualTo(List.of("a"));
    byte[] read = store.get("b", byte[].class);
    read[0] = 9;
    assertThat(store.get("b", byte[].class)).containsExactly(1, 2);
    @SuppressWarnings("unchecked")
    List<Object> readList = (List<Object>) store.get("l");
    assertThatThrownBy(() -> readList.add("x")).isInstanceOf(UnsupportedOperationException.class);
    Store copy = store.copy();
    copy.set("l.1", "only in the copy");
    assertThat(store.get("l")).isEqualTo(List.of("a"));
    assertThat(copy).isNotEqualTo(store);
  }

  @Test
  void refusedWritesChangeNothing() {
    Store store = new Store();
    store.set("a.b", "scalar");
    Store before = store.copy();
    Map<String, Object> selfContaining = new HashMap<>();
    selfContaining.put("me", selfContaining);
    expectRefusal(() -> store.set("a.b.c", 1), Reason.NOT_A_CONTAINER);
    expectRefusal(() -> store.set("x.y", new Object()), Reason.UNSUPPORTED_VALUE);
    expectRefusal(() -> store.set("x.y", List.of(new AtomicInteger())), Reason.UNSUPPORTED_VALUE);
    expectRefusal(() -> store.set("x", null), Reason.UNSUPPORTED_VALUE);
    expectRefusal(() -> store.set("x", Map.of("a.b", 1)), Reason.INVALID_KEY);
    expectRefusal(() -> store.set("x", Map.of("", 1)), Reason.INVALID_KEY);
    expectRefusal(() -> store.set("x", Map.of(1, 1)), Reason.INVALID_KEY);
    expectRefusal(() -> store.set("x", selfContaining), Reason.TOO_DEEP);
    expectRefusal(() -> store.set("a..b", 1), Reason.MALFORMED_PATH);
    expectRefusal(() -> store.set("", 1), Reason.MALFORMED_PATH);
    expectRefusal(() -> store.set(".a", 1), Reason.MALFORMED_PATH);
    expectRefusal(() -> store.get("a.b", Integer.class), Reason.WRONG_TYPE);
    assertThat(store).isEqualTo(before);
    assertThat(store.keys()).containsExactly("a");
  }

  @Test
  void removingTheLastValueLeavesAnEmptyStore() {
    Store store = new Store();
    store.set("a", 1);
    assertThat(store.remove("a")).isEqualTo(1);
    assertThat(store.isEmpty()).isTrue();
    assertThat(store.toMap()).isEmpty();
    assertThat(store).isEqualTo(new Store());
  }

  @Test
  void equalityIsByContentAndCopyOfRoundTrips() {
    Store store = Store.copyOf(Map.of("a", List.of(1, "x"), "b", new byte[] {4}));
    Store again = Store.copyOf(store.toMap());
    assertThat(again).isEqualTo(store).hasSameHashCodeAs(store);
    assertThat(again.toString()).contains("bytes[1]");
    again.set("b", new byte[] {5});
    assertThat(again).isNotEqualTo(store);
  }

  private static void expectRefusal(Runnable call, Reason reason) {
    assertThatThrownBy(call::run).isInstanceOf(StoreException.class)
        .satisfies(e -> assertThat(((StoreException) e).reason()).isEqualTo(reason))
        .hasMessageContaining("nothing was changed");
  }
}
