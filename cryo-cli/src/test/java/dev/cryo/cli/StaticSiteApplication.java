package dev.cryo.cli;

import dev.cryo.app.CryoApplication;
import dev.cryo.app.Routes;
import java.util.Map;

/**
 * A test application for {@code cryo serve --app} with static files: the test resources under
 * {@code site-static/} at {@code /assets}, and one route, {@code GET /api/hello} →
 * {@code {"user"}}, which makes a guest as any route does. Keeps no state. Thread-safe.
 */
public final class StaticSiteApplication implements CryoApplication {

  /** Makes the application. */
  public StaticSiteApplication() {}

  @Override
  public void routes(Routes routes) {
    routes.staticResources("/assets", "site-static/");
    routes.get("/api/hello", call -> Map.of("user", call.user()));
  }
}
