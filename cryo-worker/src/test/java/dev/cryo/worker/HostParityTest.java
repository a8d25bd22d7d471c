package dev.cryo.worker;

import static dev.cryo.worker.AppHostTest.frozen;
import static dev.cryo.worker.AppHostTest.http;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.cryo.app.CryoApplication;
import dev.cryo.app.CryoTestKit;
import dev.cryo.app.Response;
import dev.cryo.app.Routes;
import dev.cryo.app.StateKey;
import dev.cryo.app.Stay;
import dev.cryo.wire.protocol.HttpCall;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The same application in the test kit and in the runtime (a worker serving it through its
 * application host, on a real freezer) answers the same: the kit cannot pass where the runtime
 * fails. Each case is one host policy the two share.
 */
class HostParityTest {

  private static final ObjectMapper JSON = new ObjectMapper();

  /** How many times {@link Moody#onWake} fails before it succeeds. */
  static final AtomicInteger WAKE_FAILURES = new AtomicInteger();
  /** How many times {@link Moody#onWake} ran. */
  static final AtomicInteger WAKES = new AtomicInteger();

  /** Counts per user; its onWake fails {@link #WAKE_FAILURES} times first. */
  public static class Moody implements CryoApplication {
    @StateKey("Counter")
    public record Counter(long n) {}

    @Override
    public void routes(Routes routes) {
      routes.post("/count", call -> call.user(Counter.class).update(c -> new Counter(c.n() + 1)));
    }

    @Override
    public void onWake(Stay stay) {
      WAKES.incrementAndGet();
      if (WAKE_FAILURES.getAndUpdate(left -> Math.max(0, left - 1)) > 0) {
        throw new IllegalStateException("onWake is not ready");
      }
    }
  }

  /** The same application at state version 2, reading no other. */
  public static final class MoodyTwo extends Moody {
    @Override
    public int stateVersion() {
      return 2;
    }
  }

  /** The call {@link Keeper} kept from its last {@code /keep}. */
  static final java.util.concurrent.atomic.AtomicReference<dev.cryo.app.Call> KEPT =
      new java.util.concurrent.atomic.AtomicReference<>();

  /** Keeps a call past its handler, and writes through it in a later call: a developer's slip. */
  public static final class Keeper implements CryoApplication {
    @Override
    public void routes(Routes routes) {
      routes.post("/keep", call -> {
        KEPT.set(call);
        return null;
      });
      routes.post("/write-kept", call -> {
        try {
          KEPT.get().user(Moody.Counter.class).set(new Moody.Counter(99));
          return Map.of("thrown", "nothing");
        } catch (RuntimeException e) {
          return Map.of("thrown", e.getClass().getName(), "message", e.getMessage());
        }
      });
      routes.post("/count", call -> call.user(Moody.Counter.class)
          .update(c -> new Moody.Counter(c.n() + 1)));
    }
  }

  /** Returns a future from a lambda: synchronous handlers only. */
  public static final class Eager implements CryoApplication {
    @Override
    public void routes(Routes routes) {
      routes.post("/cart", call -> java.util.concurrent.CompletableFuture.supplyAsync(
          () -> Map.of("n", 1)));
    }
  }

  /** Two state classes of the same simple name, each stored under it. */
  public static final class Shelves implements CryoApplication {
    /** The cart's. */
    public static final class Cart {
      public record Items(java.util.List<String> items) {}
    }

    /** The wish list's. */
    public static final class Wishes {
      public record Items(java.util.List<String> items) {}
    }

    @Override
    public void routes(Routes routes) {
      routes.post("/cart", call -> call.user(Cart.Items.class)
          .update(cart -> new Cart.Items(java.util.List.of("apple"))));
      routes.get("/cart", call -> call.user(Cart.Items.class).get());
      routes.get("/wishes", call -> call.user(Wishes.Items.class).get());
    }
  }

