package dev.cryo.worker;

import static dev.cryo.worker.Harness.increment;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The photo: what it tells, and that it never shows a user half changed. */
class PhotoTest {

  @TempDir Path temp;
  Harness harness;

  @BeforeEach
  void setUp() throws Exception {
    harness = new Harness(temp);
  }

  @AfterEach
  void tearDown() {
    harness.close();
  }

  @Test
  void thePhotoTellsWhoTheWorkerIsAndEveryUsersCountsClocksAndCalls() {
    Worker worker = harness.worker("w1");
    Harness.call(worker, increment("anna", "c1", "p1", "page"));
    Harness.call(worker, increment("anna", "c1", "p2", "page"));
    Harness.call(worker, increment("bob", "c2", "p3", "page"));
    RequestSlot open = worker.openRequest(increment("bob", "c2", "p3", "page").arrival());

    Photo photo = worker.photo();
    assertThat(photo.pid()).isEqualTo(ProcessHandle.current().pid());
    assertThat(photo.name()).isEqualTo("w1");
    assertThat(photo.group()).isEqualTo("g");
    assertThat(photo.heapUsedBytes()).isPositive();
    assertThat(photo.residentBytes()).isNotZero();
    assertThat(photo.takenAt()).isEqualTo(harness.schedule.now());
    assertThat(photo.userCount()).isEqualTo(2);
    assertThat(photo.connectionCount()).isEqualTo(2);
    assertThat(photo.pageCount()).isEqualTo(3);
    assertThat(photo.pendingCallCount()).isEqualTo(1);
    assertThat(photo.servedCallCount()).isEqualTo(3);
    Photo.UserPhoto anna = photo.users().get("anna");
    assertThat(anna.state()).isEqualTo(UserState.ACTIVE);
    assertThat(anna.connections()).isEqualTo(Map.of("c1", 2));
    assertThat(anna.servedCalls()).isEqualTo(2);
    assertThat(anna.pendingCalls()).isZero();
    assertThat(anna.lastRefresh()).isEqualTo(harness.schedule.now());
    assertThat(anna.lastRpc()).isEqualTo(harness.schedule.now());
    assertThat(anna.lastUser()).isEqualTo(harness.schedule.now());
    assertThat(anna.transferFlag()).isNull();
    assertThat(photo.users().get("bob").pendingCalls()).isEqualTo(1);
    open.close();
    assertThat(worker.photo().servedCallCount()).isEqualTo(4);
  }

  /** A registry that can stop a rebuild in the middle, after the birth of one page. */
  static final class PausingRegistry extends dev.cryo.register.RegisterRegistry {
    volatile String pauseAfter;
    final java.util.concurrent.CountDownLatch paused = new java.util.concurrent.CountDownLatch(1);
    final java.util.concurrent.CountDownLatch resume = new java.util.concurrent.CountDownLatch(1);

    PausingRegistry(java.time.Clock clock) {
      super(clock);
    }

    @Override
    protected void subscribePageStore(dev.cryo.register.PageRow page) {
      if (page.pageId().equals(pauseAfter)) {
        paused.countDown();
        try {
          resume.await();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }
    }
  }

  @Test
  void aPhotoTakenInTheMiddleOfAWakeShowsTheUserWhole() throws Exception {
    Worker first = harness.worker("w1");
    PausingRegistry registry = new PausingRegistry(harness.schedule.clock());
    Worker second = harness.builder("w2").registry(registry).build();
    harness.workers.add(second);
    Harness.call(first, increment("anna", "c0", "p0", "page"));
    Harness.call(first, increment("anna", "c0", "p1", "page"));
    Harness.call(first, increment("anna", "c1", "p2", "page"));
    first.freezeUser("anna").join();
    registry.pauseAfter = "p1"; // c0 and its two pages rebuilt, c1 not yet

    ExecutorService threads = Executors.newFixedThreadPool(2);
    try {
      Future<Object> wake = threads.submit(
          () -> Harness.call(second, increment("anna", "c0", "p0", "page").withUserFrozen()));
      assertThat(registry.paused.await(10, TimeUnit.SECONDS)).isTrue();
      List<Thread> photographer = new java.util.concurrent.CopyOnWriteArrayList<>();
      Future<Photo> photo = threads.submit(() -> {
        photographer.add(Thread.currentThread());
        return second.photo();
      });
      // Either the photo is taken already, or it waits for the wake to finish: never a guess.
      harness.await("the photo taken or waiting", () -> photo.isDone()
          || (!photographer.isEmpty() && photographer.get(0).getState() == Thread.State.WAITING));
      registry.resume.countDown();
      Photo.UserPhoto anna = photo.get(10, TimeUnit.SECONDS).users().get("anna");
      if (anna.state() == UserState.UNFREEZING) {
        assertThat(anna.connections()).isEmpty();
      } else {
        assertThat(anna.connections()).isEqualTo(Map.of("c0", 2, "c1", 1));
      }
      assertThat(Harness.number(wake.get(10, TimeUnit.SECONDS))).isEqualTo(2L);
    } finally {
      registry.resume.countDown();
      threads.shutdownNow();
    }
  }

