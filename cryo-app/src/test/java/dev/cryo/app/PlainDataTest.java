package dev.cryo.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/** Typed state to plain data and back: what survives, what is refused and how it is named. */
class PlainDataTest {

  enum Colour { RED, GREEN }

  record Inner(String label, List<Integer> marks) {}

  record Rich(long count, int small, double ratio, boolean flag, String text, Colour colour,
      byte[] bytes, List<String> lines, Set<String> tags, Map<String, Integer> scores,
      Inner inner, Instant at, Duration took, LocalDate day, Object any) {}

  @Test
  void aRichRecordComesBackAsItWasWritten() {
    Rich rich = new Rich(1L << 40, 7, 0.25, true, "é\u0000x", Colour.GREEN, new byte[] {0, -1, 7},
        List.of("a", "b"), Set.of("x", "y", "z"), Map.of("a.b", 1, "%", 2, "", 3),
        new Inner("in", List.of(1, 2)), Instant.parse("2030-01-01T00:00:00.123Z"),
        Duration.ofMillis(1500), LocalDate.of(2030, 2, 3), Map.of("k", List.of(1, "two")));

    Object plain = PlainData.write(rich, Rich.class);

    assertThat(PlainData.isPlain(plain)).isTrue();
    Rich back = PlainData.read(PlainData.thaw(plain), Rich.class);
    assertThat(back).usingRecursiveComparison().ignoringFields("bytes").isEqualTo(rich);
    assertThat(back.bytes()).containsExactly(0, -1, 7);
    @SuppressWarnings("unchecked")
    Map<String, Object> map = (Map<String, Object>) plain;
    assertThat(map.get("at")).isEqualTo("2030-01-01T00:00:00.123Z");
    assertThat(((Map<?, ?>) map.get("scores")).keySet()).isEqualTo(Set.of("a%2Eb", "%25", "%"));
  }

  record Job(String name, Thread worker) {}

  @Test
  void aThreadIsRefusedNamingTheField() {
    assertThatThrownBy(() -> PlainData.write(new Job("j", Thread.currentThread()), Job.class))
        .isInstanceOfSatisfying(StateException.class, e -> {
          assertThat(e.reason()).isEqualTo(StateException.Reason.NOT_FREEZABLE);
          assertThat(e.field()).isEqualTo("Job.worker");
        })
        .hasMessageContaining("Job.worker holds a java.lang.Thread")
        .hasMessageContaining("nothing was written");
  }

  record Holder(String name, Object callback) {}

  record Typed(Runnable action) {}

  @Test
  void aLambdaIsRefusedNamingTheField() {
    Runnable lambda = () -> { };
    assertThatThrownBy(() -> PlainData.write(new Holder("h", lambda), Holder.class))
        .isInstanceOfSatisfying(StateException.class,
            e -> assertThat(e.field()).isEqualTo("Holder.callback"))
        .hasMessageContaining("lambda");
    assertThatThrownBy(() -> PlainData.write(new Typed(lambda), Typed.class))
        .isInstanceOfSatisfying(StateException.class,
            e -> assertThat(e.field()).isEqualTo("Typed.action"))
        .hasMessageContaining("lambda");
  }

  /** A mutable node, so that a cycle can be made. */
  public static final class Node {
    public String name;
    public Node next;
    public List<Node> children = new ArrayList<>();
  }

  @Test
  void aCycleIsRefusedNamingTheFieldThatClosesIt() {
    Node a = new Node();
    a.name = "a";
    Node b = new Node();
    b.name = "b";
    a.next = b;
    b.next = a;
    assertThatThrownBy(() -> PlainData.write(a, Node.class))
        .isInstanceOfSatisfying(StateException.class,
            e -> assertThat(e.field()).isEqualTo("Node.next.next"))
        .hasMessageContaining("cyclic");

    Node self = new Node();
    self.children.add(self);
    assertThatThrownBy(() -> PlainData.write(self, Node.class))
        .isInstanceOfSatisfying(StateException.class,
            e -> assertThat(e.field()).isEqualTo("Node.children[0]"))
        .hasMessageContaining("cyclic");
  }

  @Test
  void aDeepButAcyclicChainIsRefusedPastTheDepthLimit() {
    Node head = new Node();
    Node tail = head;
    for (int i = 0; i < PlainData.MAX_DEPTH + 5; i++) {
      tail.next = new Node();
      tail = tail.next;
    }
    assertThatThrownBy(() -> PlainData.write(head, Node.class))
        .isInstanceOfSatisfying(StateException.class,
            e -> assertThat(e.field()).startsWith("Node.next.next"))
        .hasMessageContaining("deeper than " + PlainData.MAX_DEPTH);
  }

  record Sheet(List<String> lines) {}

  @Test
  void aNullInAListIsRefusedAndANullFieldIsDropped() {
    assertThatThrownBy(() -> PlainData.write(new Sheet(Arrays.asList("a", null)), Sheet.class))
        .isInstanceOfSatisfying(StateException.class,
            e -> assertThat(e.field()).isEqualTo("Sheet.lines[1]"));
    assertThat(PlainData.write(new Inner(null, List.of()), Inner.class))
        .isEqualTo(Map.of("marks", List.of()));
  }

