package dev.cryo.commander;

import dev.cryo.app.CryoApplication;
import dev.cryo.app.Routes;
import dev.cryo.demo.DemoApplication;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The demo with ballast, for the occupancy check's tests: {@code POST /api/ballast
 * {"share": 0.97}} fills the worker's heap with byte arrays the worker keeps (in this class, not in
 * any user's state: a new worker starts without it) until its live heap, measured after a
 * collection, is at least that share of the ceiling, and answers {@code {"used", "max",
 * "worker"}}. Every other route is the demo's.
 */
public final class BallastApplication implements CryoApplication {

  /**
   * A chunk of ballast: with 1 MiB regions ({@code -XX:G1HeapRegionSize=1m}), one humongous
   * object a region, allocated in the old generation and never copied by a young collection, so a
   * worker full of ballast stays responsive.
   */
  private static final int CHUNK = 1024 * 1024 - 64;
  private static final List<byte[]> BALLAST = new ArrayList<>(); // guarded by BALLAST

  private final DemoApplication demo = new DemoApplication();

  /** The body of {@code POST /api/ballast}. */
  record Share(double share) {}

  @Override
  public void routes(Routes routes) {
    demo.routes(routes);
    routes.post("/api/ballast", Share.class, (call, body) -> {
      Runtime runtime = Runtime.getRuntime();
      long target = (long) (body.share() * runtime.maxMemory());
      synchronized (BALLAST) {
        try {
          while (true) {
            while (used(runtime) < target) {
              BALLAST.add(new byte[CHUNK]);
            }
            System.gc(); // what is live, not what waits for a collection
            if (used(runtime) >= target) {
              break;
            }
          }
        } catch (OutOfMemoryError e) {
          BALLAST.remove(BALLAST.size() - 1); // as full as it gets
        }
      }
      Map<String, Object> answer = new LinkedHashMap<>();
      answer.put("used", used(runtime));
      answer.put("max", runtime.maxMemory());
      answer.put("worker", call.worker());
      return answer;
    });
  }

  private static long used(Runtime runtime) {
    return runtime.totalMemory() - runtime.freeMemory();
  }
}
