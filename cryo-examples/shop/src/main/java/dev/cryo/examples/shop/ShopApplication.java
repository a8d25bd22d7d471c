package dev.cryo.examples.shop;

import dev.cryo.app.Call;
import dev.cryo.app.CryoApplication;
import dev.cryo.app.LoginResult;
import dev.cryo.app.Refusal;
import dev.cryo.app.Response;
import dev.cryo.app.Routes;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Pattern;

/**
 * A small multi-tab shop on cryo: a fixed catalogue, a cart per user that every tab of his sees
 * change at once, "recently viewed" per tab, and a login that carries a guest's cart into his
 * account.
 *
 * <ul>
 *   <li>{@code GET /} — the page (static HTML; its script uses cryo's browser client);
 *   <li>{@code GET /api/products} → {@code {"products": [{"id", "name", "price"}]}} (cents);
 *   <li>{@code POST /api/pages} → {@code {"page"}}: opens a page (a tab) on this connection;
 *   <li>{@code GET /api/state?page=ID} → {@code {"user", "guest", "cart", "viewed"}};
 *   <li>{@code POST /api/view} {@code {"page", "product"}} → {@code {"viewed"}}: the page's
 *       recently viewed products, newest first, at most {@link #MAX_VIEWED};
 *   <li>{@code POST /api/cart/add} and {@code POST /api/cart/remove} {@code {"product"}} →
 *       {@code {"cart"}}: one more, or one less, of a product;
 *   <li>{@code POST /api/login} {@code {"user", "page"?}} → the state after the login, or
 *       {@code 303} to it when the account lives on another worker.
 * </ul>
 *
 * <p>A cart is {@code {"items": {product: count}, "count", "total"}}. Every change of the cart is
 * pushed to every page of the user — all his tabs, on all his browsers — as
 * {@code {"kind": "cart", "cart"}}; a change of a page's recently viewed to that page's tabs as
 * {@code {"kind": "viewed", "viewed"}}.
 *
 * <p>Login: a guest's first login into an account nobody holds carries his cart into the account
 * (cryo-app moves a guest's user state with him). Into an account that already exists, the
 * account keeps its own cart and the guest's is dropped: the login call cannot reach the account's
 * state when it lives elsewhere ({@link LoginResult#ELSEWHERE}), so no merge is offered (see
 * docs/guide.md, "Login").
 *
 * <p>Errors are {@code {"error": CODE, "message": TEXT}}. All state is cryo state: the instance
 * keeps only the page's HTML, so it survives any freeze and move. Thread-safe.
 */
public final class ShopApplication implements CryoApplication {

  /** The most products a page remembers as recently viewed; the oldest go first. */
  public static final int MAX_VIEWED = 5;
  /** The most of one product a cart holds. */
  public static final int MAX_PER_PRODUCT = 99;

  /** One product of the catalogue; {@code price} in cents. */
  public record Product(String id, String name, long price) {}

  /** The catalogue, fixed. */
  public static final List<Product> CATALOGUE = List.of(
      new Product("tea", "Green tea", 450),
      new Product("mug", "Enamel mug", 1200),
      new Product("kettle", "Stove kettle", 3900),
      new Product("spoon", "Measuring spoon", 300));