  /**
   * Users move between two workers — frozen on one, woken on the other by a call — while photos
   * of both are taken without pause. Every user a photo shows is whole: unfreezing with no
   * connection yet, or active with both connections and all four pages.
   */
  @Test
  void thePhotoNeverShowsAUserHalfWokenOrHalfFrozen() throws Exception {
    Schedule realTime = Schedule.system();
    Worker[] hosts = {
        harness.builder("w1").schedule(realTime).semaphoreWaitLimit(java.time.Duration.ofSeconds(20))
            .build(),
        harness.builder("w2").schedule(realTime).semaphoreWaitLimit(java.time.Duration.ofSeconds(20))
            .build()};
    harness.workers.add(hosts[0]);
    harness.workers.add(hosts[1]);
    int users = 4;
    int rounds = 15;
    for (int u = 0; u < users; u++) {
      for (int c = 0; c < 2; c++) {
        for (int p = 0; p < 2; p++) {
          Harness.call(hosts[0], increment("u" + u, "u" + u + "c" + c, "u" + u + "c" + c + "p" + p, "page"));
        }
      }
    }
    ExecutorService threads = Executors.newFixedThreadPool(users + 1);
    AtomicBoolean moving = new AtomicBoolean(true);
    try {
      List<Future<?>> movers = new ArrayList<>();
      for (int u = 0; u < users; u++) {
        String user = "u" + u;
        movers.add(threads.submit(() -> {
          for (int round = 0; round < rounds; round++) {
            Worker from = hosts[round % 2];
            Worker to = hosts[(round + 1) % 2];
            assertThat(from.freezeUser(user).join()).isEqualTo(FreezeOutcome.FROZEN);
            Harness.call(to, increment(user, user + "c1", user + "c1p0", "page").withUserFrozen());
          }
          return null;
        }));
      }
      Future<Integer> watcher = threads.submit(() -> {
        int photos = 0;
        while (moving.get() || photos < 10) {
          for (Worker host : hosts) {
            Photo photo = host.photo();
            photos++;
            assertThat(photo.userCount()).isEqualTo(photo.users().size());
            int connections = 0;
            int pages = 0;
            for (Map.Entry<String, Photo.UserPhoto> entry : photo.users().entrySet()) {
              Photo.UserPhoto user = entry.getValue();
              connections += user.connections().size();
              pages += user.connections().values().stream().mapToInt(Integer::intValue).sum();
              if (user.state() == UserState.UNFREEZING) {
                assertThat(user.connections()).as(entry.getKey() + " unfreezing").isEmpty();
              } else {
                assertThat(user.connections()).as(entry.getKey() + " active on " + host.name())
                    .isEqualTo(Map.of(entry.getKey() + "c0", 2, entry.getKey() + "c1", 2));
              }
            }
            assertThat(photo.connectionCount()).isEqualTo(connections);
            assertThat(photo.pageCount()).isEqualTo(pages);
          }
        }
        return photos;
      });
      for (Future<?> mover : movers) {
        mover.get(60, TimeUnit.SECONDS);
      }
      moving.set(false);
      assertThat(watcher.get(60, TimeUnit.SECONDS)).isGreaterThanOrEqualTo(10);
    } finally {
      moving.set(false);
      threads.shutdownNow();
    }
    Worker last = hosts[rounds % 2];
    for (int u = 0; u < users; u++) {
      assertThat(last.photo().users().get("u" + u).connections()).hasSize(2);
      Object count = Harness.call(last, Harness.get("u" + u, "u" + u + "c1", "u" + u + "c1p0", "page"));
      assertThat(Harness.number(count)).isEqualTo(1L + rounds);
    }
    CompletableFuture.runAsync(realTime::shutdown).join();
  }

