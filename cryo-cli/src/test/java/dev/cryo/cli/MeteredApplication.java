package dev.cryo.cli;

import dev.cryo.app.AppContext;
import dev.cryo.app.CryoApplication;
import dev.cryo.app.Routes;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Timer;
import java.util.Map;

/**
 * A test application for {@code cryo serve --app} with meters of its own: {@code shop.orders}
 * (a counter, tagged {@code kind=test}) and {@code shop.checkout} (a timer), made in
 * {@code onStart}. Route: {@code POST /api/order} counts one order, times it, and answers
 * {@code {"worker"}}. Thread-safe.
 */
public final class MeteredApplication implements CryoApplication {

  private volatile Counter orders;
  private volatile Timer checkout;

  /** Makes the application. */
  public MeteredApplication() {}

  @Override
  public void onStart(AppContext context) {
    orders = Counter.builder("shop.orders").tag("kind", "test").description("orders taken")
        .register(context.meters());
    checkout = Timer.builder("shop.checkout").register(context.meters());
  }

  @Override
  public void routes(Routes routes) {
    routes.post("/api/order", call -> checkout.record(() -> {
      orders.increment();
      return Map.of("worker", call.worker());
    }));
  }
}
