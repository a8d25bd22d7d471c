package dev.cryo.worker;

import static dev.cryo.worker.AppHostTest.http;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.cryo.app.CryoApplication;
import dev.cryo.app.Response;
import dev.cryo.app.Routes;
import dev.cryo.app.StateKey;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A refusal of the worker met during a call (the user left under it) is the runtime's, never the
 * application's to answer: an after filter that answers every failure otherwise does not turn it
 * into its reply; the call is refused for the commander to route again.
 */
class FilterRefusalTest {

  /** What the handler runs before it reads state: set by the test. */
  static final AtomicReference<Runnable> MEANWHILE = new AtomicReference<>(() -> {});

  /** Maps every failure to a 400, as an over-eager error filter would. */
  public static final class Eager implements CryoApplication {
    @StateKey("Count")
    public record Count(long n) {}

    @Override
    public void routes(Routes routes) {
      routes.post("/count", call -> {
        MEANWHILE.get().run();
        return call.user(Count.class).get();
      });
      routes.after((call, response, failure) -> failure == null ? response
          : Response.json(400, Map.of("error", "mapped")));
    }
  }

  @TempDir Path temp;
  Harness harness;

  @BeforeEach
  void setUp() throws Exception {
    harness = new Harness(temp);
  }

  @AfterEach
  void tearDown() {
    MEANWHILE.set(() -> {});
    harness.close();
  }

  @Test
  void aUserWhoLeftUnderTheCallIsRefusedNotAnsweredByTheFilter() {
    Worker worker = harness.worker("w1", Eager.class);
    assertThat(AppHostTest.serve(worker, http(null, "c1", "POST", "/count", null)).status())
        .isEqualTo(200);
    MEANWHILE.set(() -> {
      Thread dropper = Thread.ofPlatform().start(() -> worker.dropUser("guest_c1"));
      try {
        dropper.join();
      } catch (InterruptedException e) {
        throw new AssertionError(e);
      }
    });

    assertThatThrownBy(() -> AppHostTest.serve(worker, http(null, "c1", "POST", "/count", null)))
        .isInstanceOfSatisfying(WorkerException.class,
            refusal -> assertThat(refusal.isRetryable()).as(refusal.getMessage()).isTrue());
  }
}