  /** Filters around its routes: a guard, a header, a failure answered otherwise. */
  public static final class Guarded implements CryoApplication {
    @Override
    public void routes(Routes routes) {
      routes.before(call -> {
        call.user(Moody.Counter.class).update(c -> new Moody.Counter(c.n() + 1));
        return "no".equals(call.query("key"))
            ? Response.json(401, Map.of("error", "login_required")) : null;
      });
      routes.post("/count", call -> call.user(Moody.Counter.class).get());
      routes.post("/missing", call -> {
        throw new java.util.NoSuchElementException("no such item");
      });
      routes.after((call, response, failure) -> (failure instanceof
          java.util.NoSuchElementException ? Response.json(404, Map.of("error", "no_such_item"))
          : response).withHeader("Cryo-Reason", "seen " + call.user(Moody.Counter.class).get().n()));
    }
  }

  /** The pages {@link Tabs#onPageClosed} heard. */
  static final java.util.List<String> CLOSED =
      java.util.Collections.synchronizedList(new java.util.ArrayList<>());

  /** Opens, lists, closes and reads pages. */
  public static final class Tabs implements CryoApplication {
    @StateKey("Note")
    public record Note(String text) {}

    @Override
    public void routes(Routes routes) {
      routes.post("/open", call -> {
        String page = call.openPage();
        call.page(page, Note.class).set(new Note("kept"));
        return Map.of("page", page);
      });
      routes.get("/pages", call -> Map.of("pages", call.pages()));
      routes.post("/close", call -> Map.of("closed", call.closePage(call.query("page")),
          "has", call.hasPage(call.query("page")), "pages", call.pages().size()));
      routes.get("/note", call -> call.page(call.query("page"), Note.class).get());
    }

    @Override
    public void onPageClosed(Stay stay, String pageId) {
      CLOSED.add(pageId);
    }
  }

  /** A shop whose cart follows a guest into an account that has one (a login merge). */
  public static final class Shop implements CryoApplication {
    @StateKey("Cart")
    public record Cart(java.util.List<String> items) {}

    @Override
    public void routes(Routes routes) {
      routes.post("/add", call -> call.user(Cart.class).update(c -> new Cart(
          concat(c.items(), java.util.List.of(call.query("item"))))));
      routes.get("/cart", call -> Map.of("user", call.user(),
          "items", call.user(Cart.class).get().items()));
      routes.post("/login", call -> Map.of("result", call.login(call.query("user")),
          "items", call.user(Cart.class).get().items()));
      routes.mergeAtLogin(Cart.class, (guest, account) -> new Cart(account == null
          ? guest.items() : concat(account.items(), guest.items())));
    }

    static java.util.List<String> concat(java.util.List<String> first,
        java.util.List<String> second) {
      java.util.List<String> next = new java.util.ArrayList<>(first == null
          ? java.util.List.of() : first);
      next.addAll(second);
      return next;
    }
  }

  @TempDir Path temp;
  Harness harness;

  @BeforeEach
  void setUp() throws Exception {
    WAKE_FAILURES.set(0);
    WAKES.set(0);
    CLOSED.clear();
    harness = new Harness(temp);
  }

  @AfterEach
  void tearDown() {
    harness.close();
  }

  private Worker worker(String name, Class<? extends CryoApplication> version) {
    return harness.worker(name, version);
  }

  /** What the runtime answers, as its worker's wire endpoint serves the commander's call. */
  private static Reply runtime(Worker worker, HttpCall call) {
    return kit(AppHostTest.serve(worker, call));
  }

  private static Reply kit(Response response) { // either host's reply, read the same way
    return new Reply(response.status(), response.header("Content-Type"),
        response.header("Retry-After"), response.header("Cryo-Reason"), json(response.body()));
  }

  private record Reply(int status, String contentType, String retryAfter, String reason,
      JsonNode body) {}

  private static JsonNode json(byte[] body) {
    try {
      return JSON.readTree(body);
    } catch (IOException e) {
      return JSON.getNodeFactory().textNode(new String(body, StandardCharsets.UTF_8));
    }
  }

