package dev.cryo.worker;

import static dev.cryo.worker.Harness.increment;
import static org.assertj.core.api.Assertions.assertThat;

import dev.cryo.freezer.CborCodec;
import dev.cryo.freezer.Freezer;
import dev.cryo.freezer.ParcelCodec;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A quit runs several of its departures at once ({@link Worker.Builder#quitDeparturesAtOnce}),
 * never more than allowed, each into the quit's root; a transfer plan's leave one at a time. The
 * concurrency is observed in the codec: each user parcel's encode waits (bounded) for a second one
 * to be encoding beside it, and the most encodes seen at once is counted.
 */
class QuitDeparturesAtOnceTest {

  private static final int USERS = 8;

  @TempDir Path temp;
  private Harness harness;
  private ExecutorService disk;
  private MeetingCodec codec;
  private Freezer into;

  @BeforeEach
  void setUp() throws Exception {
    harness = new Harness(temp);
    disk = Executors.newFixedThreadPool(4); // more threads than the quit may use
    codec = new MeetingCodec();
    into = new Freezer(temp.resolve("reboot-temp"), codec);
  }

  @AfterEach
  void tearDown() throws Exception {
    harness.close();
    disk.shutdown();
    assertThat(disk.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
  }

  private Worker worker(String name, int atOnce) {
    Worker worker = harness.builder(name).diskExecutor(disk).quitDeparturesAtOnce(atOnce).build();
    harness.workers.add(worker);
    for (int i = 0; i < USERS; i++) {
      Harness.call(worker, increment("u" + i, "c" + i, "p" + i, "page"));
      Harness.call(worker, increment("u" + i, "c" + i + "b", "p" + i + "b", "user"));
    }
    return worker;
  }

  @Test
  void aQuitFreezesTwoUsersAtOnceWhenAllowedTwoAndNeverThree() throws Exception {
    Worker worker = worker("w-two", 2);
    codec.meet(2);

    CompletableFuture<QuitReport> report = worker.quit(into, Duration.ZERO, Duration.ofSeconds(5));
    harness.await("the quit's report", report::isDone);

    assertThat(report.join().frozen()).isEqualTo(USERS);
    assertThat(report.join().failed()).isZero();
    assertThat(codec.most.get()).as("user parcels encoded at once").isEqualTo(2);
    assertThat(codec.missed.get()).as("encodes that waited in vain for a second one").isZero();
    assertThat(into.folderKeys()).hasSize(USERS);
    assertThat(harness.freezer.folderKeys()).as("the worker's own freezer").isEmpty();
    assertThat(harness.told("w-two").stream().filter(t -> t.startsWith("user_frozen:")))
        .hasSize(USERS);
  }

  @Test
  void aQuitAllowedOneFreezesOneUserAtATime() throws Exception {
    Worker worker = worker("w-one", 1);
    codec.meet(2); // waits once in vain, then no more

    CompletableFuture<QuitReport> report = worker.quit(into, Duration.ZERO, Duration.ofSeconds(5));
    harness.await("the quit's report", report::isDone);

    assertThat(report.join().frozen()).isEqualTo(USERS);
    assertThat(codec.most.get()).isEqualTo(1);
  }

  @Test
  void aTransferPlansUsersLeaveOneAtATimeWhateverTheQuitAllows() throws Exception {
    Worker worker = Worker.builder("w-plan", into).group("g").application(new AppHost(new StoreApplication()))
        .schedule(harness.schedule).diskExecutor(disk).transferStartDelay(Duration.ZERO)
        .quitDeparturesAtOnce(4).build();
    harness.workers.add(worker);
    Map<String, TransferFlag> plan = new java.util.LinkedHashMap<>();
    for (int i = 0; i < 4; i++) {
      Harness.call(worker, increment("u" + i, "c" + i, "p" + i, "page"));
      plan.put("u" + i, TransferFlag.TRANSFER);
    }
    codec.meet(2);

    worker.planTransfers(plan);
    harness.await("every planned user gone", () -> worker.registry().userItems().keys().isEmpty());

    assertThat(codec.most.get()).isEqualTo(1);
  }

  /**
   * The default codec; once {@link #meet} was called, a user parcel's encode waits up to
   * {@link #PATIENCE} until {@code expected} encodes have run at once (once that happened, nobody
   * waits again). The first wait in vain ends the waiting too (counted in {@link #missed}), so a
   * loop that runs one at a time still ends.
   */
  static final class MeetingCodec implements ParcelCodec {
    static final long PATIENCE = TimeUnit.SECONDS.toNanos(2);
    private final CborCodec codec = new CborCodec();
    private final Object monitor = new Object();
    private int running; // guarded by monitor
    private int expected; // guarded by monitor; 0: no waiting
    final AtomicInteger most = new AtomicInteger();
    final AtomicInteger missed = new AtomicInteger();

    void meet(int count) {
      synchronized (monitor) {
        expected = count;
      }
    }

    @Override
    public String name() {
      return codec.name();
    }

    @Override
    public byte[] encode(Object payload) {
      boolean user = payload instanceof Map<?, ?> map && "user".equals(map.get("parcel"));
      if (!user) {
        return codec.encode(payload);
      }
      synchronized (monitor) {
        running++;
        most.accumulateAndGet(running, Math::max);
        monitor.notifyAll();
        long deadline = System.nanoTime() + PATIENCE;
        while (expected > 0 && most.get() < expected) {
          long left = deadline - System.nanoTime();
          if (left <= 0) {
            missed.incrementAndGet();
            expected = 0; // never wait again
            break;
          }
          try {
            TimeUnit.NANOSECONDS.timedWait(monitor, left);
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            break;
          }
        }
      }
      try {
        // a little while encoding beside the other, so that a third, were it let in, would show
        parkQuietly(TimeUnit.MILLISECONDS.toNanos(20));
        return codec.encode(payload);
      } finally {
        synchronized (monitor) {
          running--;
        }
      }
    }

    @Override
    public Object decode(byte[] bytes) throws IOException {
      return codec.decode(bytes);
    }

    private static void parkQuietly(long nanos) {
      java.util.concurrent.locks.LockSupport.parkNanos(nanos);
    }
  }
}
