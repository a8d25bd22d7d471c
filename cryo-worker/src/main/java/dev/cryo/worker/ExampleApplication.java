package dev.cryo.worker;

import dev.cryo.register.Store;
import java.util.Map;

/**
 * A tiny application, for tests, benchmarks and as an example of the seam. Operations, with their
 * arguments:
 *
 * <ul>
 *   <li>{@code increment} {@code {scope, key, page}}: adds one to the number at {@code key} in the
 *       store of {@code scope} ({@code page}, {@code connection} or {@code user}; default
 *       {@code page}) and returns the new value, a {@code Long}; with {@code page} (an id), the page
 *       store is that page's of the call's connection rather than the call's own page;
 *   <li>{@code get} {@code {scope, key}}: returns the value at {@code key}, or null;
 *   <li>{@code put} {@code {scope, key, value, page}}: stores a plain value and returns null;
 *   <li>{@code open} {@code {page}}: opens page {@code page} on the call's connection, returns null;
 *   <li>{@code login} {@code {user}}: logs the call's connection in (not waiting for a hand-over)
 *       and returns null.
 * </ul>
 *
 * Thread-safe: it keeps no state of its own.
 */
public final class ExampleApplication implements Application {

  @Override
  public Object handle(CallContext context) {
    Map<String, Object> arguments = context.call().arguments();
    String key = (String) arguments.getOrDefault("key", "counter");
    Object scope = arguments.getOrDefault("scope", "page");
    Object page = arguments.get("page");
    return switch (context.call().operation()) {
      case "increment" -> on(context, scope, page, store -> {
        Object current = store.get(key);
        long next = (current instanceof Number number ? number.longValue() : 0L) + 1;
        store.set(key, next);
        return next;
      });
      case "get" -> on(context, scope, page, store -> store.get(key));
      case "put" -> on(context, scope, page, store -> {
        store.set(key, arguments.get("value"));
        return null;
      });
      case "open" -> {
        context.newPage((String) arguments.get("page"), Map.of());
        yield null;
      }
      case "login" -> {
        context.login((String) arguments.get("user"));
        yield null;
      }
      default -> throw new IllegalArgumentException("unknown operation '"
          + context.call().operation() + "'; use increment, get, put or login");
    };
  }

  private static Object on(CallContext context, Object scope, Object page,
      java.util.function.Function<Store, Object> action) {
    return switch (String.valueOf(scope)) {
      case "user" -> context.withUserStore(action);
      case "connection" -> context.withConnectionStore(action);
      default -> page instanceof String id ? context.withPageStore(id, action)
          : context.withPageStore(action);
    };
  }
}