  @Test
  void aFailedOnWakeIsTheSame500AndRunsAgainOnTheNextCall() {
    WAKE_FAILURES.set(1);
    CryoTestKit kit = CryoTestKit.of(Moody::new).failOnApplicationError(false);
    CryoTestKit.Connection browser = kit.connect();
    Reply kitFailed = kit(browser.post("/count"));
    Reply kitServed = kit(browser.post("/count"));
    int kitWakes = WAKES.getAndSet(0);

    WAKE_FAILURES.set(1);
    Worker w1 = worker("w1", Moody.class);
    Reply runtimeFailed = runtime(w1, http(null, "c1", "POST", "/count", null));
    Reply runtimeServed = runtime(w1, http(null, "c1", "POST", "/count", null));
    int runtimeWakes = WAKES.get();

    assertThat(kitFailed.status()).isEqualTo(500);
    assertThat(kitFailed).isEqualTo(runtimeFailed);
    assertThat(kitServed.status()).isEqualTo(200);
    assertThat(kitServed.body().get("n").asLong()).isEqualTo(1); // the failed call did nothing
    assertThat(kitServed).isEqualTo(runtimeServed);
    assertThat(kitWakes).as("onWake ran again after it failed, then once").isEqualTo(2)
        .isEqualTo(runtimeWakes);
  }

  @Test
  void aCallKeptPastItsHandlerIsRefusedTheSameWayAfterAMove() {
    CryoTestKit kit = CryoTestKit.of(Keeper::new).freezeBetweenCalls(true);
    CryoTestKit.Connection browser = kit.connect();
    browser.post("/keep");
    Reply kitRefused = kit(browser.post("/write-kept"));
    Reply kitCount = kit(browser.post("/count"));

    Worker w1 = worker("w1", Keeper.class);
    runtime(w1, http(null, "c1", "POST", "/keep", null));
    w1.freezeUser("guest_c1").join(); // he moves: woken on w2 by his next call
    Worker w2 = worker("w2", Keeper.class);
    Reply runtimeRefused = runtime(w2, frozen(http(null, "c1", "POST", "/write-kept", null)));
    Reply runtimeCount = runtime(w2, http(null, "c1", "POST", "/count", null));

    assertThat(kitRefused.status()).isEqualTo(200);
    assertThat(kitRefused.body().get("thrown").asText())
        .isEqualTo(IllegalStateException.class.getName());
    assertThat(kitRefused.body().get("message").asText()).contains("POST /keep");
    assertThat(runtimeRefused).isEqualTo(kitRefused);
    assertThat(kitCount.body().get("n").asLong()).as("the kept call wrote nothing").isEqualTo(1);
    assertThat(runtimeCount).isEqualTo(kitCount);
  }

  @Test
  void aFutureReturnedByAHandlerIsTheSame500() {
    CryoTestKit kit = CryoTestKit.of(Eager::new).failOnApplicationError(false);
    Reply kitFailed = kit(kit.connect().post("/cart"));

    Reply runtimeFailed = runtime(worker("w1", Eager.class),
        http(null, "c1", "POST", "/cart", null));

    assertThat(kitFailed.status()).isEqualTo(500);
    assertThat(kitFailed.body().get("error").asText()).isEqualTo("application_failed");
    assertThat(runtimeFailed).isEqualTo(kitFailed);
  }

  @Test
  void aStateClassOfTheSameSimpleNameIsRefusedAfterAFreezeNotHandedTheOthersValue() {
    CryoTestKit kit = CryoTestKit.of(Shelves::new).freezeBetweenCalls(true)
        .failOnApplicationError(false);
    CryoTestKit.Connection browser = kit.connect();
    browser.post("/cart");
    Reply kitWishes = kit(browser.get("/wishes"));
    Reply kitCart = kit(browser.get("/cart"));

    Worker w1 = worker("w1", Shelves.class);
    runtime(w1, http(null, "c1", "POST", "/cart", null));
    w1.freezeUser("guest_c1").join();
    Worker w2 = worker("w2", Shelves.class);
    Reply runtimeWishes = runtime(w2, frozen(http(null, "c1", "GET", "/wishes", null)));
    w2.freezeUser("guest_c1").join(); // w2 bound the name to the refused class: the cart is read
    Worker w3 = worker("w3", Shelves.class); // where it is the only one
    Reply runtimeCart = runtime(w3, frozen(http(null, "c1", "GET", "/cart", null)));

    assertThat(kitWishes.status()).isEqualTo(500);
    assertThat(runtimeWishes).isEqualTo(kitWishes);
    assertThat(kitCart.body().get("items").toString()).isEqualTo("[\"apple\"]");
    assertThat(runtimeCart).isEqualTo(kitCart);
  }

