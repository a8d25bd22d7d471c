package dev.cryo.commander;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cryo.commander.Location.Frozen;
import dev.cryo.commander.Location.OnWorker;
import dev.cryo.wire.protocol.AnnouncementKind;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * Properties of the routing maps over random sequences of announcements from several workers,
 * interleaved with deaths, holds and bindings: whatever the workers say, the maps stay coherent;
 * "frozen" comes only from a user_frozen and goes only with a sign of life; a death loses exactly the dead worker's residents and keeps the frozen.
 */
class RoutingPropertiesTest {

  private static final List<String> WORKERS = List.of("w1", "w2", "w3");
  private static final List<String> USERS = List.of("anna", "bob", "guest_c1", "guest_c2");
  private static final List<String> CONNECTIONS = List.of("c1", "c2", "c3", "c4");
  private static final List<String> PAGES = List.of("p1", "p2", "p3", "p4", "p5");

  /** One step of a run. */
  sealed interface Step {}

  record Tell(String worker, AnnouncementKind kind, String user, List<String> keys, String detail)
      implements Step {}

  record Die(String worker) implements Step {}

  record HoldUser(String user, String destination) implements Step {}

  record Bind(String user, String worker) implements Step {}

  @Provide
  Arbitrary<List<Step>> runs() {
    Arbitrary<String> worker = Arbitraries.of(WORKERS);
    Arbitrary<String> user = Arbitraries.of(USERS);
    Arbitrary<AnnouncementKind> kind = Arbitraries.of(AnnouncementKind.class);
    Arbitrary<List<String>> keys = Arbitraries.of(concat(USERS, CONNECTIONS, PAGES)).list()
        .ofMinSize(1).ofMaxSize(3);
    Arbitrary<String> detail = Arbitraries.of(concat(USERS, CONNECTIONS)).injectNull(0.4);
    Arbitrary<Step> tell = Combinators.combine(worker, kind, user, keys, detail)
        .as((w, k, u, ks, d) -> (Step) new Tell(w, k, u, fit(k, u, ks), d));
    Arbitrary<Step> die = worker.map(Die::new);
    Arbitrary<Step> hold = Combinators.combine(user, worker.injectNull(0.5))
        .as((u, w) -> (Step) new HoldUser(u, w));
    Arbitrary<Step> bind = Combinators.combine(user, worker).as((u, w) -> (Step) new Bind(u, w));
    return Arbitraries.frequencyOf(
        net.jqwik.api.Tuple.of(40, tell), net.jqwik.api.Tuple.of(2, die),
        net.jqwik.api.Tuple.of(3, hold),
        net.jqwik.api.Tuple.of(3, bind)).list().ofMaxSize(80);
  }

  /** Keys of the kind's sort, mostly: the user for user kinds, connections or pages otherwise. */
  private static List<String> fit(AnnouncementKind kind, String user, List<String> keys) {
    return switch (kind) {
      case NEW_USER, DROP_USER, USER_FROZEN, USER_ADOPTED -> List.of(user);
      case NEW_CONNECTION, DROP_CONNECTION, DROP_CONNECTIONS, LOGIN ->
          keys.stream().map(k -> CONNECTIONS.get(Math.floorMod(k.hashCode(), 4))).toList();
      case NEW_PAGE, DROP_PAGE, DROP_PAGES ->
          keys.stream().map(k -> PAGES.get(Math.floorMod(k.hashCode(), 5))).toList();
    };
  }

