package dev.cryo.commander;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.cryo.commander.Location.OnWorker;
import dev.cryo.wire.Wire;
import dev.cryo.wire.WireRefusal;
import dev.cryo.wire.protocol.AnnouncementMessage;
import dev.cryo.wire.protocol.Locate;
import dev.cryo.wire.protocol.Methods;
import dev.cryo.wire.protocol.PhotoMessage;
import dev.cryo.wire.protocol.Presentation;
import dev.cryo.wire.protocol.ProtocolCodec;
import dev.cryo.wire.protocol.SpawnPayload;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** The commander's side of one wire, driven without a socket: presentation first, then folds. */
class WorkerLinkTest {

  private final RecordingSink sink = new RecordingSink();
  private final Routing routing = new Routing(sink);
  private final SpawnPayload spawn = new SpawnPayload("main_0001", "main", "/tmp/x/main_0001.sock",
      "/tmp/x/freezer", "test.App", null, 64L << 20, null);
  private final WorkerHandle handle = new WorkerHandle(spawn, Instant.EPOCH);
  private final AtomicInteger presentations = new AtomicInteger();
  private final WorkerLink link = linkOf(handle);

  private static PhotoMessage photo() {
    return new PhotoMessage(1, "main_0001", "main", PhotoMessage.RUNNING, 0, 0, -1, 10, 100, 0, 0,
        0, 0, 0, 0, Map.of());
  }

  private byte[] presentation(String name, SpawnPayload echoed) {
    return ProtocolCodec.write(new Presentation(name, "main", 42, 0, echoed, photo(),
        List.of(List.of("POST", "/api/move"))));
  }

  private static byte[] announce(long seq, String kind, String user, String key) {
    return ProtocolCodec.write(new AnnouncementMessage(seq, kind, user, List.of(key), null, 0));
  }

  @Test
  void thePresentationOfTheSpawnedWorkerIsAcceptedOnce() throws Exception {
    byte[] reply = link.onCall(Methods.PRESENT, presentation("main_0001", spawn));

    assertThat(new String(reply, StandardCharsets.UTF_8)).isEqualTo("{\"accepted\":true}");
    assertThat(handle.state()).isEqualTo(WorkerState.RUNNING);
    assertThat(handle.pid()).isEqualTo(42);
    assertThat(handle.moveRoutes()).containsExactly(List.of("POST", "/api/move"));
    assertThat(presentations).hasValue(1);
    assertThatThrownBy(() -> link.onCall(Methods.PRESENT, presentation("main_0001", spawn)))
        .isInstanceOf(WireRefusal.class).hasMessageContaining("twice");
  }

  /**
   * A push and a locate are lookups in the maps: served on the thread that reads the wire, they
   * cost no thread of their own (two pushes per click of the demo); the presentation, which starts
   * the run's work, and anything unknown keep the default.
   */
  @Test
  void pushAndLocateAreServedOnTheThreadThatReadsTheWire() {
    assertThat(link.servesInline(Methods.PUSH)).isTrue();
    assertThat(link.servesInline(Methods.LOCATE)).isTrue();
    assertThat(link.servesInline(Methods.PRESENT)).isFalse();
    assertThat(link.servesInline("anything_else")).isFalse();
  }

  @Test
  void anotherNameOrAnotherSocketIsRefused() {
    assertThatThrownBy(() -> link.onCall(Methods.PRESENT, presentation("impostor", spawn)))
        .isInstanceOf(WireRefusal.class).hasMessageContaining("impostor");
    SpawnPayload elsewhere = new SpawnPayload("main_0001", "main", "/tmp/other.sock",
        spawn.freezer(), spawn.application(), null, spawn.heapBytes(), null);
    assertThatThrownBy(() -> link.onCall(Methods.PRESENT, presentation("main_0001", elsewhere)))
        .isInstanceOf(WireRefusal.class).hasMessageContaining("/tmp/other.sock");
    assertThat(handle.state()).isEqualTo(WorkerState.STARTING);
    assertThat(presentations).hasValue(0);
  }

  @Test
  void nothingButThePresentationComesFirst() {
    assertThatThrownBy(() -> link.onCall(Methods.LOCATE,
        ProtocolCodec.write(new Locate("anna")))).isInstanceOf(WireRefusal.class)
        .hasMessageContaining("not its presentation");

    link.onEvent(Methods.ANNOUNCE, announce(1, "new_user", "anna", "anna"));

    assertThat(routing.locate("anna")).isEqualTo(Location.UNKNOWN);
  }