  @Test
  void stateTheRunningVersionCannotReadIsTheSame503() {
    CryoTestKit kit = CryoTestKit.of(MoodyTwo::new).failOnApplicationError(false);
    CryoTestKit.Connection browser = kit.connect();
    browser.post("/count");
    kit.upgradeTo(Moody::new); // a roll back: state version 2 is frozen, 1 runs
    Reply kitRefused = kit(browser.post("/count"));

    Worker newer = worker("w1", MoodyTwo.class);
    runtime(newer, http(null, "c1", "POST", "/count", null));
    newer.freezeUser("guest_c1").join();
    Worker older = worker("w2", Moody.class);
    Reply runtimeRefused = runtime(older, frozen(http(null, "c1", "POST", "/count", null)));

    assertThat(kitRefused.status()).isEqualTo(503);
    assertThat(kitRefused.reason()).isEqualTo("unreadable_parcel");
    assertThat(kitRefused.retryAfter()).isNotNull();
    assertThat(kitRefused.body().get("error").asText()).isEqualTo("unreadable_parcel");
    assertThat(runtimeRefused.status()).isEqualTo(kitRefused.status());
    assertThat(runtimeRefused.contentType()).isEqualTo(kitRefused.contentType());
    assertThat(runtimeRefused.retryAfter()).isEqualTo(kitRefused.retryAfter());
    assertThat(runtimeRefused.reason()).isEqualTo(kitRefused.reason());
    assertThat(runtimeRefused.body().get("error")).isEqualTo(kitRefused.body().get("error"));
    assertThat(runtimeRefused.contentType()).startsWith("application/json");
    assertThat(runtimeRefused.body()).isEqualTo(kitRefused.body());
    String message = kitRefused.body().get("message").asText();
    assertThat(message).contains("kept as it was", "nothing was lost", "try again");
    assertThat(message.split("try again", -1)).as("the advice, once").hasSize(2);
    assertThat(message).as("nothing of the application or the run is shown to the client")
        .doesNotContain("Moody", "dev.cryo", "state version", "freezer", "CryoApplication",
            "upgrade");
  }

  @Test
  void filtersRunTheSameAroundTheHandlerInTheUsersTurn() {
    CryoTestKit kit = CryoTestKit.of(Guarded::new).freezeBetweenCalls(true);
    CryoTestKit.Connection browser = kit.connect();
    Reply kitRefused = kit(browser.post("/count?key=no"));
    Reply kitServed = kit(browser.post("/count"));
    Reply kitMissing = kit(browser.post("/missing"));

    Worker w1 = worker("w1", Guarded.class);
    Reply runtimeRefused = runtime(w1, http(null, "c1", "POST", "/count?key=no", null));
    w1.freezeUser("guest_c1").join();
    Worker w2 = worker("w2", Guarded.class);
    Reply runtimeServed = runtime(w2, frozen(http(null, "c1", "POST", "/count", null)));
    Reply runtimeMissing = runtime(w2, http(null, "c1", "POST", "/missing", null));

    assertThat(kitRefused.status()).isEqualTo(401);
    assertThat(kitRefused.reason()).isEqualTo("seen 1");
    assertThat(runtimeRefused).isEqualTo(kitRefused);
    assertThat(kitServed.body().get("n").asLong()).as("the filters' writes were frozen with him")
        .isEqualTo(2);
    assertThat(runtimeServed).isEqualTo(kitServed);
    assertThat(kitMissing.status()).isEqualTo(404);
    assertThat(runtimeMissing).isEqualTo(kitMissing);
  }

