package dev.cryo.bench.worker;

import dev.cryo.app.Call;
import dev.cryo.app.CryoApplication;
import dev.cryo.app.Routes;
import dev.cryo.app.State;
import dev.cryo.app.StateKey;
import java.util.Map;

/**
 * The worker benchmarks' application, written against cryo-app as any application is: each call a
 * {@code POST} with query parameters.
 *
 * <ul>
 *   <li>{@code /pages}: opens a page on the call's connection and answers {@code {"page": id}};
 *   <li>{@code /put?scope=user|page&page=} with a body {@code {"value": …}}: keeps the value as the
 *       user's or the page's {@link Data};
 *   <li>{@code /get?scope=user|page&page=}: answers the {@link Data} kept;
 *   <li>{@code /increment?page=}: adds one to the page's {@link Counter} and answers it.
 * </ul>
 *
 * Keeps no state of its own: thread-safe.
 */
public final class BenchApplication implements CryoApplication {

  /** What a store keeps, under the key {@code data}. */
  @StateKey("data") public record Data(Object value) {}

  /** A page's counter. */
  public record Counter(long count) {}

  @Override
  public void routes(Routes routes) {
    routes.post("/pages", call -> Map.of("page", call.openPage()));
    routes.post("/put", Data.class, (call, data) -> {
      data(call).set(data);
      return Map.of();
    });
    routes.post("/get", call -> data(call).get());
    routes.post("/increment", call -> call.page(call.query("page"), Counter.class)
        .update(counter -> new Counter(counter.count() + 1)));
  }

  private static State<Data> data(Call call) {
    return "user".equals(call.query("scope")) ? call.user(Data.class)
        : call.page(call.query("page"), Data.class);
  }
}