  private static final Map<String, Product> BY_ID = byId();
  private static final Pattern USER_NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._@-]{0,63}");
  private static final String PAGE = resource("index.html");

  /** The user's state: how many of each product his cart holds (sorted by product id). */
  record Cart(TreeMap<String, Integer> items) {
    Cart {
      items = items == null ? new TreeMap<>() : new TreeMap<>(items);
    }
  }

  /** A page's state: the products viewed in it, newest first. */
  record Viewed(List<String> products) {}

  /** A body naming a product. */
  record ProductBody(String product) {}

  /** The body of {@code POST /api/view}. */
  record ViewBody(String page, String product) {}

  /** The body of {@code POST /api/login}. */
  record LoginBody(String user, String page) {}

  /** Makes the shop; it keeps no state of its own. */
  public ShopApplication() {}

  @Override
  public void routes(Routes routes) {
    routes.get("/", call -> Response.html(PAGE).withHeader("Cache-Control", "no-store"));
    routes.get("/api/products", call -> Map.of("products", CATALOGUE));
    routes.post("/api/pages", call -> Map.of("page", call.openPage()));
    routes.get("/api/state", call -> state(call, call.query("page")));
    routes.post("/api/view", ViewBody.class, (call, body) -> {
      String page = required(body.page(), "page");
      Product product = product(body.product());
      Viewed viewed = call.page(page, Viewed.class).update(v -> {
        List<String> products = new ArrayList<>(v.products());
        products.remove(product.id());
        products.add(0, product.id());
        return new Viewed(List.copyOf(products.subList(0, Math.min(MAX_VIEWED,
            products.size()))));
      });
      call.pushToPage(page, ordered("kind", "viewed", "viewed", viewed.products()));
      return ordered("viewed", viewed.products());
    });
    routes.post("/api/cart/add", ProductBody.class, (call, body) -> {
      Product product = product(body.product());
      return changeCart(call, product, +1);
    });
    routes.post("/api/cart/remove", ProductBody.class, (call, body) -> {
      Product product = product(body.product());
      return changeCart(call, product, -1);
    });
    routes.post("/api/login", LoginBody.class, (call, body) -> {
      String user = required(body.user(), "user").strip();
      if (!USER_NAME.matcher(user).matches() || user.startsWith("guest_")) {
        throw new Refusal(400, "bad_user", "a user name is 1 to 64 letters, digits or . _ @ -,"
            + " starting with a letter or a digit, and not 'guest_…'; nobody was logged in");
      }
      if (body.page() != null && !call.hasPage(body.page())) {
        throw new Refusal(404, "unknown_page", "page '" + body.page() + "' is not a page of this"
            + " connection; nobody was logged in: open one with POST /api/pages");
      }
      if (call.login(user) == LoginResult.ELSEWHERE) {
        // the account lives on another worker (or in the freezer): this connection is handed
        // over to it when this call ends, so the next request reads the account's state there
        return Response.seeOther("/api/state" + (body.page() == null ? ""
            : "?page=" + URLEncoder.encode(body.page(), StandardCharsets.UTF_8)));
      }
      Map<String, Object> state = state(call, body.page());
      call.pushToUser(ordered("kind", "cart", "cart", state.get("cart")));
      return state;
    });
  }

  /** Adds {@code delta} of {@code product} to the cart; pushes it to every tab of the user. */
  private static Map<String, Object> changeCart(Call call, Product product, int delta) {
    Cart cart = call.user(Cart.class).update(c -> {
      TreeMap<String, Integer> items = new TreeMap<>(c.items());
      int count = items.getOrDefault(product.id(), 0) + delta;
      if (count > MAX_PER_PRODUCT) {
        throw new Refusal(409, "too_many", "a cart holds at most " + MAX_PER_PRODUCT + " of "
            + product.name() + "; the cart is unchanged");
      }
      if (count <= 0) {
        items.remove(product.id());
      } else {
        items.put(product.id(), count);
      }
      return new Cart(items);
    });
    Map<String, Object> shown = shown(cart);
    call.pushToUser(ordered("kind", "cart", "cart", shown));
    return ordered("cart", shown);
  }

  /** {@code {user, guest, cart, viewed}}; {@code viewed} null without a page. */
  private static Map<String, Object> state(Call call, String page) {
    List<String> viewed = page == null ? null : call.page(page, Viewed.class).get().products();
    return ordered("user", call.user(), "guest", call.isGuest(),
        "cart", shown(call.user(Cart.class).get()), "viewed", viewed);
  }

  /** A cart as replies and pushes show it: {@code {items, count, total}}. */
  private static Map<String, Object> shown(Cart cart) {
    long count = 0;
    long total = 0;
    for (Map.Entry<String, Integer> item : cart.items().entrySet()) {
      Product product = BY_ID.get(item.getKey());
      if (product != null) { // a product the catalogue no longer has is shown but not priced
        total += product.price() * item.getValue();
      }
      count += item.getValue();
    }
    return ordered("items", cart.items(), "count", count, "total", total);
  }

  private static Product product(String id) {
    Product product = id == null ? null : BY_ID.get(id);
    if (product == null) {
      throw new Refusal(404, "unknown_product", "no product '" + id + "' in the catalogue;"
          + " nothing changed: GET /api/products lists them");
    }
    return product;
  }

  private static String required(String value, String field) {
    if (value == null || value.isBlank()) {
      throw new Refusal(400, "bad_request", "the body needs \"" + field + "\"; nothing was done");
    }
    return value;
  }

  /** A map keeping its keys in the order given (so replies read as documented); values may be null. */
  private static Map<String, Object> ordered(Object... pairs) {
    Map<String, Object> map = new LinkedHashMap<>();
    for (int i = 0; i < pairs.length; i += 2) {
      map.put((String) pairs[i], pairs[i + 1]);
    }
    return map;
  }

  private static Map<String, Product> byId() {
    Map<String, Product> map = new LinkedHashMap<>();
    for (Product product : CATALOGUE) {
      map.put(product.id(), product);
    }
    return Map.copyOf(map);
  }

  private static String resource(String name) {
    try (InputStream in = ShopApplication.class.getResourceAsStream(name)) {
      if (in == null) {
        throw new IllegalStateException("the shop's " + name + " is missing from its jar");
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException("the shop's " + name + " could not be read", e);
    }
  }
}