  @Test
  void aPageClosedByACallIsListedNoMoreAndAnswersTheSame404() {
    CryoTestKit kit = CryoTestKit.of(Tabs::new).freezeBetweenCalls(true);
    CryoTestKit.Connection browser = kit.connect();
    String kitFirst = kit(browser.post("/open")).body().get("page").asText();
    String kitSecond = kit(browser.post("/open")).body().get("page").asText();
    Reply kitListed = kit(browser.get("/pages"));
    Reply kitClosed = kit(browser.post("/close?page=" + kitFirst));
    Reply kitLater = kit(browser.get("/note?page=" + kitFirst));
    Reply kitAgain = kit(browser.post("/close?page=" + kitFirst));
    Reply kitKept = kit(browser.get("/note?page=" + kitSecond));
    java.util.List<String> kitHeard = java.util.List.copyOf(CLOSED);
    CLOSED.clear();

    Worker w1 = worker("w1", Tabs.class);
    String first = runtime(w1, http(null, "c1", "POST", "/open", null)).body().get("page").asText();
    String second = runtime(w1, http(null, "c1", "POST", "/open", null)).body().get("page")
        .asText();
    Reply listed = runtime(w1, http(null, "c1", "GET", "/pages", null));
    Reply closed = runtime(w1, http(null, "c1", "POST", "/close?page=" + first, null));
    w1.freezeUser("guest_c1").join(); // the closed page is not in his parcel
    Worker w2 = worker("w2", Tabs.class);
    Reply later = runtime(w2, frozen(http(null, "c1", "GET", "/note?page=" + first, null)));
    Reply again = runtime(w2, http(null, "c1", "POST", "/close?page=" + first, null));
    Reply kept = runtime(w2, http(null, "c1", "GET", "/note?page=" + second, null));

    assertThat(kitListed.body().get("pages")).hasSize(2);
    assertThat(listed.body().get("pages").toString())
        .isEqualTo(JSON.valueToTree(java.util.stream.Stream.of(first, second).sorted().toList())
            .toString());
    assertThat(kitClosed.body()).isEqualTo(JSON.valueToTree(Map.of("closed", true, "has", false,
        "pages", 1)));
    assertThat(closed).isEqualTo(kitClosed);
    assertThat(kitLater.status()).isEqualTo(404);
    assertThat(kitLater.body().get("error").asText()).isEqualTo("unknown_page");
    assertThat(later).isEqualTo(kitLater);
    assertThat(kitAgain.body().get("closed").asBoolean()).isFalse();
    assertThat(again).isEqualTo(kitAgain);
    assertThat(kitKept.body().get("text").asText()).isEqualTo("kept");
    assertThat(kept).isEqualTo(kitKept);
    assertThat(kitHeard).containsExactly(kitFirst);
    assertThat(CLOSED).containsExactly(first);
    assertThat(harness.told("w1")).contains("drop_page:" + first)
        .noneMatch(told -> told.startsWith("drop_connection"));
  }

  @Test
  void aGuestsCartIsMergedIntoAnAwakeAccountInTheLoginCall() {
    CryoTestKit kit = CryoTestKit.of(Shop::new);
    CryoTestKit.Connection phone = kit.connect();
    phone.post("/login?user=anna");
    phone.post("/add?item=book");
    CryoTestKit.Connection laptop = kit.connect();
    laptop.post("/add?item=pen");
    Reply kitLogin = kit(laptop.post("/login?user=anna"));
    Reply kitCart = kit(phone.get("/cart"));

    Worker w1 = worker("w1", Shop.class);
    runtime(w1, http("anna", "c0", "POST", "/add?item=book", null));
    runtime(w1, http(null, "c1", "POST", "/add?item=pen", null));
    Reply login = runtime(w1, http(null, "c1", "POST", "/login?user=anna", null));
    Reply cart = runtime(w1, http("anna", "c0", "GET", "/cart", null));

    assertThat(kitLogin.body().get("result").asText()).isEqualTo("HERE");
    assertThat(kitLogin.body().get("items").toString()).isEqualTo("[\"book\",\"pen\"]");
    assertThat(login).isEqualTo(kitLogin);
    assertThat(kitCart.body().get("items").toString()).isEqualTo("[\"book\",\"pen\"]");
    assertThat(cart).isEqualTo(kitCart);
    assertThat(w1.registry().userItems().contains("guest_c1")).isFalse();
  }

