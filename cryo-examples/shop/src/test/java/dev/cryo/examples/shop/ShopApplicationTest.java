package dev.cryo.examples.shop;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.cryo.app.CryoTestKit;
import dev.cryo.app.Response;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The shop's routes through the test kit, each test twice: as they run in one instance, and with
 * a freeze and a wake in a new instance between every call (what a move to another worker does),
 * so that nothing the shop keeps may depend on staying in memory.
 */
class ShopApplicationTest {

  private static CryoTestKit kit(boolean freezeBetweenCalls) {
    return CryoTestKit.of(ShopApplication::new).freezeBetweenCalls(freezeBetweenCalls);
  }

  private static JsonNode ok(Response response) {
    assertThat(response.status()).as(response.bodyText()).isEqualTo(200);
    return CryoTestKit.json(response);
  }

  private static String openPage(CryoTestKit.Connection browser) {
    return ok(browser.post("/api/pages")).get("page").asText();
  }

  private static JsonNode items(JsonNode reply) {
    return reply.get("cart").get("items");
  }

  @ParameterizedTest(name = "freezeBetweenCalls={0}")
  @ValueSource(booleans = {false, true})
  void addAndRemoveChangeTheCartAndItsTotal(boolean freeze) {
    CryoTestKit kit = kit(freeze);
    CryoTestKit.Connection browser = kit.connect();

    ok(browser.post("/api/cart/add", Map.of("product", "tea")));
    ok(browser.post("/api/cart/add", Map.of("product", "tea")));
    JsonNode cart = ok(browser.post("/api/cart/add", Map.of("product", "mug"))).get("cart");
    assertThat(cart.get("items").toString()).isEqualTo("{\"mug\":1,\"tea\":2}");
    assertThat(cart.get("count").asLong()).isEqualTo(3);
    assertThat(cart.get("total").asLong()).isEqualTo(2 * 450 + 1200);

    assertThat(items(ok(browser.post("/api/cart/remove", Map.of("product", "tea"))))
        .toString()).isEqualTo("{\"mug\":1,\"tea\":1}");
    assertThat(items(ok(browser.post("/api/cart/remove", Map.of("product", "tea"))))
        .toString()).isEqualTo("{\"mug\":1}");
    assertThat(items(ok(browser.post("/api/cart/remove", Map.of("product", "tea"))))
        .toString()).as("removing what is not there changes nothing").isEqualTo("{\"mug\":1}");

    JsonNode state = ok(browser.get("/api/state"));
    assertThat(state.get("cart").get("total").asLong()).isEqualTo(1200);
    if (freeze) {
      assertThat(kit.freezes()).as("the user was frozen after every call").isGreaterThan(5);
    }
  }

  @ParameterizedTest(name = "freezeBetweenCalls={0}")
  @ValueSource(booleans = {false, true})
  void anUnknownProductIsRefusedAndChangesNothing(boolean freeze) {
    CryoTestKit.Connection browser = kit(freeze).connect();
    ok(browser.post("/api/cart/add", Map.of("product", "tea")));

    Response refused = browser.post("/api/cart/add", Map.of("product", "caviar"));
    assertThat(refused.status()).isEqualTo(404);
    assertThat(CryoTestKit.json(refused).get("error").asText()).isEqualTo("unknown_product");
    assertThat(items(ok(browser.get("/api/state"))).toString()).isEqualTo("{\"tea\":1}");
  }

  @ParameterizedTest(name = "freezeBetweenCalls={0}")
  @ValueSource(booleans = {false, true})
  void aCartChangeIsPushedToEveryTabOfTheUserOnEveryBrowser(boolean freeze) {
    CryoTestKit kit = kit(freeze);
    CryoTestKit.Connection browser = kit.connect();
    String first = openPage(browser);
    String second = openPage(browser);
    CryoTestKit.Connection stranger = kit.connect();
    String strangers = openPage(stranger);

    ok(browser.post("/api/cart/add", Map.of("product", "kettle")));

    List<CryoTestKit.KitPush> pushes = kit.pushes();
    assertThat(pushes).extracting(CryoTestKit.KitPush::page)
        .containsExactlyInAnyOrder(first, second).doesNotContain(strangers);
    for (CryoTestKit.KitPush push : pushes) {
      assertThat(push.json()).isEqualTo("{\"kind\":\"cart\",\"cart\":{\"items\":{\"kettle\":1},"
          + "\"count\":1,\"total\":3900}}");
    }
  }