  @Test
  void thePhotoTellsTheWorkersStateItsWatermarkAndItsHeapCeiling() throws Exception {
    Worker worker = harness.worker("w1");
    assertThat(worker.photo().state()).isEqualTo(WorkerState.RUNNING);
    assertThat(worker.photo().watermark()).isZero();
    Harness.call(worker, increment("anna", "c1", "p1", "page"));
    Photo photo = worker.photo();
    assertThat(photo.watermark()).as("new_user, new_connection, new_page").isEqualTo(3L)
        .isEqualTo(harness.heard("w1").get(harness.heard("w1").size() - 1).sequence());
    assertThat(photo.heapMaxBytes()).isEqualTo(Runtime.getRuntime().maxMemory());
    assertThat(photo.heapMaxBytes()).isGreaterThanOrEqualTo(photo.heapUsedBytes());

    CompletableFuture<QuitReport> quit = worker.quit();
    assertThat(worker.photo().state()).isEqualTo(WorkerState.QUITTING);
    harness.schedule.advance(java.time.Duration.ofSeconds(2));
    harness.driveRetries(quit);
    assertThat(worker.photo().state()).isEqualTo(WorkerState.FINISHED);
    assertThat(worker.photo().watermark()).as("user_frozen, drop_pages").isEqualTo(5L);
    assertThat(WorkerState.QUITTING.code()).isEqualTo("quitting");
  }

  /**
   * The photo of 10,000 users (one connection and one page each), written as the protocol writes
   * it — compact JSON through Jackson — stays far under a wire frame (16 MiB), and taking it does
   * not stall the worker. The bound on time is a guard against a stall (a lock held per user for
   * long, a quadratic walk), not a benchmark: it is a hundred times what the photo takes here.
   */
  @Test
  void aPhotoOfTenThousandUsersStaysSmallForTheWireAndIsTakenQuickly() throws Exception {
    java.util.concurrent.atomic.AtomicLong told = new java.util.concurrent.atomic.AtomicLong();
    Worker worker = harness.builder("w-big").listener(announcement -> told.incrementAndGet())
        .build();
    harness.workers.add(worker);
    int users = 10_000;
    for (int i = 0; i < users; i++) {
      String user = String.format("user-%05d", i);
      Harness.call(worker, increment(user, user + "-c", user + "-p", "page"));
    }
    com.fasterxml.jackson.databind.ObjectMapper json = new com.fasterxml.jackson.databind.ObjectMapper()
        .registerModule(new com.fasterxml.jackson.databind.module.SimpleModule()
            .addSerializer(java.time.Instant.class,
                com.fasterxml.jackson.databind.ser.std.ToStringSerializer.instance));
    List<Long> photoNanos = new ArrayList<>();
    List<Long> jsonNanos = new ArrayList<>();
    int size = 0;
    for (int round = 0; round < 25; round++) {
      long start = System.nanoTime();
      Photo photo = worker.photo();
      long taken = System.nanoTime();
      byte[] bytes = json.writeValueAsBytes(photo);
      long written = System.nanoTime();
      assertThat(photo.userCount()).isEqualTo(users);
      assertThat(photo.watermark()).isEqualTo(told.get());
      size = bytes.length;
      if (round >= 5) { // after the warm-up
        photoNanos.add(taken - start);
        jsonNanos.add(written - taken);
      }
    }
    java.util.Collections.sort(photoNanos);
    java.util.Collections.sort(jsonNanos);
    System.out.printf("photo of %d users: %d bytes of compact JSON (%d per user); photo() median"
        + " %.1f ms, max %.1f ms; JSON median %.1f ms%n", users, size, size / users,
        photoNanos.get(photoNanos.size() / 2) / 1e6, photoNanos.get(photoNanos.size() - 1) / 1e6,
        jsonNanos.get(jsonNanos.size() / 2) / 1e6);
    assertThat(size).as("compact JSON of the photo, bytes").isLessThan(4 << 20);
    assertThat(photoNanos.get(photoNanos.size() / 2)).as("median photo(), ns")
        .isLessThan(TimeUnit.SECONDS.toNanos(1));
  }
}