  @Test
  void aGuestsCartIsMergedIntoAFrozenAccountWhereTheyMeetAtItsWake() {
    CryoTestKit kit = CryoTestKit.of(Shop::new).freezeBetweenCalls(true);
    CryoTestKit.Connection phone = kit.connect();
    phone.post("/login?user=anna");
    phone.post("/add?item=book");
    CryoTestKit.Connection laptop = kit.connect();
    laptop.post("/add?item=pen");
    laptop.post("/add?item=cup");
    Reply kitLogin = kit(laptop.post("/login?user=anna"));
    Reply kitCart = kit(laptop.get("/cart"));
    Reply kitOther = kit(phone.get("/cart"));

    Worker w1 = worker("w1", Shop.class);
    runtime(w1, http("anna", "c0", "POST", "/add?item=book", null));
    w1.freezeUser("anna").join();
    harness.whereabouts.put("anna", IdentityLocator.Location.FROZEN);
    runtime(w1, http(null, "c1", "POST", "/add?item=pen", null));
    runtime(w1, http(null, "c1", "POST", "/add?item=cup", null));
    Reply login = runtime(w1, http(null, "c1", "POST", "/login?user=anna", null));
    harness.await("handed over", () -> !w1.registry().connectionItems().contains("c1"));
    harness.await("semaphore free", () -> {
      try {
        return harness.freezer.semaphoreHolder("anna").isEmpty();
      } catch (dev.cryo.lock.LockException e) {
        throw new AssertionError(e);
      }
    });
    Worker w2 = worker("w2", Shop.class);
    Reply cart = runtime(w2, frozen(http("anna", "c1", "GET", "/cart", null)));
    Reply other = runtime(w2, http("anna", "c0", "GET", "/cart", null));

    assertThat(kitLogin.body().get("result").asText()).isEqualTo("ELSEWHERE");
    assertThat(login.body().get("result").asText()).isEqualTo("ELSEWHERE");
    assertThat(kitCart.body().get("items").toString())
        .isEqualTo("[\"book\",\"pen\",\"cup\"]");
    assertThat(cart).isEqualTo(kitCart);
    assertThat(other).as("merged once").isEqualTo(kitOther).isEqualTo(kitCart);
  }

  @Test
  void aGuestsCartIsMergedIntoAnAccountAwakeOnAnotherWorkerWhereTheConnectionArrives() {
    CryoTestKit kit = CryoTestKit.of(Shop::new);
    CryoTestKit.Connection phone = kit.connect();
    phone.post("/login?user=anna");
    phone.post("/add?item=book");
    kit.freeze("anna");
    phone.get("/cart"); // anna awake again, in another instance than the guests born next
    CryoTestKit.Connection laptop = kit.connect();
    laptop.post("/add?item=pen");
    Reply kitLogin = kit(laptop.post("/login?user=anna"));
    Reply kitCart = kit(laptop.get("/cart"));

    Worker w1 = worker("w1", Shop.class);
    Worker w2 = worker("w2", Shop.class);
    runtime(w2, http("anna", "c0", "POST", "/add?item=book", null));
    harness.whereabouts.put("anna", IdentityLocator.Location.on("w2"));
    runtime(w1, http(null, "c1", "POST", "/add?item=pen", null));
    Reply login = runtime(w1, http(null, "c1", "POST", "/login?user=anna", null));
    harness.await("handed over", () -> !w1.registry().connectionItems().contains("c1"));
    harness.await("semaphore free", () -> {
      try {
        return harness.freezer.semaphoreHolder("anna").isEmpty();
      } catch (dev.cryo.lock.LockException e) {
        throw new AssertionError(e);
      }
    });
    Reply cart = runtime(w2, http("anna", "c1", "GET", "/cart", null));

    assertThat(kitLogin.body().get("result").asText()).isEqualTo("ELSEWHERE");
    assertThat(login).isEqualTo(kitLogin);
    assertThat(kitCart.body().get("items").toString()).isEqualTo("[\"book\",\"pen\"]");
    assertThat(cart).isEqualTo(kitCart);
  }
}
