package dev.cryo.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Two state classes with the same simple name, each stored under it: whichever instance of the
 * application the user is woken in, the second class never reads the first one's value as its own
 * (nor writes over it); it is refused, naming both classes and the fix.
 */
class SameSimpleNameTest {

  /** The cart's state. */
  static final class Cart {
    record Items(List<String> items) {}
  }

  /** The wish list's state: the same simple name, another class. */
  static final class Wishes {
    record Items(List<String> items) {}
  }

  /** The wish list's state, given a name of its own. */
  static final class Named {
    @StateKey("WishItems")
    record Items(List<String> items) {}
  }

  static final class Shop implements CryoApplication {
    @Override
    public void routes(Routes routes) {
      routes.post("/cart", call -> call.user(Cart.Items.class).update(cart -> new Cart.Items(
          List.of("apple"))));
      routes.get("/cart", call -> call.user(Cart.Items.class).get());
      routes.get("/wishes", call -> call.user(Wishes.Items.class).get());
      routes.post("/wishes", call -> {
        call.user(Wishes.Items.class).set(new Wishes.Items(List.of("pear")));
        return null;
      });
      routes.get("/named", call -> call.user(Named.Items.class).get());
    }
  }

  @Test
  void afterAFreezeTheOtherClassIsRefusedNotHandedTheFirstOnesValue() {
    CryoTestKit kit = CryoTestKit.of(Shop::new).freezeBetweenCalls(true);
    CryoTestKit.Connection browser = kit.connect();
    browser.post("/cart"); // written by Cart.Items; frozen; every next call in a new instance

    assertThatThrownBy(() -> browser.get("/wishes"))
        .isInstanceOf(AssertionError.class)
        .hasMessageContaining(Cart.Items.class.getName())
        .hasMessageContaining(Wishes.Items.class.getName())
        .hasMessageContaining("@StateKey");
    assertThatThrownBy(() -> browser.post("/wishes")).isInstanceOf(AssertionError.class)
        .hasMessageContaining("nothing was read or written");

    assertThat(CryoTestKit.json(browser.get("/cart")).get("items").toString())
        .as("the cart's value is as it was written").isEqualTo("[\"apple\"]");
    assertThat(CryoTestKit.json(browser.get("/named")).get("items").size())
        .as("a class with a name of its own reads its own state").isZero();
  }

  @Test
  void theStoredValueReadsAsBeforeAndTheWriterIsPassedThroughAnUpgrade() {
    CryoTestKit kit = CryoTestKit.of(Shop::new);
    CryoTestKit.Connection browser = kit.connect();
    browser.post("/cart");
    String user = browser.user();
    assertThat(kit.plainUserState(user, "Items")).isEqualTo(Map.of("items", List.of("apple")));

    kit.upgradeTo(() -> new CryoApplication() {
      @Override
      public void routes(Routes routes) {
        new Shop().routes(routes);
      }

      @Override
      public int stateVersion() {
        return 2;
      }
    });

    assertThat(CryoTestKit.json(browser.get("/cart")).get("items").toString())
        .isEqualTo("[\"apple\"]");
    assertThatThrownBy(() -> browser.get("/wishes")).isInstanceOf(AssertionError.class)
        .hasMessageContaining(Cart.Items.class.getName());
  }
}
