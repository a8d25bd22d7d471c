package dev.cryo.commander;

import static dev.cryo.commander.FakeWorkers.config;
import static dev.cryo.commander.FakeWorkers.eventually;
import static dev.cryo.commander.FakeWorkers.get;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A frozen user whose state the worker bound for his wake cannot read is answered by that worker's
 * application host (a 503 naming {@code Cryo-Reason: unreadable_parcel}); the commander passes the
 * reply on and forgets that worker as his destination, so that any worker — one running a version
 * that reads him — may try next, as it did when the worker refused the call.
 */
@Timeout(120)
class UnreadableReplyTest {

  @TempDir
  Path home;

  @Test
  void theUnreadableReplyIsPassedOnAndTheFrozenUserIsUnbound() throws Exception {
    try (Commander commander = Commander.start(config(home, "-Dcryo.fake.unreadable=true")
        .workers(2).build())) {
      assertThat(eventually(Duration.ofSeconds(60), () -> commander.status().workers().stream()
          .filter(w -> w.state() == WorkerState.RUNNING).count() == 2)).isTrue();
      assertThat(commander.serve(get("c1", "/counter")).status()).isEqualTo(200);
      assertThat(commander.move("guest_c1").moved()).isTrue(); // frozen, bound for the other
      assertThat(commander.routing().locate("guest_c1"))
          .isInstanceOfSatisfying(Location.Frozen.class,
              frozen -> assertThat(frozen.destination()).isNotNull());

      Reply reply = commander.serve(get("c1", "/counter"));

      assertThat(reply.status()).isEqualTo(503);
      assertThat(reply.headers()).anySatisfy(header -> {
        assertThat(header.getKey()).isEqualTo("Cryo-Reason");
        assertThat(header.getValue()).isEqualTo("unreadable_parcel");
      });
      assertThat(commander.routing().locate("guest_c1"))
          .isInstanceOfSatisfying(Location.Frozen.class,
              frozen -> assertThat(frozen.destination()).as("unbound").isNull());
    }
  }
}
