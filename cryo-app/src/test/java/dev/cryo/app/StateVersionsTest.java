package dev.cryo.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Application versions: what one version froze, the next reads — unknown fields ignored, missing
 * ones defaulted, an upgrade hook for a declared state version — and what a version cannot read
 * is refused and kept.
 */
class StateVersionsTest {

  /** Version 1: visits and a nickname, per user; a page of lines. */
  static final class One {
    @StateKey("Account")
    record Account(long visits, String nickname) {}

    @StateKey("Sheet")
    record Sheet(List<String> lines) {}
  }

  /** Version 2, same state version: lost the nickname, gained badges. */
  static final class Two {
    @StateKey("Account")
    record Account(long visits, List<String> badges) {}
  }

  /** Version 3, state version 2: visits became {count, since}. */
  static final class Three {
    @StateKey("Account")
    record Account(Visits visits, List<String> badges) {}

    record Visits(long count, String since) {}
  }

  record Text(String text) {}

  static class AppOne implements CryoApplication {
    @Override
    public void routes(Routes routes) {
      routes.post("/visit", Text.class, (call, nick) -> call.user(One.Account.class)
          .update(a -> new One.Account(a.visits() + 1, nick.text())));
      routes.post("/pages", call -> Map.of("page", call.openPage()));
      routes.post("/note/{page}", Text.class, (call, text) -> call.page(call.pathParameter("page"),
          One.Sheet.class).update(s -> new One.Sheet(append(s.lines(), text.text()))));
    }
  }

  static final class AppTwo implements CryoApplication {
    @Override
    public void routes(Routes routes) {
      routes.post("/visit", call -> call.user(Two.Account.class)
          .update(a -> new Two.Account(a.visits() + 1, append(a.badges(), "v2"))));
      routes.get("/note/{page}", call -> call.page(call.pathParameter("page"), One.Sheet.class)
          .get());
    }
  }

  static class AppThree implements CryoApplication {
    @Override
    public void routes(Routes routes) {
      routes.post("/visit", call -> call.user(Three.Account.class).update(a -> a.visits() == null
          ? new Three.Account(new Three.Visits(1, "v2"), a.badges())
          : new Three.Account(new Three.Visits(a.visits().count() + 1, a.visits().since()),
              a.badges())));
    }

    @Override
    public int stateVersion() {
      return 2;
    }

    @Override
    public Object upgrade(StoredState stored) {
      if (stored.key().equals("Account") && stored.version() == 1) {
        Two.Account old = stored.as(Two.Account.class);
        return new Three.Account(new Three.Visits(old.visits(), "v" + stored.version()),
            old.badges());
      }
      return stored.value();
    }
  }

  /** State version 2 whose upgrade refuses everything older. */
  static final class AppThreeStrict extends AppThree {
    @Override
    public Object upgrade(StoredState stored) {
      throw new IllegalStateException("version " + stored.version() + " is too old for us");
    }
  }

  private static List<String> append(List<String> list, String element) {
    List<String> out = new java.util.ArrayList<>(list);
    out.add(element);
    return out;
  }

  private static JsonNode post(CryoTestKit.Connection browser, String path, Object body) {
    Response response = browser.post(path, body);
    assertThat(response.status()).as(response.bodyText()).isEqualTo(200);
    return CryoTestKit.json(response);
  }

  @Test
  void aClassThatGainedAndLostAFieldReadsWhatTheOldVersionFroze() {
    CryoTestKit kit = CryoTestKit.of(AppOne::new);
    CryoTestKit.Connection browser = kit.connect();
    post(browser, "/visit", new Text("ann"));
    post(browser, "/visit", new Text("ann"));
    String page = post(browser, "/pages", null).get("page").asText();
    post(browser, "/note/" + page, new Text("first line"));

    kit.upgradeTo(AppTwo::new);

    JsonNode account = post(browser, "/visit", null);
    assertThat(account.get("visits").asLong()).isEqualTo(3); // kept
    assertThat(account.get("badges")).hasSize(1); // gained: defaulted empty, then one added
    assertThat(account.has("nickname")).isFalse(); // lost: ignored
    Response sheet = browser.get("/note/" + page);
    assertThat(CryoTestKit.json(sheet).get("lines").get(0).asText()).isEqualTo("first line");
  }

