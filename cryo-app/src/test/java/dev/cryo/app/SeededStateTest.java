package dev.cryo.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The test kit seeded from stored state: version 1's parcel as JSON, read by version 2 through its
 * upgrade, without version 1's classes anywhere.
 */
class SeededStateTest {

  /** Version 2: the cart's items became lines with a quantity; state version 2. */
  public static final class ShopTwo implements CryoApplication {
    @StateKey("Cart")
    public record Cart(List<Line> lines) {}

    public record Line(String item, int quantity) {}

    @StateKey("Tab")
    public record Tab(String title) {}

    @Override
    public void routes(Routes routes) {
      routes.get("/cart", call -> call.user(Cart.class).get());
      routes.get("/tab", call -> call.page(call.query("page"), Tab.class).get());
    }

    @Override
    public int stateVersion() {
      return 2;
    }

    @Override
    public Object upgrade(StoredState stored) {
      if (stored.key().equals("Cart") && stored.version() == 1) {
        @SuppressWarnings("unchecked")
        List<String> items = (List<String>) ((Map<String, Object>) stored.value()).get("items");
        return new Cart(items.stream().map(item -> new Line(item, 1)).toList());
      }
      if (stored.key().equals("Tab") && stored.version() == 1) {
        return new Tab(((String) ((Map<?, ?>) stored.value()).get("name")).toUpperCase());
      }
      return stored.value();
    }
  }

  @Test
  void aUserSeededAsVersionOneIsUpgradedAtHisFirstCall() {
    CryoTestKit kit = CryoTestKit.of(ShopTwo::new);
    CryoTestKit.Connection anna = kit.seedFrozen("anna", 1,
        "{\"Cart\": {\"items\": [\"pen\", \"book\"]}}", "{}",
        Map.of("tab-1", "{\"Tab\": {\"name\": \"shoes\"}}"));
    assertThat(kit.isFrozen("anna")).isTrue();

    Response cart = anna.get("/cart");

    assertThat(cart.status()).as(cart.bodyText()).isEqualTo(200);
    assertThat(CryoTestKit.json(cart).toString())
        .isEqualTo("{\"lines\":[{\"item\":\"pen\",\"quantity\":1},{\"item\":\"book\","
            + "\"quantity\":1}]}");
    assertThat(CryoTestKit.json(anna.get("/tab?page=tab-1")).get("title").asText())
        .isEqualTo("SHOES");
    assertThat(anna.user()).isEqualTo("anna");
  }

  @Test
  void aUserSeededAsTheRunningVersionIsReadAsHeIs() {
    CryoTestKit kit = CryoTestKit.of(ShopTwo::new);
    CryoTestKit.Connection anna = kit.seedFrozen("anna", 2,
        "{\"Cart\": {\"lines\": [{\"item\": \"cup\", \"quantity\": 3}]}}");

    assertThat(CryoTestKit.json(anna.get("/cart")).get("lines").get(0).get("quantity").asInt())
        .isEqualTo(3);
  }

  @Test
  void stateANewerVersionWroteIsThe503OfUnreadableState() {
    CryoTestKit kit = CryoTestKit.of(ShopTwo::new).failOnApplicationError(false);
    CryoTestKit.Connection anna = kit.seedFrozen("anna", 3, "{\"Cart\": {}}");

    Response refused = anna.get("/cart");

    assertThat(refused.status()).isEqualTo(503);
    assertThat(CryoTestKit.json(refused).get("error").asText()).isEqualTo("unreadable_parcel");
  }

  @Test
  void whatTheFreezerNeverHoldsIsRefusedAndNothingSeeded() {
    CryoTestKit kit = CryoTestKit.of(ShopTwo::new);
    assertThatThrownBy(() -> kit.seedFrozen("anna", 1, "{\"Cart\": null}"))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("nothing seeded");
    assertThatThrownBy(() -> kit.seedFrozen("anna", 1, "[1]"))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("not a JSON object");
    assertThatThrownBy(() -> kit.seedFrozen("guest_k9", 1, "{}"))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("guest");
    assertThatThrownBy(() -> kit.seedFrozen("anna", 0, "{}"))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("1 or more");
    assertThat(kit.users()).isEmpty();
  }
}
