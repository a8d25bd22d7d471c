package dev.cryo.lock.crossprocess;

import dev.cryo.lock.FolderSemaphore;
import dev.cryo.lock.HolderRecords;
import dev.cryo.lock.LockBusyException;
import dev.cryo.lock.LockRecord;
import dev.cryo.lock.ProcessLock;
import dev.cryo.lock.Publication;
import dev.cryo.lock.PublicationSeam;
import dev.cryo.lock.WatchSeam;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * The child program of the cross-process tests. Protocol lines on standard output start with
 * {@code @}; commands come one a line on standard input. End of standard input (the test JVM died)
 * halts the child at once.
 *
 * <p>A first argument {@code --nap-at-most=MILLIS} lets this JVM's waiters nap that long between
 * looks ({@link WatchSeam}), so that only the file-change notification wakes them in time.
 *
 * <ul>
 *   <li>{@code contend PORT ID SEED ROUNDS MAX_HOLD_MICROS WAIT_MILLIS DIR...}: ROUNDS times (forever
 *       when negative), pick one of the directories, {@link ProcessLock#acquire} it, report {@code
 *       ENTER} to the {@link LockVerifier}, hold it a random while, report {@code LEAVE}, release,
 *       pause. One round in ten also checks that another thread of this JVM is refused the lock.
 *   <li>{@code abandon PORT ID SEED ROUNDS MAX_HOLD_MICROS WAIT_MILLIS DIR...}: the same, but every
 *       other round (at random) the holder abandons the lock instead of releasing it: it replaces
 *       its record with one naming a dead holder (its own pid with another start, as after a pid
 *       reuse), as if it had died holding, and the others must race to reclaim it.
 *   <li>{@code semaphore PORT ID SEED ROUNDS MAX_HOLD_MICROS FOLDER...}: the same with {@link
 *       FolderSemaphore#tryTake} retried until it succeeds, and {@link FolderSemaphore#release}.
 *       While they contend, both obey {@code pause before-link}, {@code pause after-link} (the
 *       next publication stops there, {@link PublicationSeam}) and {@code pause holding} (the next
 *       acquisition stops once taken, before the critical section): the child says {@code @PAUSED
 *       <point>} and parks there for good, to be killed at that point.
 *   <li>{@code hold DIR [COMPANION_PID]}: acquire (sharing the lock with the companion process when
 *       given, see {@link ProcessLock#shareWith}) and say {@code @HELD <token>}; then obey {@code release} (close the
 *       lock, say {@code @RELEASED}), {@code exit} ({@code System.exit(0)}, lock still open), {@code
 *       return} (return from {@code main}, lock still open), {@code halt} (no shutdown hooks).
 *   <li>{@code take FOLDER}: take the folder's semaphore (retrying for up to a minute) and say {@code
 *       @TAKEN}; then obey {@code exit}, {@code return} and {@code halt}.
 *   <li>{@code take-linked HOLDER FOLDER...}: take each folder's semaphore once as HOLDER, its lock
 *       a link of this process's record ({@link HolderRecords} of the folder's parent), and say
 *       {@code @TAKEN}; then obey the same commands.
 *   <li>{@code wait-acquire DIR WAIT_MILLIS}: say {@code @WAITING}, acquire with that wait, say
 *       {@code @ACQUIRED <millis waited>} (or {@code @BUSY}); then obey the same commands.
 * </ul>
 */
public final class HolderMain {

  /** The option that lifts this JVM's nap between looks: {@code --nap-at-most=MILLIS}. */
  static final String NAP_AT_MOST = "--nap-at-most=";

  private HolderMain() {}

  public static void main(String[] args) throws Exception {
    if (args.length > 0 && args[0].startsWith(NAP_AT_MOST)) {
      WatchSeam.napAtMost(Duration.ofMillis(Long.parseLong(args[0].substring(NAP_AT_MOST.length()))));
      args = Arrays.copyOfRange(args, 1, args.length);
    }
    try {
      switch (args[0]) {
        case "contend" -> contend(Arrays.copyOfRange(args, 1, args.length), false);
        case "abandon" -> contend(Arrays.copyOfRange(args, 1, args.length), true);
        case "semaphore" -> semaphore(Arrays.copyOfRange(args, 1, args.length));
        case "hold" -> hold(Path.of(args[1]), args.length > 2 ? Long.parseLong(args[2]) : 0);
        case "take" -> take(Path.of(args[1]));
        case "take-linked" -> takeLinked(args[1], Arrays.copyOfRange(args, 2, args.length));
        case "wait-acquire" -> waitAcquire(Path.of(args[1]), Long.parseLong(args[2]));
        default -> throw new IllegalArgumentException("unknown mode " + args[0]);
      }
    } catch (Throwable e) {
      e.printStackTrace(System.out);
      say("@FAILED " + e);
      System.exit(1);
    }
  }