  @Test
  void theUpgradeHookBringsAnOlderStateVersionUpOnce() {
    CryoTestKit kit = CryoTestKit.of(AppTwo::new);
    CryoTestKit.Connection browser = kit.connect();
    post(browser, "/visit", null);
    post(browser, "/visit", null);

    kit.upgradeTo(AppThree::new);

    JsonNode account = post(browser, "/visit", null);
    assertThat(account.get("visits").get("count").asLong()).isEqualTo(3);
    assertThat(account.get("visits").get("since").asText()).isEqualTo("v1");
    assertThat(account.get("badges")).hasSize(2);
    // frozen again by state version 2 and woken by it: no second upgrade
    kit.freeze(browser.user());
    JsonNode again = post(browser, "/visit", null);
    assertThat(again.get("visits").get("count").asLong()).isEqualTo(4);
    assertThat(again.get("visits").get("since").asText()).isEqualTo("v1");
  }

  @Test
  void aStateVersionNewerThanTheRunningOneIsRefusedAndKept() {
    CryoTestKit kit = CryoTestKit.of(AppThree::new).failOnApplicationError(false);
    CryoTestKit.Connection browser = kit.connect();
    post(browser, "/visit", null);
    String user = browser.user();
    Object before = kit.plainUserState(user, "Account");

    kit.upgradeTo(AppTwo::new); // a roll back: version 2 state under a version 1 application

    Response refused = browser.post("/visit");
    assertThat(refused.status()).isEqualTo(503);
    JsonNode body = CryoTestKit.json(refused);
    assertThat(body.get("error").asText()).isEqualTo("unreadable_parcel");
    assertThat(body.get("message").asText()).contains("kept").doesNotContain("state version",
        "AppTwo");
    assertThat(kit.plainUserState(user, "Account")).isEqualTo(before);
    assertThat(kit.isFrozen(user)).isTrue();

    kit.upgradeTo(AppThree::new); // rolled forward again: he is all there
    assertThat(post(browser, "/visit", null).get("visits").get("count").asLong()).isEqualTo(2);
  }

  @Test
  void anUpgradeThatThrowsRefusesTheUserAndChangesNothing() {
    CryoTestKit kit = CryoTestKit.of(AppTwo::new);
    CryoTestKit.Connection browser = kit.connect();
    post(browser, "/visit", null);
    String user = browser.user();
    Object before = kit.plainUserState(user, "Account");
    kit.upgradeTo(AppThreeStrict::new);

    assertThatThrownBy(() -> browser.post("/visit")).isInstanceOf(AssertionError.class)
        .hasMessageContaining("too old for us");
    kit.failOnApplicationError(false);
    assertThat(browser.post("/visit").status()).isEqualTo(503);
    assertThat(kit.plainUserState(user, "Account")).isEqualTo(before);
  }

  @Test
  void theDispatcherUpgradesAStoreAllOrNothing() {
    Dispatcher three = Dispatcher.of(new AppThree());
    assertThat(three.stateVersion()).isEqualTo(2);
    Map<String, Object> store = new LinkedHashMap<>();
    store.put("Account", Map.of("visits", 7, "badges", List.of("a")));
    store.put("Other", Map.of("dotted%2Ekey", 1));

    assertThat(three.upgrade(Scope.USER, 2, store)).isSameAs(store);
    Map<String, Object> upgraded = three.upgrade(Scope.USER, 1, store);
    assertThat(upgraded.get("Account")).isEqualTo(Map.of("visits", Map.of("count", 7, "since",
        "v1"), "badges", List.of("a")));
    assertThat(upgraded.get("Other")).isEqualTo(Map.of("dotted%2Ekey", 1)); // escaped again
    assertThat(store.get("Account")).isEqualTo(Map.of("visits", 7, "badges", List.of("a")));

    assertThatThrownBy(() -> three.upgrade(Scope.USER, 3, store))
        .isInstanceOfSatisfying(StateException.class, e -> assertThat(e.reason())
            .isEqualTo(StateException.Reason.UNREADABLE))
        .hasMessageContaining("newer than the running");
    assertThatThrownBy(() -> three.upgrade(Scope.USER, 0, store))
        .isInstanceOf(StateException.class);
  }

  @Test
  void anUpgradeReturningWhatCannotBeFrozenIsUnreadable() {
    Dispatcher bad = Dispatcher.of(new AppThree() {
      @Override
      public Object upgrade(StoredState stored) {
        return Map.of("thread", new Thread(() -> { }));
      }
    });
    assertThatThrownBy(() -> bad.upgrade(Scope.PAGE, 1, Map.of("Sheet", Map.of())))
        .isInstanceOfSatisfying(StateException.class, e -> assertThat(e.reason())
            .isEqualTo(StateException.Reason.UNREADABLE))
        .hasMessageContaining("cannot be frozen");
  }

  @Test
  void aStateVersionBelowOneIsRefusedWhenLoaded() {
    assertThatThrownBy(() -> Dispatcher.of(new AppOne() {
      @Override
      public int stateVersion() {
        return 0;
      }
    })).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("state version 0");
  }
}
