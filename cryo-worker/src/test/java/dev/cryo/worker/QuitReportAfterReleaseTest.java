package dev.cryo.worker;

import static dev.cryo.worker.Harness.increment;
import static org.assertj.core.api.Assertions.assertThat;

import dev.cryo.freezer.CborCodec;
import dev.cryo.freezer.Freezer;
import dev.cryo.freezer.ParcelCodec;
import dev.cryo.lock.LockException;
import dev.cryo.wire.protocol.AnnouncementKind;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A quit's report comes only after every semaphore its departures took was given back: a user
 * leaves the worker's map inside his freeze, before his semaphore's release, and a drain renames the
 * root as soon as the reports are in. The window is held open on purpose: x's freeze is stopped in
 * the announcement listener (he has left the map, his semaphore is still held) while y's departure
 * fails, and the end check that failure runs must not end the quit.
 */
class QuitReportAfterReleaseTest {

  /** How long x's listener waits for the quit to end while it is stopped; the quit must not. */
  private static final long HOLD_NANOS = TimeUnit.MILLISECONDS.toNanos(1_500);

  @TempDir Path temp;
  private Harness harness;

  @BeforeEach
  void setUp() throws Exception {
    harness = new Harness(temp);
  }

  @AfterEach
  void tearDown() {
    harness.close();
  }

  @Test
  void theReportWaitsForTheLastSemaphoreToBeGivenBack() throws Exception {
    CountDownLatch xStopped = new CountDownLatch(1);
    AtomicReference<Worker> self = new AtomicReference<>();
    Freezer into = new Freezer(temp.resolve("reboot-temp"), new FailingForY(xStopped));
    Worker worker = harness.builder("w").quitDeparturesAtOnce(2).listener(announcement -> {
      if (announcement.kind() == AnnouncementKind.USER_FROZEN
          && announcement.user().equals("x")) {
        xStopped.countDown(); // x has left the map; his semaphore is held until this returns
        long deadline = System.nanoTime() + HOLD_NANOS;
        while (!self.get().isFinished() && System.nanoTime() < deadline) {
          LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
        }
      }
    }).build();
    self.set(worker);
    harness.workers.add(worker);
    Harness.call(worker, increment("x", "cx", "px", "user"));
    Harness.call(worker, increment("y", "cy", "py", "user"));

    CompletableFuture<QuitReport> report = worker.quit(into, Duration.ZERO, Duration.ofSeconds(5));
    AtomicReference<String> heldAtReport = new AtomicReference<>();
    CompletableFuture<Void> seen = report.thenRun(() -> heldAtReport.set(holders(into)));
    harness.await("the quit's report", seen::isDone);

    assertThat(report.join().frozen()).isEqualTo(1);
    assertThat(report.join().failed()).as("y's planted failure").isEqualTo(1);
    assertThat(heldAtReport.get()).as("semaphores held when the report came").isEmpty();
  }

  /** The users whose semaphore in {@code into} is held, as "x y". */
  private static String holders(Freezer into) {
    StringBuilder held = new StringBuilder();
    for (String user : new String[] {"x", "y"}) {
      try {
        if (into.semaphoreHolder(user).isPresent()) {
          held.append(held.isEmpty() ? "" : " ").append(user);
        }
      } catch (LockException e) {
        held.append(" unreadable:").append(user);
      }
    }
    return held.toString();
  }

  /** CBOR, but y's user parcel waits until x is stopped, then fails. */
  private static final class FailingForY implements ParcelCodec {
    private final CborCodec codec = new CborCodec();
    private final CountDownLatch xStopped;

    FailingForY(CountDownLatch xStopped) {
      this.xStopped = xStopped;
    }

    @Override
    public String name() {
      return codec.name();
    }

    @Override
    public byte[] encode(Object payload) {
      if (payload instanceof Map<?, ?> map && "user".equals(map.get("parcel"))
          && "y".equals(map.get("id"))) {
        try {
          xStopped.await(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
        throw new IllegalStateException("planted: y's parcel cannot be encoded");
      }
      return codec.encode(payload);
    }

    @Override
    public Object decode(byte[] bytes) throws IOException {
      return codec.decode(bytes);
    }
  }
}
