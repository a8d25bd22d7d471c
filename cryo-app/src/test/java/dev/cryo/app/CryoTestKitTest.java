package dev.cryo.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/** The test kit: the runtime's rules in one JVM, and a freeze between calls when asked. */
class CryoTestKitTest {

  record Visits(long count) {}

  record Notes(List<String> lines) {}

  record Add(String page, String text) {}

  record Name(String user) {}

  record Held(Object value) {}

  /** Keeps visits in a State, and (wrongly) a second count in a field of its own. */
  static final class Counter implements CryoApplication {
    static final List<String> HOOKS = new CopyOnWriteArrayList<>();
    private final Map<String, Long> inMemory = new ConcurrentHashMap<>();

    @Override
    public void routes(Routes routes) {
      routes.post("/visit", call -> {
        long visits = call.user(Visits.class).update(v -> new Visits(v.count() + 1)).count();
        long remembered = inMemory.merge(call.user(), 1L, Long::sum);
        return Map.of("visits", visits, "remembered", remembered, "worker", call.worker(),
            "user", call.user(), "guest", call.isGuest());
      });
      routes.post("/pages", call -> Map.of("page", call.openPage()));
      routes.post("/notes", Add.class, (call, add) -> call.page(add.page(), Notes.class)
          .update(n -> new Notes(append(n.lines(), add.text()))));
      routes.post("/login", Name.class, (call, name) -> Map.of("result",
          call.login(name.user()).name(), "user", call.user(),
          "visits", call.user(Visits.class).get().count()));
      routes.post("/logout", call -> {
        call.logout();
        return Map.of("user", call.user()); // the call goes on as before until it ends
      });
      routes.post("/forget", call -> {
        call.forget();
        return Map.of("user", call.user());
      });
      routes.post("/hold", call -> {
        call.user(Held.class).set(new Held(new Thread(() -> { })));
        return null;
      });
      routes.move("/move", (call, move) -> move.isMoved()
          ? Map.of("from", move.from(), "to", move.to(), "worker", call.worker())
          : Response.json(409, Map.of("error", "move_refused", "reason", move.refused())));
    }

    @Override
    public void onWake(Stay stay) {
      HOOKS.add("wake " + stay.user() + " " + stay.worker());
    }

    @Override
    public void onFreeze(Stay stay, FreezeReason reason) {
      HOOKS.add("freeze " + stay.user() + " " + reason);
    }

    @Override
    public void onPageClosed(Stay stay, String pageId) {
      String visits;
      try {
        visits = String.valueOf(stay.user(Visits.class).get().count());
      } catch (StateException e) {
        visits = e.reason().code();
      }
      HOOKS.add("closed " + pageId + " " + visits);
    }

    private static List<String> append(List<String> lines, String line) {
      List<String> out = new ArrayList<>(lines);
      out.add(line);
      return out;
    }
  }

  private static long visit(CryoTestKit.Connection browser, String field) {
    return CryoTestKit.json(browser.post("/visit")).get(field).asLong();
  }

  @Test
  void stateSurvivesAFreezeBetweenEveryCallAndAFieldOfTheApplicationDoesNot() {
    CryoTestKit steady = CryoTestKit.of(Counter::new);
    CryoTestKit.Connection one = steady.connect();
    visit(one, "visits");
    assertThat(visit(one, "visits")).isEqualTo(2);
    assertThat(visit(one, "remembered")).isEqualTo(3); // seems fine without moves

    CryoTestKit moving = CryoTestKit.of(Counter::new).freezeBetweenCalls(true);
    CryoTestKit.Connection two = moving.connect();
    visit(two, "visits");
    visit(two, "visits");
    assertThat(visit(two, "visits")).isEqualTo(3);
    assertThat(visit(two, "remembered")).isEqualTo(1); // the field did not survive the moves
    assertThat(moving.freezes()).isEqualTo(4);
  }

  @Test
  void eachWakeIsANewInstanceOnANewWorkerAndTheHooksRunInOrder() {
    Counter.HOOKS.clear();
    CryoTestKit kit = CryoTestKit.of(Counter::new).freezeBetweenCalls(true);
    CryoTestKit.Connection browser = kit.connect();
    String first = CryoTestKit.json(browser.post("/visit")).get("worker").asText();
    String second = CryoTestKit.json(browser.post("/visit")).get("worker").asText();
    assertThat(first).isEqualTo("kit-1");
    assertThat(second).isNotEqualTo(first);
    assertThat(Counter.HOOKS).containsExactly("wake guest_k1 kit-1", "freeze guest_k1 TRANSFER",
        "wake guest_k1 " + second, "freeze guest_k1 TRANSFER");
    assertThat(kit.isFrozen("guest_k1")).isTrue();
  }

