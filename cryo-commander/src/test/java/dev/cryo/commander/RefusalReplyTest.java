package dev.cryo.commander;

import static dev.cryo.commander.FakeWorkers.config;
import static dev.cryo.commander.FakeWorkers.eventually;
import static org.assertj.core.api.Assertions.assertThat;

import dev.cryo.wire.protocol.RefusalReason;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The commander reads a worker's refusal in the protocol's one vocabulary: a reason it may not
 * route again is answered at once with the reason's status; one it may is routed again until the
 * hold runs out, then answered 503. A real commander over a fake worker JVM that refuses every
 * call with one code.
 */
@Timeout(120)
class RefusalReplyTest {

  private static final Duration HOLD = Duration.ofMillis(1500);

  @TempDir
  Path home;

  @ParameterizedTest
  @EnumSource(value = RefusalReason.class, names = {"UNREADABLE_PARCEL", "FREEZER_FAILED",
      "APPLICATION_FAILED", "STALE_GRANT", "ROW_BUSY"})
  void aRefusalIsAnsweredWithItsReasonsStatusAtOnceOrWhenTheHoldRunsOut(RefusalReason reason)
      throws Exception {
    try (Commander commander = Commander.start(config(home, "-Dcryo.fake.refuse=" + reason.code())
        .workers(1).hold(HOLD).build())) {
      assertThat(eventually(Duration.ofSeconds(60), () -> commander.status().workers().stream()
          .anyMatch(w -> w.state() == WorkerState.RUNNING))).isTrue();

      long began = System.nanoTime();
      Reply reply = commander.serve(FakeWorkers.post("c1", "/api/counter"));
      Duration took = Duration.ofNanos(System.nanoTime() - began);

      assertThat(reply.status()).as(new String(reply.body(), StandardCharsets.UTF_8))
          .isEqualTo(reason.status());
      if (reason.isRetryable()) {
        assertThat(took).as("routed again until the hold ran out").isGreaterThanOrEqualTo(HOLD);
      } else {
        assertThat(took).as("answered at once, not held").isLessThan(HOLD);
      }
      if (reason == RefusalReason.UNREADABLE_PARCEL) {
        assertThat(reply.headers()).anySatisfy(header -> {
          assertThat(header.getKey()).isEqualTo("Cryo-Reason");
          assertThat(header.getValue()).isEqualTo("unreadable_parcel");
        });
      }
    }
  }
}