  private static void contend(String[] args, boolean abandon) throws Exception {
    int port = Integer.parseInt(args[0]);
    int id = Integer.parseInt(args[1]);
    SplittableRandom random = new SplittableRandom(Long.parseLong(args[2]));
    long rounds = Long.parseLong(args[3]);
    int maxHoldMicros = Integer.parseInt(args[4]);
    Duration wait = Duration.ofMillis(Long.parseLong(args[5]));
    List<Path> directories = paths(args, 6);
    obeyPausesUntilParentGoes();
    ExecutorService other = Executors.newSingleThreadExecutor(runnable -> {
      Thread thread = new Thread(runnable, "second-obtain");
      thread.setDaemon(true);
      return thread;
    });
    long busy = 0;
    try (LockVerifier.Client verifier = LockVerifier.Client.connect(port, id)) {
      say("@STARTED");
      for (long round = 0; rounds < 0 || round < rounds; round++) {
        int index = random.nextInt(directories.size());
        Path directory = directories.get(index);
        ProcessLock lock;
        while (true) {
          try {
            lock = ProcessLock.acquire(directory, wait, "contender " + id + " round " + round);
            break;
          } catch (LockBusyException e) {
            busy++;
          }
        }
        pauseIfAsked();
        try {
          verifier.enter(index);
          if (random.nextInt(10) == 0) {
            secondObtainMustFail(other, directory);
          }
          pause(random, maxHoldMicros);
          verifier.leave(index);
          if (abandon && random.nextBoolean()) {
            abandon(lock);
          }
        } finally {
          lock.close(); // an abandoned lock's foreign record is left in place
        }
        pause(random, maxHoldMicros);
      }
      verifier.done();
    }
    say("@DONE busy=" + busy);
  }

  /** Replaces our record by one whose holder is provably dead: our pid, another start. */
  private static void abandon(ProcessLock lock) throws IOException {
    LockRecord ours = lock.record();
    LockRecord dead = new LockRecord(ours.pid(), ours.start() + 1_000_000, ours.bootId(),
        ours.host(), "abandoned", "0".repeat(32), ours.since(), 0, -1);
    Publication.replace(lock.lockFile(), dead.toBytes(), Publication.Durability.VOLATILE);
  }

  /** Lucene's second obtain: while this thread holds the lock, another thread must be refused. */
  private static void secondObtainMustFail(ExecutorService other, Path directory) throws Exception {
    Future<String> attempt = other.submit(() -> {
      try (ProcessLock second = ProcessLock.acquire(directory, Duration.ZERO, "second obtain")) {
        return "a second thread obtained " + directory + " while the first held it";
      } catch (LockBusyException expected) {
        return null;
      }
    });
    String problem = attempt.get(60, TimeUnit.SECONDS);
    if (problem != null) {
      throw new AssertionError(problem);
    }
  }

  private static void semaphore(String[] args) throws Exception {
    int port = Integer.parseInt(args[0]);
    int id = Integer.parseInt(args[1]);
    SplittableRandom random = new SplittableRandom(Long.parseLong(args[2]));
    long rounds = Long.parseLong(args[3]);
    int maxHoldMicros = Integer.parseInt(args[4]);
    List<Path> folders = paths(args, 5);
    obeyPausesUntilParentGoes();
    long refusals = 0;
    try (LockVerifier.Client verifier = LockVerifier.Client.connect(port, id)) {
      say("@STARTED");
      for (long round = 0; rounds < 0 || round < rounds; round++) {
        int index = random.nextInt(folders.size());
        Path folder = folders.get(index);
        String holder = "contender " + id + " round " + round;
        while (!FolderSemaphore.tryTake(folder, holder)) {
          refusals++;
          // The semaphore is never waited for: retry on our own schedule.
          LockSupport.parkNanos(TimeUnit.MICROSECONDS.toNanos(50 + random.nextInt(200)));
        }
        pauseIfAsked();
        try {
          verifier.enter(index);
          pause(random, maxHoldMicros);
          verifier.leave(index);
        } finally {
          FolderSemaphore.release(folder, holder);
        }
        pause(random, maxHoldMicros);
      }
      verifier.done();
    }
    say("@DONE refusals=" + refusals);
  }

