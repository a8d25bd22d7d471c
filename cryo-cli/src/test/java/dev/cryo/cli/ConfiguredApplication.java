package dev.cryo.cli;

import dev.cryo.app.AppContext;
import dev.cryo.app.CryoApplication;
import dev.cryo.app.Routes;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A test application for {@code cryo serve --app} with a configuration and a lifecycle: its
 * {@code onStart} reads {@code greeting} (required) and {@code marker.dir} from the configuration,
 * the system property {@code cryo.test.flavour} (a worker JVM option), and writes
 * {@code MARKER_DIR/started-WORKER}; its {@code onStop} writes {@code MARKER_DIR/stopped-WORKER}.
 * With {@code fail.start=yes} its {@code onStart} throws. Route: {@code GET /api/config} →
 * {@code {"greeting", "flavour", "worker", "starts"}}. Thread-safe.
 */
public final class ConfiguredApplication implements CryoApplication {

  /** What onStart throws when the configuration asks for it, for the tests to find. */
  static final String FAILURE = "the configuration asked onStart to fail";

  private volatile String greeting;
  private volatile String flavour;
  private volatile Path markers;
  private volatile String worker;
  private final java.util.concurrent.atomic.AtomicInteger starts =
      new java.util.concurrent.atomic.AtomicInteger();

  /** Makes the application. */
  public ConfiguredApplication() {}

  @Override
  public void routes(Routes routes) {
    routes.get("/api/config", call -> {
      Map<String, Object> out = new LinkedHashMap<>();
      out.put("greeting", greeting);
      out.put("flavour", flavour);
      out.put("worker", worker);
      out.put("starts", starts.get());
      return out;
    });
  }

  @Override
  public void onStart(AppContext context) throws Exception {
    starts.incrementAndGet();
    if ("yes".equals(context.config("fail.start").orElse("no"))) {
      throw new IllegalStateException(FAILURE);
    }
    greeting = context.require("greeting");
    flavour = System.getProperty("cryo.test.flavour", "none");
    worker = context.worker();
    markers = Path.of(context.require("marker.dir"));
    Files.writeString(markers.resolve("started-" + worker), greeting);
  }

  @Override
  public void onStop() throws Exception {
    Files.writeString(markers.resolve("stopped-" + worker), greeting);
  }
}