  @ParameterizedTest(name = "freezeBetweenCalls={0}")
  @ValueSource(booleans = {false, true})
  void recentlyViewedIsPerTabNewestFirstAndBounded(boolean freeze) {
    CryoTestKit kit = kit(freeze);
    CryoTestKit.Connection browser = kit.connect();
    String left = openPage(browser);
    String right = openPage(browser);

    for (String product : List.of("tea", "mug", "kettle", "spoon", "tea")) {
      ok(browser.post("/api/view", Map.of("page", left, "product", product)));
    }
    ok(browser.post("/api/view", Map.of("page", right, "product", "mug")));

    assertThat(ok(browser.get("/api/state?page=" + left)).get("viewed").toString())
        .isEqualTo("[\"tea\",\"spoon\",\"kettle\",\"mug\"]");
    assertThat(ok(browser.get("/api/state?page=" + right)).get("viewed").toString())
        .isEqualTo("[\"mug\"]");
    assertThat(kit.pushes()).last().satisfies(push -> {
      assertThat(push.page()).isEqualTo(right);
      assertThat(push.json()).isEqualTo("{\"kind\":\"viewed\",\"viewed\":[\"mug\"]}");
    });

    for (String product : List.of("spoon", "kettle", "mug", "tea", "spoon", "mug")) {
      ok(browser.post("/api/view", Map.of("page", right, "product", product)));
    }
    assertThat(ok(browser.get("/api/state?page=" + right)).get("viewed"))
        .hasSize(ShopApplication.MAX_VIEWED - 1); // four products, each once
    Response foreign = kit.connect().get("/api/state?page=" + left);
    assertThat(foreign.status()).as("another browser's page").isEqualTo(404);
  }

  @ParameterizedTest(name = "freezeBetweenCalls={0}")
  @ValueSource(booleans = {false, true})
  void aGuestsFirstLoginCarriesHisCartIntoTheAccount(boolean freeze) {
    CryoTestKit kit = kit(freeze);
    CryoTestKit.Connection browser = kit.connect();
    String page = openPage(browser);
    ok(browser.post("/api/view", Map.of("page", page, "product", "spoon")));
    ok(browser.post("/api/cart/add", Map.of("product", "mug")));
    String guest = browser.user();
    assertThat(guest).startsWith(CryoTestKit.GUEST_PREFIX);

    JsonNode state = ok(browser.post("/api/login", Map.of("user", "ada", "page", page)));

    assertThat(state.get("user").asText()).isEqualTo("ada");
    assertThat(state.get("guest").asBoolean()).isFalse();
    assertThat(state.get("cart").get("items").toString()).isEqualTo("{\"mug\":1}");
    assertThat(state.get("viewed").toString()).as("the page came along").isEqualTo("[\"spoon\"]");
    assertThat(kit.users()).containsExactly("ada");

    // the account keeps it: a second browser that logs in as ada sees the same cart
    CryoTestKit.Connection phone = kit.connect();
    Response login = phone.post("/api/login", Map.of("user", "ada"));
    JsonNode seen = login.status() == 303 ? ok(phone.get(login.header("Location"))) : ok(login);
    assertThat(seen.get("cart").get("items").toString()).isEqualTo("{\"mug\":1}");

    // and a change on the phone is pushed to the tab of the first browser
    ok(phone.post("/api/cart/add", Map.of("product", "mug")));
    assertThat(kit.pushes()).last().satisfies(push -> {
      assertThat(push.page()).isEqualTo(page);
      assertThat(push.json()).contains("\"items\":{\"mug\":2}");
    });
  }

  /**
   * What the login API offers today: into an account that already has state, the account keeps
   * its own cart and the guest's is dropped — awake in the same instance or frozen alike. When
   * cryo-app gives the login a way to merge (issue 24, item 3), this test tells.
   */
  @ParameterizedTest(name = "freezeBetweenCalls={0}")
  @ValueSource(booleans = {false, true})
  void intoAnAccountThatHasACartTheAccountKeepsItsOwn(boolean freeze) {
    CryoTestKit kit = kit(freeze);
    CryoTestKit.Connection laptop = kit.connect();
    ok(laptop.post("/api/login", Map.of("user", "bob")));
    ok(laptop.post("/api/cart/add", Map.of("product", "kettle")));

    CryoTestKit.Connection phone = kit.connect();
    ok(phone.post("/api/cart/add", Map.of("product", "tea")));
    Response login = phone.post("/api/login", Map.of("user", "bob"));
    JsonNode seen = login.status() == 303 ? ok(phone.get(login.header("Location"))) : ok(login);

    assertThat(seen.get("user").asText()).isEqualTo("bob");
    assertThat(seen.get("cart").get("items").toString()).isEqualTo("{\"kettle\":1}");
    assertThat(kit.users()).as("the guest went with his only connection").containsExactly("bob");
  }

  @ParameterizedTest(name = "freezeBetweenCalls={0}")
  @ValueSource(booleans = {false, true})
  void thePageIsStaticHtmlThatLoadsCryosClient(boolean freeze) {
    Response page = kit(freeze).connect().get("/");
    assertThat(page.status()).isEqualTo(200);
    assertThat(page.header("Content-Type")).isEqualTo("text/html; charset=utf-8");
    assertThat(page.bodyText()).contains("<script src=\"/_cryo/cryo.js\"></script>",
        "Cryo.connect", "cryo.on(\"cart\"");
  }
}