  private static void hold(Path directory, long companion) throws Exception {
    ProcessLock lock = ProcessLock.acquire(directory, Duration.ofSeconds(60), "held by a child");
    if (companion > 0) {
      lock.shareWith(ProcessHandle.of(companion).orElseThrow());
    }
    say("@HELD " + lock.record().token());
    obey(lock);
  }

  private static void take(Path folder) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(1);
    while (!FolderSemaphore.tryTake(folder, "taken by a child")) {
      if (System.nanoTime() - deadline > 0) {
        throw new AssertionError("the semaphore of " + folder + " stayed busy for a minute");
      }
      Thread.sleep(1);
    }
    say("@TAKEN");
    obey(null);
  }

  private static void takeLinked(String holder, String[] folders) throws Exception {
    java.util.Map<Path, HolderRecords> records = new java.util.HashMap<>();
    for (String name : folders) {
      Path folder = Path.of(name).toAbsolutePath();
      if (FolderSemaphore.take(folder, holder, null,
          records.computeIfAbsent(folder.getParent(), HolderRecords::new)) == null) {
        throw new AssertionError("the semaphore of " + folder + " is busy");
      }
    }
    say("@TAKEN");
    obey(null);
  }

  private static void waitAcquire(Path directory, long waitMillis) throws Exception {
    say("@WAITING");
    long start = System.nanoTime();
    ProcessLock lock;
    try {
      lock = ProcessLock.acquire(directory, Duration.ofMillis(waitMillis), "waiting child");
    } catch (LockBusyException e) {
      say("@BUSY " + TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start));
      obey(null);
      return;
    }
    say("@ACQUIRED " + TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start));
    obey(lock);
  }

  private static void obey(ProcessLock lock) throws IOException {
    BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    String command;
    while ((command = in.readLine()) != null) {
      switch (command) {
        case "release" -> {
          lock.close();
          say("@RELEASED");
        }
        case "exit" -> System.exit(0);
        case "return" -> {
          return;
        }
        case "halt" -> Runtime.getRuntime().halt(0);
        default -> say("@FAILED unknown command " + command);
      }
    }
    Runtime.getRuntime().halt(3); // the test JVM is gone
  }

  private static volatile boolean pauseHolding;

  /**
   * Reads the pause commands of a contender from standard input, and halts at its end (the test JVM
   * died).
   */
  private static void obeyPausesUntilParentGoes() {
    Thread watcher = new Thread(() -> {
      try {
        BufferedReader in =
            new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        String command;
        while ((command = in.readLine()) != null) {
          switch (command) {
            case "pause before-link" -> PublicationSeam.once(PublicationSeam.Step.BEFORE_LINK,
                () -> parkForGood("before-link"));
            case "pause after-link" -> PublicationSeam.once(PublicationSeam.Step.AFTER_LINK,
                () -> parkForGood("after-link"));
            case "pause holding" -> pauseHolding = true;
            default -> say("@FAILED unknown command " + command);
          }
        }
      } catch (IOException e) {
        // treated as the end
      }
      Runtime.getRuntime().halt(3);
    }, "parent-watch");
    watcher.setDaemon(true);
    watcher.start();
  }

  private static void pauseIfAsked() {
    if (pauseHolding) {
      parkForGood("holding");
    }
  }

  /** Says where this thread is, and stays there until the test kills the process. */
  private static void parkForGood(String point) {
    say("@PAUSED " + point);
    while (true) {
      LockSupport.park();
    }
  }

  private static void pause(SplittableRandom random, int maxMicros) {
    if (maxMicros > 0) {
      LockSupport.parkNanos(TimeUnit.MICROSECONDS.toNanos(random.nextInt(maxMicros + 1)));
    }
  }

  private static List<Path> paths(String[] args, int from) {
    List<Path> paths = new ArrayList<>();
    for (int i = from; i < args.length; i++) {
      paths.add(Path.of(args[i]));
    }
    return paths;
  }

  private static void say(String line) {
    System.out.println(line);
    System.out.flush();
  }
}
