package dev.cryo.wire;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.ReentrantLock;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The wire under everything at once, as a commander and its worker use it: many concurrent
 * callers at both ends (platform and virtual threads, waiting with {@code get}, a timed {@code
 * get} and {@code join}), events in both directions (written by handlers before their reply and
 * by bystanders at random moments), inbound calls served while this side's own calls wait, nested
 * calls (a handler that calls back over the same wire, whose handler calls back again, inline),
 * calls that time out and are abandoned, and callers interrupted while they wait or read.
 *
 * <p>Every wait is bounded: a call that makes no progress for {@link #STALL} (its handler takes
 * milliseconds) fails the test with the stacks of the threads involved, long before its own
 * timeout; the traffic stops after {@link #TRAFFIC}, every caller must then end within {@link
 * #DRAIN}, and every event written must be handled within the same bound.
 */
@Timeout(180)
class WireStressTest {

  /** The timeout of a call expected to succeed: far past {@link #STALL}. */
  private static final Duration LONG = Duration.ofSeconds(60);
  /** A call in flight longer than this (without a slow handler) is stuck. */
  private static final Duration STALL = Duration.ofSeconds(8);
  private static final Duration TRAFFIC = Duration.ofSeconds(6);
  private static final Duration DRAIN = Duration.ofSeconds(30);

  private static final byte ECHO = 0;
  private static final byte NESTED = 1;
  private static final byte SLOW = 2;

  @TempDir
  Path directory;

  /** What the test saw: counts, failures and the calls in flight. */
  private static final class Run {
    final AtomicBoolean stop = new AtomicBoolean();
    final AtomicReference<String> failure = new AtomicReference<>();
    final AtomicLong calls = new AtomicLong();
    final AtomicLong timedOut = new AtomicLong();
    final AtomicLong interrupted = new AtomicLong();
    final AtomicLong nested = new AtomicLong();
    final AtomicLong eventsToCommander = new AtomicLong();
    final AtomicLong eventsToWorker = new AtomicLong();
    final AtomicLong eventsAtCommander = new AtomicLong();
    final AtomicLong eventsAtWorker = new AtomicLong();
    /** Each thread's call in flight: what it is and since when (System.nanoTime). */
    final Map<Thread, String> inFlight = new ConcurrentHashMap<>();
    final Map<Thread, Long> since = new ConcurrentHashMap<>();
    final List<Thread> threads = new java.util.concurrent.CopyOnWriteArrayList<>();
    /** The threads running a handler now, with the call they serve. */
    final Map<Thread, String> serving = new ConcurrentHashMap<>();
    final List<Wire> wires = new java.util.concurrent.CopyOnWriteArrayList<>();

    void fail(String what) {
      failure.compareAndSet(null, what);
      stop.set(true);
    }

    void begin(String what) {
      inFlight.put(Thread.currentThread(), what);
      since.put(Thread.currentThread(), System.nanoTime());
    }

    void end() {
      inFlight.remove(Thread.currentThread());
      since.remove(Thread.currentThread());
    }
  }

  private static byte[] payload(byte mode, int size) {
    byte[] bytes = new byte[Math.max(size, 8)];
    ThreadLocalRandom.current().nextBytes(bytes);
    bytes[0] = mode;
    return bytes;
  }

  @Test
  void everyCallEventTimeoutAndInterruptAtBothEndsCompletesWithoutAStall() throws Exception {
    Run run = new Run();
    AtomicReference<Wire> commanderWire = new AtomicReference<>();
    AtomicReference<Wire> workerWire = new AtomicReference<>();
    ReentrantLock foldLock = new ReentrantLock(); // the commander folds events under one lock

    RecordingHandler workerSide = new RecordingHandler((method, payload) -> {
      Wire wire = workerWire.get();
      run.serving.put(Thread.currentThread(), "worker serves " + method + " mode " + payload[0]);
      try {
      switch (method) {
        case "http" -> {
          int announcements = ThreadLocalRandom.current().nextInt(3);
          for (int i = 0; i < announcements; i++) {
            wire.event("announce", payload(ECHO, 64));
            run.eventsToCommander.incrementAndGet();
          }
          if (payload[0] == NESTED) { // the worker asks the commander while the call waits
            byte[] back = wire.call("locate", payload(ECHO, 256), LONG).get(LONG.toSeconds(),
                TimeUnit.SECONDS);
            if (back.length != 256) {
              run.fail("a nested locate came back with " + back.length + " bytes");
            }
            run.nested.incrementAndGet();
          } else if (payload[0] == SLOW) {
            Thread.sleep(ThreadLocalRandom.current().nextInt(20, 120));
          }
          return payload;
        }
        default -> {
          return payload; // ping (inline) and quit: echo
        }
      }
      } finally {
        run.serving.remove(Thread.currentThread());
      }
    }) {
      @Override
      public void onEvent(String method, byte[] payload) {
        run.eventsAtWorker.incrementAndGet();
      }
    };
    workerSide.inline = Set.of("ping");

    RecordingHandler commanderSide = new RecordingHandler((method, payload) -> {
      Wire wire = commanderWire.get();
      run.serving.put(Thread.currentThread(), "commander serves " + method);
      try {
      if (method.equals("locate")) { // a call of the worker that calls the worker back
        wire.event("note", payload(ECHO, 32));
        run.eventsToWorker.incrementAndGet();
        byte[] ping = payload(ECHO, 64);
        byte[] pong = ThreadLocalRandom.current().nextBoolean()
            ? wire.call("ping", ping, LONG).join()
            : wire.call("ping", ping, LONG).get();
        if (!java.util.Arrays.equals(ping, pong)) {
          run.fail("a nested ping came back changed");
        }
      }
      return payload;
      } finally {
        run.serving.remove(Thread.currentThread());
      }
    }) {
      @Override
      public void onEvent(String method, byte[] payload) {
        foldLock.lock();
        try {
          run.eventsAtCommander.incrementAndGet();
        } finally {
          foldLock.unlock();
        }
      }
    };

    try (WirePair pair = new WirePair(directory, commanderSide, workerSide,
        WireLimits.defaults())) {
      commanderWire.set(pair.commander);
      workerWire.set(pair.worker);
      run.wires.add(pair.commander);
      run.wires.add(pair.worker);

      for (int i = 0; i < 24; i++) { // the front's requests: virtual and platform callers
        Thread.Builder builder = i % 3 == 0 ? Thread.ofPlatform().daemon(true)
            : Thread.ofVirtual();
        run.threads.add(builder.name("commander-caller-" + i)
            .start(() -> commanderCaller(run, pair.commander)));
      }
      for (int i = 0; i < 6; i++) { // the worker's own calls (its presentation, a lookup)
        run.threads.add(Thread.ofVirtual().name("worker-caller-" + i)
            .start(() -> workerCaller(run, pair.worker)));
      }
      run.threads.add(Thread.ofVirtual().name("commander-events")
          .start(() -> bystander(run, pair.commander, "note", run.eventsToWorker)));
      run.threads.add(Thread.ofVirtual().name("worker-events")
          .start(() -> bystander(run, pair.worker, "announce", run.eventsToCommander)));
      List<Thread> callers = List.copyOf(run.threads);
      Thread interrupter = Thread.ofPlatform().daemon(true).name("interrupter").start(() -> {
        while (!run.stop.get()) {
          callers.get(ThreadLocalRandom.current().nextInt(24)).interrupt();
          sleepQuietly(ThreadLocalRandom.current().nextInt(1, 15));
        }
      });

      long trafficEnd = System.nanoTime() + TRAFFIC.toNanos();
      while (!run.stop.get() && System.nanoTime() < trafficEnd) {
        checkStall(run);
        Thread.sleep(50);
      }
      run.stop.set(true);
      interrupter.join(DRAIN.toMillis());
      long drainEnd = System.nanoTime() + DRAIN.toNanos();
      for (Thread thread : run.threads) {
        while (thread.isAlive() && System.nanoTime() < drainEnd) {
          checkStall(run);
          thread.join(50);
        }
      }
      List<Thread> alive = run.threads.stream().filter(Thread::isAlive).toList();
      if (!alive.isEmpty()) {
        run.fail("callers still stuck " + DRAIN.toSeconds() + " s after the traffic stopped");
      }
      long eventsEnd = System.nanoTime() + DRAIN.toNanos();
      while ((run.eventsAtCommander.get() < run.eventsToCommander.get()
          || run.eventsAtWorker.get() < run.eventsToWorker.get())
          && System.nanoTime() < eventsEnd) {
        Thread.sleep(20);
      }
      if (run.failure.get() != null) {
        throw new AssertionError(run.failure.get() + "\n" + dump(run));
      }
      assertThat(run.eventsAtCommander.get()).as("events handled by the commander")
          .isEqualTo(run.eventsToCommander.get());
      assertThat(run.eventsAtWorker.get()).as("events handled by the worker")
          .isEqualTo(run.eventsToWorker.get());
      assertThat(run.calls.get()).as("calls answered").isGreaterThan(100);
      assertThat(run.nested.get()).as("nested calls answered").isPositive();
      assertThat(pair.commander.isOpen()).as("the commander's wire").isTrue();
      assertThat(pair.worker.isOpen()).as("the worker's wire").isTrue();
      byte[] last = payload(ECHO, 1024);
      assertThat(pair.commander.call("http", last, LONG).get(DRAIN.toSeconds(), TimeUnit.SECONDS))
          .isEqualTo(last);
      assertThat(pair.worker.call("present", last, LONG).get(DRAIN.toSeconds(), TimeUnit.SECONDS))
          .isEqualTo(last);
    }
  }

  /** One of the front's request threads: calls of every kind, waited for in every way. */
  private static void commanderCaller(Run run, Wire wire) {
    ThreadLocalRandom random = ThreadLocalRandom.current();
    while (!run.stop.get()) {
      int pick = random.nextInt(10);
      byte mode = pick < 6 ? ECHO : pick < 8 ? NESTED : SLOW;
      boolean abandon = mode == SLOW && random.nextBoolean();
      Duration timeout = abandon ? Duration.ofMillis(random.nextInt(5, 40)) : LONG;
      String method = mode == ECHO && random.nextInt(4) == 0 ? "ping" : "http";
      byte[] sent = payload(mode, random.nextInt(16, 4096));
      int how = random.nextInt(3);
      run.begin(method + " mode " + mode + " wait " + how + " timeout " + timeout);
      try {
        byte[] got = switch (how) {
          case 0 -> wire.call(method, sent, timeout).get();
          case 1 -> wire.call(method, sent, timeout).get(LONG.toSeconds(), TimeUnit.SECONDS);
          default -> wire.call(method, sent, timeout).join();
        };
        if (!java.util.Arrays.equals(sent, got)) {
          run.fail("a reply did not match its call (" + method + ")");
        }
        run.calls.incrementAndGet();
      } catch (InterruptedException e) {
        run.interrupted.incrementAndGet();
      } catch (ExecutionException | java.util.concurrent.CompletionException e) {
        if (e.getCause() instanceof WireTimeoutException && abandon) {
          run.timedOut.incrementAndGet();
        } else {
          run.fail("a call failed: " + e.getCause());
        }
      } catch (TimeoutException e) {
        run.fail("a timed get ran out: " + e);
      } catch (RuntimeException e) {
        run.fail("a caller failed: " + e);
      } finally {
        run.end();
        Thread.interrupted(); // an interrupt kept by join() or come late is this caller's own
      }
    }
  }

  /** A worker-side caller: the commander's calls, one of which calls the worker back. */
  private static void workerCaller(Run run, Wire wire) {
    ThreadLocalRandom random = ThreadLocalRandom.current();
    while (!run.stop.get()) {
      String method = random.nextBoolean() ? "locate" : "present";
      byte[] sent = payload(ECHO, random.nextInt(16, 2048));
      run.begin("worker " + method);
      try {
        byte[] got = random.nextBoolean() ? wire.call(method, sent, LONG).join()
            : wire.call(method, sent, LONG).get(LONG.toSeconds(), TimeUnit.SECONDS);
        if (!java.util.Arrays.equals(sent, got)) {
          run.fail("a reply did not match its call (" + method + ")");
        }
        run.calls.incrementAndGet();
      } catch (Exception e) {
        run.fail("a worker call failed: " + e);
      } finally {
        run.end();
      }
      if (random.nextInt(4) == 0) {
        sleepQuietly(random.nextInt(1, 5)); // gaps, so that the turn goes free now and then
      }
    }
  }

  /** Events written at random moments, outside any call. */
  private static void bystander(Run run, Wire wire, String method, AtomicLong written) {
    ThreadLocalRandom random = ThreadLocalRandom.current();
    while (!run.stop.get()) {
      wire.event(method, payload(ECHO, random.nextInt(8, 512)));
      written.incrementAndGet();
      sleepQuietly(random.nextInt(0, 4));
    }
  }

  private static void checkStall(Run run) {
    long now = System.nanoTime();
    for (Map.Entry<Thread, Long> entry : run.since.entrySet()) {
      if (now - entry.getValue() > STALL.toNanos()) {
        run.fail("the call '" + run.inFlight.get(entry.getKey()) + "' of " + entry.getKey()
            .getName() + " made no progress for " + STALL.toSeconds() + " s");
        return;
      }
    }
  }

  private static String dump(Run run) {
    StringBuilder out = new StringBuilder("calls ").append(run.calls).append(", timed out ")
        .append(run.timedOut).append(", interrupted ").append(run.interrupted).append(", nested ")
        .append(run.nested).append(", events to commander ").append(run.eventsAtCommander)
        .append('/').append(run.eventsToCommander).append(", to worker ")
        .append(run.eventsAtWorker).append('/').append(run.eventsToWorker).append('\n');
    run.wires.forEach(wire -> out.append(wire).append('\n'));
    List<Thread> threads = new ArrayList<>(run.threads);
    threads.addAll(run.serving.keySet());
    run.wires.stream().map(Wire::readingThread).filter(java.util.Objects::nonNull)
        .filter(t -> !threads.contains(t)).forEach(threads::add);
    Thread.getAllStackTraces().keySet().stream()
        .filter(t -> t.getName().startsWith("wire-") || t.getName().startsWith("cryo-wire"))
        .forEach(threads::add);
    for (Thread thread : threads) {
      if (!thread.isAlive()) {
        continue;
      }
      out.append(thread.getName()).append(" (").append(thread.getState()).append(')');
      out.append(" #").append(thread.threadId());
      String what = run.inFlight.containsKey(thread) ? run.inFlight.get(thread)
          : run.serving.get(thread);
      if (what != null) {
        out.append(" in ").append(what);
      }
      out.append('\n');
      for (StackTraceElement element : thread.getStackTrace()) {
        out.append("    at ").append(element).append('\n');
      }
    }
    return out.toString();
  }

  private static void sleepQuietly(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
