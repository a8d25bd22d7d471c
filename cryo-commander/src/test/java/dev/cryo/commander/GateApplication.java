package dev.cryo.commander;

import dev.cryo.app.CryoApplication;
import dev.cryo.app.Routes;
import dev.cryo.demo.DemoApplication;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * The demo with a gate, for tests that need a call in flight across processes: {@code POST
 * /api/gate {"file": "/abs/path"}} creates {@code /abs/path.entered} (the call is in flight), then
 * answers only once that file no longer exists (looked at every 10 ms, for at most a minute), with
 * {@code {"worker"}}; it changes no state. Every other route is
 * the demo's.
 */
public final class GateApplication implements CryoApplication {

  private final DemoApplication demo = new DemoApplication();

  /** The body of {@code POST /api/gate}. */
  record Gate(String file) {}

  @Override
  public void routes(Routes routes) {
    demo.routes(routes);
    routes.post("/api/gate", Gate.class, (call, body) -> {
      Path file = Path.of(body.file());
      try {
        Files.createFile(Path.of(body.file() + ".entered"));
      } catch (java.io.IOException e) {
        throw new java.io.UncheckedIOException(e);
      }
      long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(1);
      while (Files.exists(file) && System.nanoTime() < deadline) {
        LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(10)); // a poll of another process's file
      }
      return Map.of("worker", call.worker());
    });
  }
}