  @Test
  void pageStateLivesWithItsPageAndAnotherConnectionCannotReachIt() {
    CryoTestKit kit = CryoTestKit.of(Counter::new).freezeBetweenCalls(true);
    CryoTestKit.Connection browser = kit.connect();
    String page = CryoTestKit.json(browser.post("/pages")).get("page").asText();
    browser.post("/notes", Map.of("page", page, "text", "a"));
    Response notes = browser.post("/notes", Map.of("page", page, "text", "b"));
    assertThat(CryoTestKit.json(notes).get("lines").toString()).isEqualTo("[\"a\",\"b\"]");

    Response stranger = kit.connect().post("/notes", Map.of("page", page, "text", "x"));
    assertThat(stranger.status()).isEqualTo(404);
    assertThat(CryoTestKit.json(stranger).get("error").asText()).isEqualTo("unknown_page");
    assertThat(CryoTestKit.json(stranger).get("message").asText())
        .as("a client is told nothing of the API").doesNotContain("openPage");
  }

  @Test
  void stateThatCannotBeFrozenFailsTheTestNamingTheField() {
    CryoTestKit kit = CryoTestKit.of(Counter::new);
    assertThatThrownBy(() -> kit.connect().post("/hold"))
        .isInstanceOf(AssertionError.class)
        .rootCause().isInstanceOfSatisfying(com.fasterxml.jackson.databind.JsonMappingException.class,
            e -> assertThat(e.getOriginalMessage()).contains("java.lang.Thread"));
    assertThatThrownBy(() -> kit.connect().post("/hold")).cause()
        .isInstanceOfSatisfying(StateException.class, e -> {
          assertThat(e.reason()).isEqualTo(StateException.Reason.NOT_FREEZABLE);
          assertThat(e.field()).isEqualTo("Held.value");
        });
  }

  @Test
  void aGuestsStateFollowsHimIntoHisFirstIdentityAndAnExistingOneKeepsItsOwn() {
    CryoTestKit kit = CryoTestKit.of(Counter::new);
    CryoTestKit.Connection first = kit.connect();
    visit(first, "visits");
    visit(first, "visits");
    var login = CryoTestKit.json(first.post("/login", Map.of("user", "anna")));
    assertThat(login.get("result").asText()).isEqualTo("HERE");
    assertThat(login.get("visits").asLong()).isEqualTo(2);
    assertThat(first.user()).isEqualTo("anna");

    CryoTestKit.Connection second = kit.connect();
    visit(second, "visits");
    var again = CryoTestKit.json(second.post("/login", Map.of("user", "anna")));
    assertThat(again.get("visits").asLong()).isEqualTo(2);
    assertThat(kit.users()).containsExactly("anna");
    assertThat(visit(second, "visits")).isEqualTo(3);
  }

  @Test
  void aLogoutEndsTheConnectionAndItsPagesWhileTheUserAndHisOtherConnectionsStay() {
    Counter.HOOKS.clear();
    CryoTestKit kit = CryoTestKit.of(Counter::new).freezeBetweenCalls(true);
    CryoTestKit.Connection laptop = kit.connect();
    CryoTestKit.Connection phone = kit.connect();
    laptop.post("/login", Map.of("user", "anna"));
    String page = CryoTestKit.json(laptop.post("/pages")).get("page").asText();
    visit(laptop, "visits");
    phone.post("/login", Map.of("user", "anna"));
    String before = laptop.id();

    assertThat(CryoTestKit.json(laptop.post("/logout")).get("user").asText()).isEqualTo("anna");
    assertThat(Counter.HOOKS).contains("closed " + page + " 1");
    assertThat(kit.users()).containsExactly("anna");
    assertThat(phone.user()).isEqualTo("anna");
    assertThat(visit(phone, "visits")).isEqualTo(2);

    assertThat(visit(laptop, "visits")).as("a new visitor's first visit").isEqualTo(1);
    assertThat(laptop.id()).isNotEqualTo(before);
    assertThat(laptop.user()).startsWith(CryoTestKit.GUEST_PREFIX);
    assertThat(laptop.post("/notes", Map.of("page", page, "text", "x")).status())
        .as("the page went with its connection").isEqualTo(404);
  }