  @Test
  void announcementsAreFoldedAndLocateAnswersFromTheMaps() throws Exception {
    link.onCall(Methods.PRESENT, presentation("main_0001", spawn));

    link.onEvent(Methods.ANNOUNCE, announce(1, "new_user", "anna", "anna"));
    link.onEvent(Methods.ANNOUNCE, announce(2, "new_connection", "anna", "c1"));
    link.onEvent(Methods.ANNOUNCE, announce(3, "a_kind_of_tomorrow", "anna", "x"));
    link.onEvent(Methods.ANNOUNCE, "{not json".getBytes(StandardCharsets.UTF_8));

    assertThat(routing.locate("anna")).isEqualTo(new OnWorker("main_0001"));
    assertThat(routing.userOf("c1")).contains("anna");
    assertThat(sink.of("anomaly")).hasSize(1); // the unknown kind; the unreadable one is logged
    byte[] answer = link.onCall(Methods.LOCATE, ProtocolCodec.write(new Locate("anna")));
    assertThat(ProtocolCodec.read(answer, dev.cryo.wire.protocol.Location.class))
        .isEqualTo(new dev.cryo.wire.protocol.Location("main_0001", false, 0, false));
    // An identity nobody holds is claimed for the asker at a new generation, and held by it.
    byte[] nobody = link.onCall(Methods.LOCATE, ProtocolCodec.write(new Locate("bob")));
    dev.cryo.wire.protocol.Location claimed = ProtocolCodec.read(nobody,
        dev.cryo.wire.protocol.Location.class);
    assertThat(claimed.claimed()).isTrue();
    assertThat(claimed.worker()).isEqualTo("main_0001");
    assertThat(claimed.generation()).isPositive();
    assertThat(routing.locate("bob")).isEqualTo(new OnWorker("main_0001",
        claimed.generation()));
  }

  @Test
  void aPresentationLateOnAGivenUpAttemptsWireIsRefusedOnceTheNextAttemptBegan() throws Exception {
    handle.attempt(null);
    WorkerLink first = linkOf(handle);
    assertThat(handle.endAttempt()).isFalse(); // its time ran out: given up, its group killed
    handle.attempt(null); // the retry, after the backoff

    assertThatThrownBy(() -> first.onCall(Methods.PRESENT, presentation("main_0001", spawn)))
        .isInstanceOf(WireRefusal.class).hasMessageContaining("start attempt 1");
    assertThat(handle.state()).isEqualTo(WorkerState.STARTING);
    assertThat(presentations).hasValue(0);

    linkOf(handle).onCall(Methods.PRESENT, presentation("main_0001", spawn)); // the retry's own
    assertThat(handle.state()).isEqualTo(WorkerState.RUNNING);
    assertThat(presentations).hasValue(1);
  }

  private WorkerLink linkOf(WorkerHandle of) {
    return new WorkerLink(of, routing, new WorkerLink.Events() {
      @Override
      public long nextOrder() {
        return 1;
      }

      @Override
      public void presented(WorkerHandle presented) {
        presentations.incrementAndGet();
      }

      @Override
      public void wireClosed(WorkerHandle closed, Wire wire, String reason) {
      }
    }, Clock.systemUTC());
  }

  @Test
  void theStateMachineGoesOneWay() {
    assertThat(handle.quitting()).isFalse(); // not running yet
    assertThat(handle.die("test")).isTrue();
    assertThat(handle.die("again")).isFalse();
    assertThat(handle.deathReason()).isEqualTo("test");
    assertThat(handle.present(ProtocolCodec.read(presentation("main_0001", spawn),
        Presentation.class), 0, 1, Instant.EPOCH)).isFalse();
    assertThat(handle.state()).isEqualTo(WorkerState.DEAD);
  }

  @Test
  void moveRoutesMatchBySegment() {
    List<List<String>> routes = List.of(List.of("POST", "/api/move"),
        List.of("POST", "/users/{id}/move"), List.of("GET", "/static/**"));

    assertThat(MoveRoutes.matches(routes, "post", "/api/move")).isTrue();
    assertThat(MoveRoutes.matches(routes, "GET", "/api/move")).isFalse();
    assertThat(MoveRoutes.matches(routes, "POST", "/api/move/x")).isFalse();
    assertThat(MoveRoutes.matches(routes, "POST", "/users/anna/move")).isTrue();
    assertThat(MoveRoutes.matches(routes, "POST", "/users//move")).isFalse();
    assertThat(MoveRoutes.matches(routes, "GET", "/static/a/b")).isTrue();
    assertThat(MoveRoutes.matches(routes, "GET", "/static")).isFalse();
  }
}
