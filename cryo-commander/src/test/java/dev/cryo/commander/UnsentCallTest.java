package dev.cryo.commander;

import static dev.cryo.commander.FakeWorkers.config;
import static dev.cryo.commander.FakeWorkers.eventually;
import static dev.cryo.commander.FakeWorkers.get;
import static dev.cryo.commander.FakeWorkers.kill9;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Across processes, with real signals: a call whose frame never left the commander when its
 * worker's wire ended is routed again within the user's hold (it did nothing on the worker), while
 * a call whose frame was written stays an honest 502 saying the worker may have acted.
 *
 * <p>How a call is kept from being sent: the worker is stopped ({@code SIGSTOP}), so it reads
 * nothing; a call with a body larger than the socket's buffers fills them and its writer blocks
 * inside the frame holding the wire's write lock; a second call then waits for that lock with
 * nothing of it written. {@code kill -9} of the worker ends the wire under both.
 */
@Timeout(180)
class UnsentCallTest {

  @TempDir
  Path home;

  @Test
  void aCallNeverSentWhenItsWorkerDiesIsServedElsewhereAndASentOneIs502() throws Exception {
    // A slow heartbeat: the supervisor must not kill the stopped worker before the test does.
    try (Commander commander = Commander.start(config(home).workers(2)
        .heartbeat(Duration.ofSeconds(30)).hold(Duration.ofSeconds(60)).build())) {
      assertThat(eventually(Duration.ofSeconds(60), () -> running(commander) == 2)).isTrue();
      String reception = commander.serve(get("c1", "/counter")).bodyText();
      String where = reception.substring(reception.indexOf("worker="));
      assertThat(commander.serve(get("c2", "/counter")).bodyText())
          .isEqualTo("user=guest_c2 counter=1 " + where);
      Status.WorkerStatus worker = commander.status().workers().stream()
          .filter(Status.WorkerStatus::reception).findFirst().orElseThrow();
      assertThat(reception).endsWith("worker=" + worker.name());
      signal("STOP", worker.pid());
      try {
        byte[] big = new byte[4 << 20]; // far past the socket's buffers: its writer blocks
        Arrays.fill(big, (byte) 'x');
        CompletableFuture<Reply> sent = serveOnThread(commander,
            new Request("c1", "POST", "/counter", "", List.of(), big));
        assertThat(eventually(Duration.ofSeconds(60), () -> inside(sent, "ChannelIo.writeFully")))
            .isTrue();
        CompletableFuture<Reply> unsent = serveOnThread(commander, get("c2", "/counter"));
        assertThat(eventually(Duration.ofSeconds(60), () -> inside(unsent, "Wire.write")
            && !inside(unsent, "ChannelIo.writeFully"))).isTrue(); // waits for the write lock

        kill9(worker.pid());

        Reply served = unsent.get(60, TimeUnit.SECONDS);
        assertThat(served.status()).as(served.bodyText()).isEqualTo(200);
        // His worker died with him awake: he is lost, and served again as a new guest elsewhere.
        assertThat(served.bodyText()).startsWith("user=guest_c2 counter=1 worker=")
            .doesNotEndWith("worker=" + worker.name());
        Reply lost = sent.get(60, TimeUnit.SECONDS);
        assertThat(lost.status()).isEqualTo(502);
        assertThat(lost.bodyText()).contains("died").contains("may have");
      } finally {
        signal("CONT", worker.pid()); // a no-op once it is dead
      }
    }
  }

  private final java.util.Map<CompletableFuture<Reply>, Thread> threads =
      new java.util.concurrent.ConcurrentHashMap<>();

  private CompletableFuture<Reply> serveOnThread(Commander commander, Request request) {
    CompletableFuture<Reply> reply = new CompletableFuture<>();
    Thread thread = Thread.ofPlatform().daemon().unstarted(() -> {
      try {
        reply.complete(commander.serve(request));
      } catch (Throwable e) {
        reply.completeExceptionally(e);
      }
    });
    threads.put(reply, thread);
    thread.start();
    return reply;
  }

  /** Whether the thread serving {@code reply} is, right now, inside a frame of {@code frame}. */
  private boolean inside(CompletableFuture<Reply> reply, String frame) {
    return FakeWorkers.inside(threads.get(reply), frame);
  }

  private static void signal(String signal, long pid) throws Exception {
    FakeWorkers.signal(signal, pid);
  }

  private static long running(Commander commander) {
    return commander.status().workers().stream()
        .filter(w -> w.state() == WorkerState.RUNNING).count();
  }
}