  @Test
  void aForgetDropsTheUserAndEveryConnectionOfHis() {
    CryoTestKit kit = CryoTestKit.of(Counter::new);
    CryoTestKit.Connection laptop = kit.connect();
    CryoTestKit.Connection phone = kit.connect();
    laptop.post("/login", Map.of("user", "anna"));
    visit(laptop, "visits");
    phone.post("/login", Map.of("user", "anna"));
    String phoneBefore = phone.id();

    assertThat(CryoTestKit.json(laptop.post("/forget")).get("user").asText()).isEqualTo("anna");
    assertThat(kit.users()).isEmpty();
    assertThat(visit(phone, "visits")).isEqualTo(1);
    assertThat(phone.id()).isNotEqualTo(phoneBefore);
    assertThat(phone.user()).startsWith(CryoTestKit.GUEST_PREFIX);
    CryoTestKit.Connection again = kit.connect();
    var login = CryoTestKit.json(again.post("/login", Map.of("user", "anna")));
    assertThat(login.get("visits").asLong()).as("a forgotten user comes back empty").isZero();
  }

  @Test
  void aFrozenIdentityIsElsewhereAndTheConnectionJoinsItAfterTheCall() {
    CryoTestKit kit = CryoTestKit.of(Counter::new);
    CryoTestKit.Connection annas = kit.connect();
    annas.post("/login", Map.of("user", "anna"));
    visit(annas, "visits");
    assertThat(kit.freeze("anna")).isTrue();

    CryoTestKit.Connection guest = kit.connect();
    visit(guest, "visits");
    visit(guest, "visits");
    var login = CryoTestKit.json(guest.post("/login", Map.of("user", "anna")));
    assertThat(login.get("result").asText()).isEqualTo("ELSEWHERE");
    assertThat(login.get("visits").asLong()).isEqualTo(2); // still the guest's, during the call
    assertThat(guest.user()).isEqualTo("anna");
    assertThat(visit(guest, "visits")).isEqualTo(2); // hers: 1 + this one
  }

  @Test
  void aMoveRouteMovesTheUserFirstOrSaysWhyNot() {
    CryoTestKit kit = CryoTestKit.of(Counter::new);
    CryoTestKit.Connection browser = kit.connect();
    visit(browser, "visits");
    var moved = CryoTestKit.json(browser.post("/move"));
    assertThat(moved.get("from").asText()).isEqualTo("kit-1");
    assertThat(moved.get("to").asText()).isEqualTo(moved.get("worker").asText())
        .isNotEqualTo("kit-1");
    assertThat(visit(browser, "visits")).isEqualTo(2);
    assertThat(visit(browser, "remembered")).isEqualTo(2); // a new instance: one visit before this

    kit.refuseMoves("no_other_worker");
    Response refused = browser.post("/move");
    assertThat(refused.status()).isEqualTo(409);
    assertThat(CryoTestKit.json(refused).get("reason").asText()).isEqualTo("no_other_worker");
  }

  @Test
  void aClosedConnectionClosesItsPagesAndTheUserGoesWithHisLast() {
    Counter.HOOKS.clear();
    CryoTestKit kit = CryoTestKit.of(Counter::new);
    CryoTestKit.Connection browser = kit.connect();
    browser.post("/login", Map.of("user", "anna"));
    String page = CryoTestKit.json(browser.post("/pages")).get("page").asText();
    CryoTestKit.Connection other = kit.connect();
    other.post("/login", Map.of("user", "anna"));
    String otherPage = CryoTestKit.json(other.post("/pages")).get("page").asText();
    visit(browser, "visits");

    browser.close();
    other.close();

    assertThat(Counter.HOOKS).endsWith("closed " + page + " 1", "closed " + otherPage + " gone");
    assertThat(kit.users()).isEmpty();
  }

  @StateKey("Visits")
  record Impostor(long count) {}

  @Test
  void twoStateClassesUnderOneNameAreRefused() {
    CryoTestKit kit = CryoTestKit.of(() -> routes -> routes.post("/both", call -> {
      call.user(Visits.class).get();
      return call.user(Impostor.class).get();
    }));
    assertThatThrownBy(() -> kit.connect().post("/both")).cause()
        .isInstanceOfSatisfying(StateException.class,
            e -> assertThat(e.reason()).isEqualTo(StateException.Reason.BAD_STATE_CLASS))
        .hasMessageContaining("are both stored under 'Visits'");
    CryoTestKit jdk = CryoTestKit.of(() -> routes -> routes.post("/list",
        call -> call.user(java.util.ArrayList.class).get()));
    assertThatThrownBy(() -> jdk.connect().post("/list")).cause()
        .hasMessageContaining("is a JDK type");
  }
}