  @Test
  void textThatIsNotWellFormedUnicodeIsRefusedBeforeTheFreezerWouldBe() {
    assertThatThrownBy(() -> PlainData.write(new Inner("a\uD800b", List.of()), Inner.class))
        .isInstanceOfSatisfying(StateException.class,
            e -> assertThat(e.field()).isEqualTo("Inner.label"))
        .hasMessageContaining("lone surrogate at index 1");
    record Keyed(Map<String, Integer> byName) {}
    assertThatThrownBy(() -> PlainData.write(new Keyed(Map.of("\uDC00", 1)), Keyed.class))
        .isInstanceOf(StateException.class).hasMessageContaining("(its key)");
    assertThat(PlainData.write(new Inner("\uD83D\uDE00", List.of()), Inner.class))
        .isEqualTo(Map.of("label", "\uD83D\uDE00", "marks", List.of()));
  }

  @JsonIgnoreProperties(value = "lost", allowGetters = true)
  public static final class Lossy {
    public String kept;
    private String lost = "from the constructor";

    public String getLost() {
      return lost;
    }

    public void changeLost(String value) {
      lost = value;
    }
  }

  @Test
  void aPropertyWrittenButNotReadIsRefusedBeforeAFreezeLosesIt() {
    Lossy lossy = new Lossy();
    lossy.kept = "k";
    lossy.changeLost("set by the application");
    assertThatThrownBy(() -> PlainData.write(lossy, Lossy.class))
        .isInstanceOfSatisfying(StateException.class,
            e -> assertThat(e.field()).isEqualTo("Lossy.lost"))
        .hasMessageContaining("does not come back as it was written");
  }

  record VersionOne(long visits, String nickname, String retired) {}

  record VersionTwo(long visits, String nickname, List<String> badges, Map<String, Long> streaks,
      int level) {}

  @Test
  void whatOneVersionWroteTheNextReadsIgnoringAndDefaulting() {
    Object plain = PlainData.write(new VersionOne(3, "ann", "gone"), VersionOne.class);
    VersionTwo next = PlainData.read(PlainData.thaw(plain), VersionTwo.class);
    assertThat(next).isEqualTo(new VersionTwo(3, "ann", List.of(), Map.of(), 0));
    assertThat(PlainData.defaultOf(VersionTwo.class))
        .isEqualTo(new VersionTwo(0, null, List.of(), Map.of(), 0));
  }

  /** Version three: {@code visits} became {@code count}; a delegating creator upgrades what older versions wrote. */
  record VersionThree(long count) {
    @com.fasterxml.jackson.annotation.JsonCreator(
        mode = com.fasterxml.jackson.annotation.JsonCreator.Mode.DELEGATING)
    static VersionThree upgrade(Map<String, Object> stored) {
      Object count = stored.containsKey("count") ? stored.get("count") : stored.get("visits");
      return new VersionThree(count instanceof Number number ? number.longValue() : 0);
    }
  }

  @Test
  void aDelegatingCreatorIsTheUpgradeHook() {
    Object old = PlainData.write(new VersionOne(4, "ann", null), VersionOne.class);
    assertThat(PlainData.read(old, VersionThree.class)).isEqualTo(new VersionThree(4));
    Object current = PlainData.write(new VersionThree(5), VersionThree.class);
    assertThat(current).isEqualTo(Map.of("count", 5L));
    assertThat(PlainData.read(PlainData.thaw(current), VersionThree.class))
        .isEqualTo(new VersionThree(5));
  }

  record Strict(String name) {
    Strict {
      if (name == null) {
        throw new IllegalArgumentException("a name is required");
      }
    }
  }

  @Test
  void whatDoesNotReadIsRefusedAsUnreadableNamingTheField() {
    assertThatThrownBy(() -> PlainData.read(Map.of("visits", List.of(1)), VersionTwo.class))
        .isInstanceOfSatisfying(StateException.class, e -> {
          assertThat(e.reason()).isEqualTo(StateException.Reason.UNREADABLE);
          assertThat(e.field()).isEqualTo("VersionTwo.visits");
        });
    assertThatThrownBy(() -> PlainData.defaultOf(Strict.class))
        .isInstanceOfSatisfying(StateException.class,
            e -> assertThat(e.reason()).isEqualTo(StateException.Reason.UNREADABLE))
        .hasMessageContaining("cannot be made from nothing");
  }

  @Test
  void aThawNarrowsIntegersAsTheFreezerDoes() {
    Object thawed = PlainData.thaw(Map.of("small", 5L, "big", 1L << 40,
        "huge", new java.math.BigInteger("123456789012345678901234567890"), "list", List.of(7L)));
    assertThat(thawed).isEqualTo(Map.of("small", 5, "big", 1L << 40,
        "huge", new java.math.BigInteger("123456789012345678901234567890"), "list", List.of(7)));
  }

  @Test
  void keysEscapeOneWayAndComeBack() {
    for (String key : List.of("", ".", "%", "%2E", "a.b.c", "%25.%", "plain")) {
      String escaped = PlainData.escape(key);
      assertThat(escaped).isNotEmpty().doesNotContain(".");
      assertThat(PlainData.unescape(escaped)).isEqualTo(key);
    }
  }

  @Test
  void aSortedMapKeepsItsKeysThroughTheTrip() {
    record Sorted(TreeMap<String, String> byName) {}
    TreeMap<String, String> map = new TreeMap<>(Map.of("b.x", "2", "a", "1"));
    Object plain = PlainData.write(new Sorted(map), Sorted.class);
    assertThat(PlainData.read(plain, Sorted.class).byName()).isEqualTo(map);
  }
}
