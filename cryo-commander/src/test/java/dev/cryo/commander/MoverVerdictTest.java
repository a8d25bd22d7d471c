package dev.cryo.commander;

import static dev.cryo.commander.FakeWorkers.config;
import static dev.cryo.commander.FakeWorkers.eventually;
import static dev.cryo.commander.FakeWorkers.events;
import static dev.cryo.commander.FakeWorkers.get;
import static dev.cryo.commander.FakeWorkers.inside;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Across processes (fake worker JVMs, the real freezer): the verdict of a move comes from the fold
 * that released its hold, not from where the maps say the user is once the freeze's reply comes.
 * A request that waited on the move's hold wakes him on the destination between the fold of his
 * {@code user_frozen} and that reply (the fake worker holds the reply back on a gate of files, as a
 * loaded machine may hold back the mover's thread): the move was done, and says so once.
 */
@Timeout(180)
class MoverVerdictTest {

  @TempDir
  Path home;

  @TempDir
  Path gate;

  @Test
  void aMoveWhoseUserWokeOnItsDestinationBeforeTheFreezeReplyCameIsDone() throws Exception {
    List<LogRecord> errors = new CopyOnWriteArrayList<>();
    Logger moverLog = Logger.getLogger(Mover.class.getName());
    Handler handler = new Handler() {
      @Override
      public void publish(LogRecord record) {
        if (record.getLevel().intValue() >= Level.SEVERE.intValue()) {
          errors.add(record);
        }
      }

      @Override
      public void flush() {
      }

      @Override
      public void close() {
      }
    };
    moverLog.addHandler(handler);
    Path before = gate.resolve("before");
    Path after = gate.resolve("after");
    try (Commander commander = Commander.start(config(home, "-Dcryo.fake.freezeGate=" + gate)
        .workers(2).hold(Duration.ofSeconds(120)).orderTimeout(Duration.ofSeconds(120)).build())) {
      assertThat(eventually(Duration.ofSeconds(60), () -> running(commander) == 2)).isTrue();
      String first = commander.serve(get("c1", "/counter")).bodyText();
      assertThat(first).startsWith("user=guest_c1 counter=1 worker=");
      String from = first.replaceAll(".*worker=", "").strip();
      String to = commander.status().workers().stream().map(Status.WorkerStatus::name)
          .filter(name -> !name.equals(from)).findFirst().orElseThrow();

      Files.createFile(before);
      Files.createFile(after);
      CompletableFuture<MoveOutcome> move = CompletableFuture.supplyAsync(
          () -> commander.move("guest_c1"));
      assertThat(eventually(Duration.ofSeconds(60), () -> Files.exists(gate.resolve("ordered"))))
          .as("the freeze order reached " + from).isTrue();
      assertThat(commander.status().usersHeld()).isEqualTo(1); // the move's hold, bound for `to`

      // A request of his comes, and waits on the move's hold.
      CompletableFuture<Reply> waiting = new CompletableFuture<>();
      Thread waiter = Thread.ofPlatform().name("waiting-request").start(
          () -> waiting.complete(commander.serve(get("c1", "/counter"))));
      assertThat(eventually(Duration.ofSeconds(60), () -> inside(waiter, "Hold.awaitRelease")))
          .isTrue();

      // His worker freezes him and announces it; the fold releases the hold, and the waiting
      // request wakes him on the destination. The reply to the freeze order is held back.
      Files.delete(before);
      Reply woken = waiting.get(60, TimeUnit.SECONDS);
      assertThat(woken.bodyText()).isEqualTo("user=guest_c1 counter=2 worker=" + to);
      assertThat(move).isNotDone();

      // Only now does the reply come: the move is done, from `from` to `to`.
      Files.delete(after);
      MoveOutcome outcome = move.get(60, TimeUnit.SECONDS);
      assertThat(outcome.moved()).as(outcome.message()).isTrue();
      assertThat(outcome.from()).isEqualTo(from);
      assertThat(outcome.to()).isEqualTo(to);

      List<JsonNode> moves = events(commander, "move");
      assertThat(moves).as("the move's events").hasSize(1);
      assertThat(moves.get(0).path("user").asText()).isEqualTo("guest_c1");
      assertThat(moves.get(0).path("from").asText()).isEqualTo(from);
      assertThat(moves.get(0).path("to").asText()).isEqualTo(to);
      assertThat(moves.get(0).path("refused").isNull()).isTrue();
      assertThat(events(commander, "anomaly")).isEmpty();
      assertThat(errors).extracting(LogRecord::getMessage).isEmpty();
      assertThat(commander.serve(get("c1", "/counter")).bodyText())
          .isEqualTo("user=guest_c1 counter=3 worker=" + to);
    } finally {
      moverLog.removeHandler(handler);
      Files.deleteIfExists(before);
      Files.deleteIfExists(after);
    }
  }

  private static long running(Commander commander) {
    return commander.status().workers().stream()
        .filter(w -> w.state() == WorkerState.RUNNING).count();
  }
}
