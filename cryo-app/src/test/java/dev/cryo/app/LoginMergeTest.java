package dev.cryo.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** A guest's cart merged into the account he logs into, in the test kit. */
class LoginMergeTest {

  /** A shop whose cart follows a guest into an account that has one. */
  public static class Shop implements CryoApplication {
    @StateKey("Cart")
    public record Cart(List<String> items) {}

    @StateKey("Seen")
    public record Seen(long n) {}

    @Override
    public void routes(Routes routes) {
      routes.post("/add", call -> {
        call.user(Seen.class).update(s -> new Seen(s.n() + 1));
        return call.user(Cart.class).update(c -> new Cart(append(c.items(), call.query("item"))));
      });
      routes.get("/cart", call -> Map.of("user", call.user(),
          "items", call.user(Cart.class).get().items(),
          "seen", call.user(Seen.class).get().n()));
      routes.post("/login", call -> Map.of("result", call.login(call.query("user")),
          "items", call.user(Cart.class).get().items()));
      mergeCarts(routes);
    }

    void mergeCarts(Routes routes) {
      routes.mergeAtLogin(Cart.class, (guest, account) -> new Cart(account == null
          ? guest.items() : concat(account.items(), guest.items())));
    }
  }

  /** The same shop without a merge: the account keeps its own cart. */
  public static final class NoMergeShop extends Shop {
    @Override
    void mergeCarts(Routes routes) {}
  }

  static List<String> append(List<String> items, String item) {
    List<String> next = new ArrayList<>(items == null ? List.of() : items);
    next.add(item);
    return next;
  }

  static List<String> concat(List<String> first, List<String> second) {
    List<String> next = new ArrayList<>(first);
    next.addAll(second);
    return next;
  }

  private static List<String> items(Response reply) {
    List<String> items = new ArrayList<>();
    CryoTestKit.json(reply).get("items").forEach(item -> items.add(item.asText()));
    return items;
  }

  @Test
  void aLoginIntoAnAwakeAccountMergesTheGuestsCartInTheLoginCall() {
    CryoTestKit kit = CryoTestKit.of(Shop::new);
    CryoTestKit.Connection phone = kit.connect();
    phone.post("/login?user=anna");
    phone.post("/add?item=book");
    CryoTestKit.Connection laptop = kit.connect();
    laptop.post("/add?item=pen");

    Response login = laptop.post("/login?user=anna");

    assertThat(CryoTestKit.json(login).get("result").asText()).isEqualTo("HERE");
    assertThat(items(login)).containsExactly("book", "pen");
    assertThat(CryoTestKit.json(laptop.get("/cart")).get("seen").asLong())
        .as("a class without a merge keeps the account's own").isEqualTo(1);
    assertThat(items(phone.get("/cart"))).containsExactly("book", "pen");
    assertThat(kit.plainUserState("anna", Dispatcher.MERGING_GUESTS)).isNull();
  }

  @Test
  void aLoginIntoAFrozenAccountMergesAtTheAccountsNextCall() {
    CryoTestKit kit = CryoTestKit.of(Shop::new).freezeBetweenCalls(true);
    CryoTestKit.Connection phone = kit.connect();
    phone.post("/login?user=anna");
    phone.post("/add?item=book");
    assertThat(kit.isFrozen("anna")).isTrue();
    CryoTestKit.Connection laptop = kit.connect();
    laptop.post("/add?item=pen");
    laptop.post("/add?item=cup");

    Response login = laptop.post("/login?user=anna");
    assertThat(CryoTestKit.json(login).get("result").asText()).isEqualTo("ELSEWHERE");

    Response cart = laptop.get("/cart");
    assertThat(CryoTestKit.json(cart).get("user").asText()).isEqualTo("anna");
    assertThat(items(cart)).containsExactly("book", "pen", "cup");
    assertThat(items(phone.get("/cart"))).as("merged once").containsExactly("book", "pen", "cup");
  }

  @Test
  void withoutAMergeTheAccountKeepsItsOwnCart() {
    CryoTestKit kit = CryoTestKit.of(NoMergeShop::new).freezeBetweenCalls(true);
    CryoTestKit.Connection phone = kit.connect();
    phone.post("/login?user=anna");
    phone.post("/add?item=book");
    CryoTestKit.Connection laptop = kit.connect();
    laptop.post("/add?item=pen");
    laptop.post("/login?user=anna");

    assertThat(items(laptop.get("/cart"))).containsExactly("book");
    assertThat(kit.plainUserState("anna", Dispatcher.MERGING_GUESTS)).isNull();
  }

  @Test
  void aMergeThatFailsFailsTheCallAndRunsAgainLater() {
    boolean[] fail = {true};
    CryoTestKit kit = CryoTestKit.of(() -> new Shop() {
      @Override
      void mergeCarts(Routes routes) {
        routes.mergeAtLogin(Cart.class, (guest, account) -> {
          if (fail[0]) {
            throw new IllegalStateException("not now");
          }
          return new Cart(concat(account.items(), guest.items()));
        });
      }
    }).freezeBetweenCalls(true).failOnApplicationError(false);
    CryoTestKit.Connection phone = kit.connect();
    phone.post("/login?user=anna");
    phone.post("/add?item=book");
    CryoTestKit.Connection laptop = kit.connect();
    laptop.post("/add?item=pen");
    laptop.post("/login?user=anna");

    assertThat(laptop.get("/cart").status()).isEqualTo(500);
    fail[0] = false;
    assertThat(items(laptop.get("/cart"))).containsExactly("book", "pen");
  }

  @Test
  void aSecondMergeOfOneClassIsRefused() {
    assertThatThrownBy(() -> CryoTestKit.of(() -> new Shop() {
      @Override
      void mergeCarts(Routes routes) {
        super.mergeCarts(routes);
        super.mergeCarts(routes);
      }
    })).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("one merge per state");
  }
}
