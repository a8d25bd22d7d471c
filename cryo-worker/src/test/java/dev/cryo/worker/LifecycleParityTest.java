package dev.cryo.worker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.cryo.app.AppContext;
import dev.cryo.app.CryoApplication;
import dev.cryo.app.CryoTestKit;
import dev.cryo.app.Routes;
import dev.cryo.wire.protocol.AppMeter;
import io.micrometer.core.instrument.Counter;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * {@code onStart} in the test kit and in the runtime's application host: one configuration gives
 * one start, a throw fails both with the same cause, and the meters it makes are read from the
 * host's registry for the photo.
 */
class LifecycleParityTest {

  /** Fails its start when the configuration says so; counts its starts in a meter. */
  public static final class Starter implements CryoApplication {
    @Override
    public void routes(Routes routes) {
      routes.get("/x", call -> Map.of());
    }

    @Override
    public void onStart(AppContext context) {
      if (context.config().containsKey("fail")) {
        throw new IllegalStateException("asked to fail: " + context.require("fail"));
      }
      Counter.builder("starts").tag("worker_seen", context.worker()).register(context.meters())
          .increment();
    }
  }

  @Test
  void aThrowingOnStartFailsTheKitAndTheHostWithTheSameCause() {
    Map<String, String> config = Map.of("fail", "no database");

    assertThatThrownBy(() -> CryoTestKit.of(Starter::new, config))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("asked to fail: no database")
        .hasRootCauseMessage("asked to fail: no database");
    AppHost host = AppHost.load(Starter.class.getName(), null);
    assertThatThrownBy(() -> host.start("w1", config))
        .isInstanceOfSatisfying(AppHost.LoadException.class, e -> assertThat(e.reason())
            .isEqualTo(AppHost.LoadException.Reason.START_FAILED))
        .hasMessageContaining("asked to fail: no database")
        .hasRootCauseMessage("asked to fail: no database");
  }

  @Test
  void theMetersOnStartMadeAreReadForThePhoto() {
    AppHost host = AppHost.load(Starter.class.getName(), null);
    host.start("w1", Map.of());

    List<AppMeter> meters = host.appMeters();

    assertThat(meters).containsExactly(new AppMeter("starts", AppMeter.COUNTER,
        Map.of("worker_seen", "w1"), 1.0, 0, 0, null, null));
  }
}
