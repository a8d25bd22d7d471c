package dev.cryo.worker;

import dev.cryo.register.Store;
import java.util.Map;

/**
 * A tiny application, for tests, benchmarks and as an example of the seam. Operations, with their
 * arguments:
 *
 * <ul>
 *   <li>{@code increment} {@code {scope, key}}: adds one to the number at {@code key} in the store
 *       of {@code scope} ({@code page}, {@code connection} or {@code user}; default {@code page})
 *       and returns the new value, a {@code Long};
 *   <li>{@code get} {@code {scope, key}}: returns the value at {@code key}, or null;
 *   <li>{@code put} {@code {scope, key, value}}: stores a plain value and returns null;
 *   <li>{@code login} {@code {user, elsewhere}}: logs the call's connection in (not waiting for a
 *       hand-over) and returns null.
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
    return switch (context.call().operation()) {
      case "increment" -> on(context, scope, store -> {
        Object current = store.get(key);
        long next = (current instanceof Number number ? number.longValue() : 0L) + 1;
        store.set(key, next);
        return next;
      });
      case "get" -> on(context, scope, store -> store.get(key));
      case "put" -> on(context, scope, store -> {
        store.set(key, arguments.get("value"));
        return null;
      });
      case "login" -> {
        context.login((String) arguments.get("user"),
            Boolean.TRUE.equals(arguments.get("elsewhere")));
        yield null;
      }
      default -> throw new IllegalArgumentException("unknown operation '"
          + context.call().operation() + "'; use increment, get, put or login");
    };
  }

  private static Object on(CallContext context, Object scope,
      java.util.function.Function<Store, Object> action) {
    return switch (String.valueOf(scope)) {
      case "user" -> context.withUserStore(action);
      case "connection" -> context.withConnectionStore(action);
      default -> context.withPageStore(action);
    };
  }
}
