package dev.cryo.commander;

import static dev.cryo.commander.FakeWorkers.config;
import static dev.cryo.commander.FakeWorkers.eventually;
import static dev.cryo.commander.FakeWorkers.get;
import static org.assertj.core.api.Assertions.assertThat;

import dev.cryo.wire.WireLimits;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Across processes, with real signals (issue 21's finding 6): a request whose call the wire refused
 * to send — {@code too_many_pending}, every slot of the worker's wire taken by calls waiting for
 * their replies — is routed again within its hold, invisibly to the browser, instead of answered
 * 503 at once. The worker is stopped ({@code SIGSTOP}) so that no reply comes back while more
 * requests than the wire carries arrive; once it goes on, every one of them is served.
 */
@Timeout(180)
class TooManyPendingTest {

  @TempDir
  Path home;

  @Test
  void aCallTheWireRefusedToSendIsRoutedAgainWithinTheHold() throws Exception {
    // A slow heartbeat: the supervisor must not kill the stopped worker before the test goes on.
    try (Commander commander = Commander.start(config(home).workers(1)
        .heartbeat(Duration.ofSeconds(60)).hold(Duration.ofSeconds(90)).build())) {
      assertThat(eventually(Duration.ofSeconds(60), () -> commander.status().workers().stream()
          .anyMatch(w -> w.state() == WorkerState.RUNNING))).isTrue();
      assertThat(commander.serve(get("warm", "/counter")).status()).isEqualTo(200);
      long pid = commander.status().workers().get(0).pid();
      int requests = WireLimits.DEFAULT_MAX_PENDING_CALLS + 20;
      List<Thread> threads = new ArrayList<>();
      List<CompletableFuture<Reply>> replies = new ArrayList<>();
      FakeWorkers.signal("STOP", pid);
      try {
        for (int i = 0; i < requests; i++) {
          CompletableFuture<Reply> reply = new CompletableFuture<>();
          Request request = get("c" + i, "/counter");
          Thread thread = Thread.ofPlatform().daemon().start(() -> {
            try {
              reply.complete(commander.serve(request));
            } catch (Throwable e) {
              reply.completeExceptionally(e);
            }
          });
          threads.add(thread);
          replies.add(reply);
        }
        // Some requests found every slot taken: nothing sent, they wait to be routed again.
        assertThat(eventually(Duration.ofSeconds(60), () -> threads.stream()
            .filter(thread -> FakeWorkers.inside(thread, "Dispatcher.pause")).count() >= 10))
            .isTrue();
        assertThat(replies).noneMatch(CompletableFuture::isDone);
      } finally {
        FakeWorkers.signal("CONT", pid);
      }
      for (CompletableFuture<Reply> reply : replies) {
        Reply served = reply.get(90, TimeUnit.SECONDS);
        assertThat(served.status()).as(served.bodyText()).isEqualTo(200);
        assertThat(served.bodyText()).contains("counter=1");
      }
    }
  }
}