  @Property(tries = 400)
  void theMapsStayCoherentAndFrozenIsNeverInferred(@ForAll("runs") List<Step> run) {
    Routing routing = new Routing(EventSink.NONE);
    Map<String, Long> sequences = new HashMap<>();
    Set<String> frozenSinceLastLife = new HashSet<>(); // named by a freeze, no sign of life since
    for (Step step : run) {
      switch (step) {
        case Tell tell -> {
          long sequence = sequences.merge(tell.worker(), 1L, Long::sum);
          boolean wasFrozen = routing.locate(tell.user()) instanceof Frozen;
          routing.fold(tell.worker(), new Announcement(sequence, tell.kind(), tell.user(),
              tell.keys(), tell.detail()));
          switch (tell.kind()) {
            case USER_FROZEN -> frozenSinceLastLife.add(tell.user());
            case NEW_USER, NEW_CONNECTION, NEW_PAGE, USER_ADOPTED ->
                frozenSinceLastLife.remove(tell.user());
            case DROP_USER -> { // kept frozen only for connections a login tail handed to him
              if (!wasFrozen && routing.locate(tell.user()) instanceof Frozen) {
                assertThat(routing.connectionsOf(tell.user())).isNotEmpty();
                frozenSinceLastLife.add(tell.user());
              }
            }
            default -> { }
          }
        }
        case Die die -> {
          Routing.Snapshot before = routing.snapshot();
          Set<String> residents = before.workerUsers().getOrDefault(die.worker(), Set.of());
          List<String> lost = routing.workerDied(die.worker(), "test");
          Routing.Snapshot after = routing.snapshot();
          assertThat(lost).containsExactlyElementsOf(new TreeSet<>(residents));
          for (String user : residents) {
            assertThat(after.users()).doesNotContainKey(user);
          }
          before.users().forEach((user, location) -> {
            if (location instanceof Frozen) {
              assertThat(after.users().get(user)).isInstanceOf(Frozen.class);
            }
          });
          sequences.remove(die.worker());
        }
        case HoldUser hold -> routing.hold(hold.user(), HoldReason.MOVING, hold.destination());
        case Bind bind -> routing.bindFrozen(bind.user(), bind.worker());
      }
      checkInvariants(routing, frozenSinceLastLife);
    }
  }

  private static void checkInvariants(Routing routing, Set<String> frozenSinceLastLife) {
    Routing.Snapshot maps = routing.snapshot();
    maps.connectionUser().forEach((connection, user) ->
        assertThat(maps.users()).as("the user of connection %s", connection).containsKey(user));
    maps.pageConnection().forEach((page, connection) ->
        assertThat(maps.connectionUser()).as("the connection of page %s", page)
            .containsKey(connection));
    Map<String, Set<String>> residents = new HashMap<>();
    maps.users().forEach((user, location) -> {
      assertThat(location).isNotInstanceOf(Location.Unknown.class);
      if (location instanceof OnWorker on) {
        residents.computeIfAbsent(on.worker(), w -> new HashSet<>()).add(user);
      }
      if (location instanceof Frozen) {
        assertThat(frozenSinceLastLife).as("frozen without a freeze: %s", user).contains(user);
      }
    });
    assertThat(maps.workerUsers()).isEqualTo(residents);
    for (String worker : WORKERS) {
      long bound = maps.users().values().stream().filter(location -> location instanceof Frozen f
          && worker.equals(f.destination())).count();
      assertThat(routing.occupancy(worker)).as("the occupancy of %s", worker)
          .isEqualTo(residents.getOrDefault(worker, Set.of()).size() + (int) bound);
    }
    for (String user : USERS) {
      List<String> expected = new ArrayList<>();
      maps.connectionUser().forEach((connection, owner) -> {
        if (owner.equals(user)) {
          expected.add(connection);
        }
      });
      assertThat(routing.connectionsOf(user)).containsExactlyInAnyOrderElementsOf(expected);
    }
    int frozen = (int) maps.users().values().stream().filter(Frozen.class::isInstance).count();
    assertThat(routing.counts().frozen()).isEqualTo(frozen);
    assertThat(routing.counts().placed()).isEqualTo(maps.users().size() - frozen);
  }

  @SafeVarargs
  private static List<String> concat(List<String>... lists) {
    List<String> all = new ArrayList<>();
    for (List<String> list : lists) {
      all.addAll(list);
    }
    return all;
  }
}
