package dev.cryo.register;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.cryo.register.RegisterException.Reason;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class RegisterTest {

  private final Register<Row> sockets = Register.of("socket_items", "worker", "zone");

  @Test
  void createGetUpdateDrop() {
    Row row = sockets.create("s1", Map.of("worker", "w1", "opened", 12));
    assertThat(sockets.get("s1")).containsSame(row);
    assertThat(sockets.contains("s1")).isTrue();
    assertThat(sockets.size()).isEqualTo(1);
    assertThat(sockets.keys()).containsExactly("s1");
    assertThat(row.key()).isEqualTo("s1");
    assertThat(row.isRegistered()).isTrue();

    assertThat(sockets.update("s1", Map.of("opened", 13, "extra", "x"))).isSameAs(row);
    assertThat(row.get("opened")).isEqualTo(13);
    assertThat(row.get("worker")).isEqualTo("w1");
    assertThat(row.get("extra")).isEqualTo("x");

    assertThat(sockets.drop("s1")).isSameAs(row);
    assertThat(sockets.get("s1")).isEmpty();
    assertThat(sockets.contains("s1")).isFalse();
    assertThat(row.isRegistered()).isFalse();
    assertThat(sockets.keysBy("worker", "w1")).isEmpty();
  }

  @Test
  void theErrorCasesAreRefusedAndChangeNothing() {
    Row row = sockets.create("s1", Map.of("worker", "w1"));
    Map<String, Object> before = row.fields();
    expect(() -> sockets.create("s1", Map.of("worker", "w2")), Reason.DUPLICATE_KEY);
    expect(() -> sockets.create("s2", Map.of(Row.KEY_FIELD, "s2")), Reason.RESERVED_FIELD);
    expect(() -> sockets.update("s1", Map.of(Row.KEY_FIELD, "other")), Reason.RESERVED_FIELD);
    expect(() -> sockets.update("nope", Map.of("worker", "w2")), Reason.UNKNOWN_KEY);
    expect(() -> sockets.drop("nope"), Reason.UNKNOWN_KEY);
    expect(() -> sockets.keysBy("opened", 1), Reason.NOT_INDEXED);
    expect(() -> row.set(Row.KEY_FIELD, "other"), Reason.RESERVED_FIELD);
    expect(() -> sockets.addIndex(Row.KEY_FIELD), Reason.NOT_INDEXABLE);
    assertThat(row.fields()).isEqualTo(before);
    assertThat(sockets.keys()).containsExactly("s1");
    assertThat(sockets.contains("s2")).isFalse();
    assertThat(sockets.keysBy("worker", "w1")).containsExactly("s1");
    assertThat(sockets.keysBy("worker", "w2")).isEmpty();
  }

  @Test
  void theIndexFollowsUpdatesAndDrops() {
    sockets.create("s1", Map.of("worker", "w1"));
    sockets.create("s2", Map.of("worker", "w1")); // a shared bucket
    sockets.create("s3", Map.of("worker", "w2"));
    assertThat(sockets.keysBy("worker", "w1")).containsExactlyInAnyOrder("s1", "s2");
    sockets.update("s1", Map.of("worker", "w2"));
    assertThat(sockets.keysBy("worker", "w1")).containsExactly("s2");
    assertThat(sockets.keysBy("worker", "w2")).containsExactlyInAnyOrder("s1", "s3");
    sockets.update("s1", Map.of("worker", "w2")); // unchanged: no duplicate in the bucket
    assertThat(sockets.keysBy("worker", "w2")).containsExactlyInAnyOrder("s1", "s3");
    sockets.drop("s3");
    assertThat(sockets.keysBy("worker", "w2")).containsExactly("s1");
    assertInvariants(sockets);
  }

  @Test
  void aMissingOrNullIndexedFieldIsFiledUnderNoValue() {
    sockets.create("s1", Map.of("worker", "w1"));
    Map<String, Object> withNull = new HashMap<>();
    withNull.put("worker", null);
    sockets.create("s2", withNull);
    assertThat(sockets.keysBy("zone", null)).containsExactlyInAnyOrder("s1", "s2");
    assertThat(sockets.keysBy("worker", null)).containsExactly("s2");
    sockets.update("s1", Map.of("zone", "eu"));
    assertThat(sockets.keysBy("zone", null)).containsExactly("s2");
    assertThat(sockets.keysBy("zone", "eu")).containsExactly("s1");
  }

  @Test
  void emptiedBucketsDisappear() {
    sockets.create("s1", Map.of("worker", "w1"));
    sockets.create("s2", Map.of("worker", "w1"));
    sockets.update("s1", Map.of("worker", "w2"));
    sockets.update("s2", Map.of("worker", "w2"));
    sockets.drop("s1");
    sockets.drop("s2");
    assertThat(IndexProbe.bucketCount(sockets, "worker")).isZero();
    assertThat(IndexProbe.bucketCount(sockets, "zone")).isZero();
  }

  @Test
  void addIndexBuildsFromExistingRowsAndIsIdempotent() {
    sockets.create("s1", Map.of("opened", 1));
    sockets.create("s2", Map.of("opened", 2));
    sockets.create("s3", Map.of());
    sockets.addIndex("opened");
    sockets.addIndex("opened");
    assertThat(sockets.indexedFields()).containsExactly("worker", "zone", "opened");
    assertThat(sockets.keysBy("opened", 1)).containsExactly("s1");
    assertThat(sockets.keysBy("opened", null)).containsExactly("s3");
    sockets.reindex();
    assertThat(sockets.keysBy("opened", 2)).containsExactly("s2");
    assertInvariants(sockets);
  }

  @Test
  void writingAnIndexedFieldOnTheRowReFilesIt() {
    // The seed's admitted gap: an indexed field written in place desynchronised the index.
    Row row = sockets.create("s1", Map.of("worker", "w1"));
    row.set("worker", "w2");
    assertThat(sockets.keysBy("worker", "w1")).isEmpty();
    assertThat(sockets.keysBy("worker", "w2")).containsExactly("s1");
    row.remove("worker");
    assertThat(row.has("worker")).isFalse();
    assertThat(sockets.keysBy("worker", null)).containsExactly("s1");
    sockets.addIndex("late");
    row.set("late", "now indexed");
    assertThat(sockets.keysBy("late", "now indexed")).containsExactly("s1");
    assertInvariants(sockets);
  }

  @Test
  void fieldsAreKeptVerbatim() {
    Object handle = new Object();
    List<String> list = List.of("a");
    Map<String, Object> fields = new HashMap<>();
    fields.put("handle", handle);
    fields.put("list", list);
    fields.put("nothing", null);
    Row row = sockets.create("s1", fields);
    assertThat(row.get("handle")).isSameAs(handle);
    assertThat((Object) row.get("list", List.class)).isSameAs(list);
    assertThat(row.has("nothing")).isTrue();
    assertThat(row.get("nothing")).isNull();
    assertThat(row.has("absent")).isFalse();
    assertThat(row.get(Row.KEY_FIELD)).isEqualTo("s1");
    assertThat(row.fields()).containsEntry(Row.KEY_FIELD, "s1").containsEntry("handle", handle)
        .containsKey("nothing").hasSize(4);
    assertThatThrownBy(() -> row.get("handle", String.class))
        .isInstanceOf(RegisterException.class)
        .satisfies(e -> assertThat(((RegisterException) e).reason()).isEqualTo(Reason.WRONG_TYPE));
  }

  @Test
  void aBareRowHoldsItsKeyAndItsOwnLock() {
    Row one = sockets.create("s1");
    Row two = sockets.create("s2");
    assertThat(one.fields()).isEqualTo(Map.of(Row.KEY_FIELD, "s1"));
    assertThat(one.lock()).isNotNull().isNotSameAs(two.lock());
    one.lock().lock();
    one.lock().lock(); // re-entrant
    assertThat(one.lock().getHoldCount()).isEqualTo(2);
    one.lock().unlock();
    one.lock().unlock();
  }

  /** A consumer's row class: its own typed field, a default, and the register built for it. */
  static final class SocketRow extends Row {
    SocketRow(String key) {
      super(key);
    }

    @Override
    protected Map<String, ?> defaultFields() {
      return Map.of("state", "open", "retries", 0);
    }

    String state() {
      return get("state", String.class);
    }
  }

  @Test
  void aRowClassIsChosenPerRegisterAndCallerFieldsWinOverDefaults() {
    Register<SocketRow> typed = Register.of("typed_items", SocketRow::new, "state");
    SocketRow fresh = typed.create("s1");
    SocketRow woken = typed.create("s2", Map.of("state", "frozen"));
    assertThat(fresh.state()).isEqualTo("open");
    assertThat(fresh.get("retries")).isEqualTo(0);
    assertThat(woken.state()).isEqualTo("frozen");
    assertThat(typed.keysBy("state", "frozen")).containsExactly("s2");
    Register<SocketRow> liar = Register.of("liar_items", key -> new SocketRow("other"));
    assertThatThrownBy(() -> liar.create("s1")).isInstanceOf(IllegalStateException.class);
    assertThat(liar.size()).isZero();
  }

  @Test
  void aDroppedRowIsTheCallersAndWritesToItTouchNoIndex() {
    Row row = sockets.create("s1", Map.of("worker", "w1"));
    sockets.drop("s1");
    row.set("worker", "w9");
    assertThat(row.get("worker")).isEqualTo("w9");
    assertThat(sockets.keysBy("worker", "w9")).isEmpty();
  }

  static void assertInvariants(Register<?> register) {
    IndexProbe.assertAgrees(register);
  }

  static void expect(Runnable call, Reason reason) {
    assertThatThrownBy(call::run).isInstanceOf(RegisterException.class)
        .satisfies(e -> assertThat(((RegisterException) e).reason()).isEqualTo(reason))
        .hasMessageContaining("nothing was");
  }
}
