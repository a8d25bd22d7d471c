package dev.cryo.worker;

import dev.cryo.app.Call;
import dev.cryo.app.CryoApplication;
import dev.cryo.app.Routes;
import dev.cryo.app.State;
import dev.cryo.app.StateKey;
import java.util.Collections;
import java.util.Map;

/**
 * The worker tests' application, written against cryo-app: a few operations on a named value of the
 * user's, the connection's or a page's state, each a {@code POST /<operation>} with query
 * parameters:
 *
 * <ul>
 *   <li>{@code /increment?scope=&key=&page=}: adds one to the number and answers the new value;
 *   <li>{@code /get?scope=&key=&page=}: answers the value, or null;
 *   <li>{@code /put?scope=&key=&page=} with a body {@code {"value": …}}: stores it, answers null;
 *   <li>{@code /open}: opens a page on the call's connection and answers its id;
 *   <li>{@code /login?user=}: logs the call's connection in and answers null.
 * </ul>
 *
 * <p>{@code scope} is {@code page} (the default), {@code connection} or {@code user}; {@code key}
 * one of {@code counter} (the default), {@code n}, {@code cart}, {@code blob}, each kept as
 * {@code {"value": …}} under its own key of the row's store; {@code page} the page's id (the tests'
 * harness names the page the call arrived for). Every answer is {@code {"value": …}}. Keeps no
 * state of its own: thread-safe.
 */
public class StoreApplication implements CryoApplication {

  /** The value at key {@code counter}. */
  @StateKey("counter") record Counter(Object value) {}

  /** The value at key {@code n}. */
  @StateKey("n") record N(Object value) {}

  /** The value at key {@code cart}. */
  @StateKey("cart") record Cart(Object value) {}

  /** The value at key {@code blob}. */
  @StateKey("blob") record Blob(Object value) {}

  /** The body of a put. */
  record Put(Object value) {}

  @Override
  public void routes(Routes routes) {
    routes.post("/increment", call -> answer(update(call, current -> {
      long next = (current instanceof Number number ? number.longValue() : 0L) + 1;
      return next;
    })));
    routes.durable().post("/durable-increment", call -> answer(update(call, current -> {
      long next = (current instanceof Number number ? number.longValue() : 0L) + 1;
      return next;
    })));
    routes.post("/get", call -> answer(value(state(call).get())));
    routes.post("/put", Put.class, (call, put) -> {
      update(call, current -> put.value());
      return answer(null);
    });
    routes.post("/open", call -> answer(call.openPage()));
    routes.post("/login", call -> {
      call.login(call.query("user"));
      return answer(null);
    });
  }

  private static Map<String, Object> answer(Object value) {
    return Collections.singletonMap("value", value);
  }

  private interface Change {
    Object apply(Object current);
  }

  private static Object update(Call call, Change change) {
    String key = key(call);
    State<Object> state = state(call);
    Object next = change.apply(value(state.get()));
    state.set(switch (key) {
      case "n" -> new N(next);
      case "cart" -> new Cart(next);
      case "blob" -> new Blob(next);
      default -> new Counter(next);
    });
    return next;
  }

  private static String key(Call call) {
    String key = call.query("key");
    return key == null ? "counter" : key;
  }

  private static Object value(Object record) {
    return switch (record) {
      case N n -> n.value();
      case Cart cart -> cart.value();
      case Blob blob -> blob.value();
      case Counter counter -> counter.value();
      default -> throw new IllegalStateException("not a value: " + record);
    };
  }

  /** The state the call names, read as its record. */
  @SuppressWarnings("unchecked")
  private static State<Object> state(Call call) {
    Class<?> type = switch (key(call)) {
      case "n" -> N.class;
      case "cart" -> Cart.class;
      case "blob" -> Blob.class;
      case "counter" -> Counter.class;
      default -> throw new IllegalArgumentException("no key " + key(call));
    };
    String scope = call.query("scope") == null ? "page" : call.query("scope");
    return (State<Object>) switch (scope) {
      case "user" -> call.user(type);
      case "connection" -> call.connection(type);
      default -> call.page(call.query("page"), type);
    };
  }
}
