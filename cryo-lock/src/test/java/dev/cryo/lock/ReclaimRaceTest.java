package dev.cryo.lock;

import static dev.cryo.lock.TestProcesses.BOUND;
import static dev.cryo.lock.TestProcesses.localRecord;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.cryo.lock.LockFile.Removal;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Duration;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two reclaimers of one dead holder's lock never both win, and a reclaimer never removes a live
 * holder's lock, including in the window between its last check and its unlink.
 *
 * <p>The tests stop a remover exactly in that window through {@link LockFile#removalProbe}, which
 * {@link LockFile} calls after every check and just before the unlink. Within one JVM, removers of
 * one lockfile are serialised by a JVM guard; across processes, by an operating-system lock on the
 * file itself. Both are shown: rivals in other threads of this JVM, and rivals in a child JVM that
 * this test drives line by line (and which can itself be stopped in the window).
 *
 * <p>While a remover of this JVM is stopped, the tests never open the lockfile themselves: closing
 * any descriptor of a file drops every operating-system lock this process holds on it. They look
 * with {@code stat} (device and inode) instead, which opens nothing.
 */
@Timeout(value = 120, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class ReclaimRaceTest {

  @TempDir Path root;
  private Path dir;
  private Path lockPath;
  private LockFile.RemovalProbe savedProbe;

  @BeforeEach
  void setUp() throws IOException {
    dir = Files.createDirectory(root.resolve("run")).toRealPath();
    lockPath = dir.resolve(".lock");
    savedProbe = LockFile.removalProbe;
  }

  @AfterEach
  void restoreProbe() {
    LockFile.removalProbe = savedProbe;
  }

  /** Writes the record of a dead holder at the lock's path and returns its exact bytes. */
  private byte[] deadHolderRecord() throws Exception {
    byte[] dead = localRecord(TestProcesses.reapedPid(), 4711, "crashed").toBytes();
    Files.write(lockPath, dead);
    return dead;
  }

  private Object inode() throws IOException {
    return Files.readAttributes(lockPath, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS)
        .fileKey();
  }

  private List<String> names() throws IOException {
    try (Stream<Path> entries = Files.list(dir)) {
      return entries.map(entry -> entry.getFileName().toString()).sorted().toList();
    }
  }

  private static <T> CompletableFuture<T> inThread(String name, Callable<T> work, Thread[] thread) {
    CompletableFuture<T> result = new CompletableFuture<>();
    thread[0] = new Thread(() -> {
      try {
        result.complete(work.call());
      } catch (Throwable e) {
        result.completeExceptionally(e);
      }
    }, name);
    return result;
  }

  private static <T> T resultOf(CompletableFuture<T> future) throws Exception {
    return future.get(BOUND.toSeconds(), TimeUnit.SECONDS);
  }

  private static Throwable failureOf(CompletableFuture<?> future) throws Exception {
    try {
      Object value = resultOf(future);
      throw new AssertionError("expected a refusal, got " + value);
    } catch (ExecutionException e) {
      return e.getCause();
    }
  }

  /**
   * Stops one thread in the window between the last check of a removal and its unlink, and counts
   * every other thread that reaches that window.
   */
  private static final class Pause implements LockFile.RemovalProbe {
    final CountDownLatch paused = new CountDownLatch(1);
    final CountDownLatch resume = new CountDownLatch(1);
    final AtomicInteger others = new AtomicInteger();
    volatile Thread target;

    @Override
    public void beforeUnlink(Path lockFile) {
      if (Thread.currentThread() != target) {
        others.incrementAndGet();
        return;
      }
      if (paused.getCount() == 0) {
        return;
      }
      paused.countDown();
      try {
        if (!resume.await(BOUND.toSeconds(), TimeUnit.SECONDS)) {
          throw new AssertionError("never resumed");
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new AssertionError(e);
      }
    }

    void awaitPaused() throws InterruptedException {
      assertThat(paused.await(BOUND.toSeconds(), TimeUnit.SECONDS))
          .as("the reclaimer reached its unlink").isTrue();
    }
  }

  /**
   * R1 of this JVM judged the holder dead and stopped just before its unlink; R2 is another process.
   * R2 can neither remove the file nor acquire the lock; once R1 goes on, R1 alone holds the lock.
   *
   * <p>A rival thread of this JVM tries to remove the file first. It must wait for R1 rather than
   * open the file: closing its descriptor would drop R1's operating-system lock, and R2 could then
   * remove the file under R1.
   */
  @Test
  void aRivalProcessCannotRemoveTheFileWhileAReclaimerIsInItsWindow() throws Exception {
    byte[] dead = deadHolderRecord();
    Object deadInode = inode();
    Pause pause = new Pause();
    Thread[] r1 = new Thread[1];
    CompletableFuture<ProcessLock> first =
        inThread("R1", () -> ProcessLock.acquire(dir, Duration.ZERO, "R1"), r1);
    pause.target = r1[0];
    LockFile.removalProbe = pause;
    try (ChildJvm r2 = ChildJvm.start(root)) {
      r1[0].start();
      pause.awaitPaused();
      Thread[] sibling = new Thread[1];
      CompletableFuture<Removal> siblingRemoval = inThread("sibling",
          () -> LockFile.at(lockPath).removeIf(bytes -> Arrays.equals(bytes, dead), Duration.ZERO),
          sibling);
      sibling[0].start();
      TestProcesses.awaitParkedOrDone(sibling[0]);

      assertThat(r2.ask("remove-if " + lockPath + " " + hex(dead) + " 300"))
          .isEqualTo(Removal.CONTENDED.name());
      assertThat(r2.ask("acquire " + dir)).startsWith("BUSY ");
      assertThat(inode()).as("the dead holder's file is still the one R1 judged")
          .isEqualTo(deadInode);

      pause.resume.countDown();
      assertThat(resultOf(siblingRemoval)).isIn(Removal.ABSENT, Removal.CHANGED);
      try (ProcessLock winner = resultOf(first)) {
        assertThat(winner.record().holder()).isEqualTo("R1");
        assertThat(r2.ask("acquire " + dir)).as("R1 holds it now, alive").startsWith("BUSY ");
        assertThat(LockRecord.parse(Files.readAllBytes(lockPath))).isEqualTo(winner.record());
        assertThat(names()).containsExactly(".lock");
        assertThat(pause.others).as("no other thread of this JVM reached an unlink").hasValue(0);
      }
    }
  }

  /**
   * An owner releasing its semaphore stopped between its last check and its unlink: another process
   * breaking the lock meets the owner's operating-system lock and backs off, so the owner's release
   * never unlinks a file somebody else put there, and the break never removes the owner's file
   * under it.
   */
  @Test
  void aBreakerInAnotherProcessBacksOffWhileTheOwnerReleases() throws Exception {
    assertThat(FolderSemaphore.tryTake(dir, "owner")).isTrue();
    byte[] owners = Files.readAllBytes(lockPath);
    Object ownersInode = inode();
    Pause pause = new Pause();
    Thread[] owner = new Thread[1];
    CompletableFuture<Boolean> release = inThread("owner", () -> {
      FolderSemaphore.release(dir, "owner");
      return true;
    }, owner);
    pause.target = owner[0];
    LockFile.removalProbe = pause;
    try (ChildJvm breaker = ChildJvm.start(root)) {
      owner[0].start();
      pause.awaitPaused();

      assertThat(breaker.ask("remove-if " + lockPath + " " + hex(owners) + " 300"))
          .isEqualTo(Removal.CONTENDED.name());
      assertThat(inode()).as("the owner's file is still there").isEqualTo(ownersInode);

      pause.resume.countDown();
      assertThat(resultOf(release)).isTrue();
      assertThat(Files.exists(dir)).as("the folder went with the release").isFalse();
    }
  }

  /**
   * R1 stopped just before its unlink; rivals in other threads of this JVM (a semaphore taker, a
   * bare remover, a process lock) cannot remove what R1 judged, and in the end exactly one of them
   * and R1 holds the lock.
   */
  @Test
  void rivalThreadsCannotRemoveTheFileWhileAReclaimerIsInItsWindow() throws Exception {
    byte[] dead = deadHolderRecord();
    Object deadInode = inode();
    Pause pause = new Pause();
    Thread[] r1 = new Thread[1];
    CompletableFuture<ProcessLock> first =
        inThread("R1", () -> ProcessLock.acquire(dir, Duration.ZERO, "R1"), r1);
    pause.target = r1[0];
    LockFile.removalProbe = pause;
    r1[0].start();
    pause.awaitPaused();

    Thread[] taker = new Thread[1];
    CompletableFuture<Boolean> semaphore =
        inThread("semaphore taker", () -> FolderSemaphore.tryTake(dir, "taker"), taker);
    Thread[] remover = new Thread[1];
    CompletableFuture<Removal> removal = inThread("remover",
        () -> LockFile.at(lockPath).removeIf(bytes -> Arrays.equals(bytes, dead), Duration.ZERO),
        remover);
    Thread[] locker = new Thread[1];
    CompletableFuture<ProcessLock> lock =
        inThread("locker", () -> ProcessLock.acquire(dir, Duration.ZERO, "locker"), locker);
    taker[0].start();
    remover[0].start();
    locker[0].start();
    TestProcesses.awaitParkedOrDone(taker[0]);
    TestProcesses.awaitParkedOrDone(remover[0]);

    assertThat(failureOf(lock)).as("the slot of this JVM is R1's")
        .isInstanceOf(LockBusyException.class).hasMessageContaining("thread 'R1'");
    assertThat(inode()).isEqualTo(deadInode);
    assertThat(pause.others).hasValue(0);
    if (removal.isDone()) {
      assertThat(resultOf(removal)).isIn(Removal.CONTENDED, Removal.CHANGED);
    }
    if (semaphore.isDone()) {
      assertThat(resultOf(semaphore)).isFalse();
    }

    pause.resume.countDown();

    assertThat(resultOf(removal)).as("what R1 judged is gone, and never removed twice")
        .isIn(Removal.ABSENT, Removal.CHANGED, Removal.CONTENDED);
    boolean takerWon = resultOf(semaphore);
    ProcessLock r1Lock = null;
    try {
      r1Lock = resultOf(first);
    } catch (ExecutionException e) {
      assertThat(e.getCause()).isInstanceOf(LockBusyException.class);
    }
    assertThat(takerWon).as("exactly one winner: taker %s, R1 %s", takerWon, r1Lock)
        .isEqualTo(r1Lock == null);
    LockRecord onDisk = LockRecord.parse(Files.readAllBytes(lockPath));
    assertThat(onDisk.holder()).isEqualTo(takerWon ? "taker" : "R1");
    assertThat(pause.others).hasValue(0);
    if (r1Lock != null) {
      r1Lock.close();
    } else {
      FolderSemaphore.release(dir, "taker");
    }
  }

  /**
   * R2 judged the dead holder's record X stale, then R1 reclaimed it and published its own live
   * record Y. R2's removal, conditioned on the bytes of X, finds Y and leaves it.
   */
  @Test
  void aStaleJudgementNeverRemovesTheLiveRecordThatReplacedIt() throws Exception {
    deadHolderRecord();
    LockFile file = LockFile.at(lockPath);
    LockReading.Present judged = (LockReading.Present) file.read();
    assertThat(HolderVerdict.judge(judged.record(), ProcessTable.system()).liveness())
        .isEqualTo(Liveness.DEAD);

    try (ProcessLock r1 = ProcessLock.acquire(dir, Duration.ZERO, "R1")) {
      byte[] live = Files.readAllBytes(lockPath);

      assertThat(file.removeIf(judged::sameBytes, Duration.ZERO)).isEqualTo(Removal.CHANGED);
      assertThat(file.replaceIf(judged::sameBytes,
          LockRecord.fresh(ProcessIdentity.current(), "R2"), Duration.ZERO))
          .isEqualTo(Removal.CHANGED);

      assertThat(Files.readAllBytes(lockPath)).isEqualTo(live);
      assertThat(LockRecord.parse(live)).isEqualTo(r1.record());
      assertThat(names()).containsExactly(".lock");
    }
    assertThat(names()).isEmpty();
  }

  /**
   * R2 of this JVM linked the dead record X and waits for the operating-system lock, which a child
   * process holds while stopped just before it replaces X with its own live record Y. When the child
   * goes on, R2 gets the lock on X's file and finds X's bytes in it, but the lockfile's name now
   * designates Y: R2 must leave Y alone.
   */
  @Test
  void aRemoverThatLostTheRaceForTheFileNeverRemovesItsSuccessor() throws Exception {
    byte[] dead = deadHolderRecord();
    try (ChildJvm child = ChildJvm.start(root)) {
      assertThat(child.ask("pause-next")).isEqualTo("ARMED");
      assertThat(child.ask("replace-if " + lockPath + " " + hex(dead) + " 30000"))
          .isEqualTo("PAUSED");

      Thread[] r2 = new Thread[1];
      CompletableFuture<Removal> removal = inThread("R2",
          () -> LockFile.at(lockPath).removeIf(bytes -> Arrays.equals(bytes, dead),
              BOUND.dividedBy(2)), r2);
      r2[0].start();
      String asidePrefix = ".lock.cryo-aside." + ProcessHandle.current().pid() + ".";
      TestProcesses.awaitCondition("R2 linked the file it judged", () -> {
        try {
          return names().stream().anyMatch(name -> name.startsWith(asidePrefix));
        } catch (IOException e) {
          throw new UncheckedIOException(e);
        }
      });
      assertThat(removal).as("R2 waits for the child's lock").isNotDone();

      assertThat(child.ask("resume")).isEqualTo(Removal.REMOVED.name());

      assertThat(resultOf(removal)).isEqualTo(Removal.CHANGED);
      LockRecord successor = LockRecord.parse(Files.readAllBytes(lockPath));
      assertThat(successor.holder()).isEqualTo("replacement");
      assertThat(successor.pid()).isEqualTo(child.pid());
      assertThat(HolderVerdict.judge(successor, ProcessTable.system()).liveness())
          .isEqualTo(Liveness.ALIVE);
      assertThat(names()).containsExactly(".lock");
    }
  }

  /**
   * A reclaimer in a child process stopped in its window keeps this JVM's reclaimer out: busy, the
   * file untouched. When the child goes on, the child alone holds the lock.
   */
  @Test
  void aReclaimerOfThisJvmCannotRemoveTheFileWhileAnotherProcessIsInItsWindow() throws Exception {
    byte[] dead = deadHolderRecord();
    Object deadInode = inode();
    try (ChildJvm child = ChildJvm.start(root)) {
      assertThat(child.ask("pause-next")).isEqualTo("ARMED");
      assertThat(child.ask("acquire " + dir)).isEqualTo("PAUSED");

      assertThat(LockFile.at(lockPath).removeIf(bytes -> Arrays.equals(bytes, dead),
          Duration.ofMillis(300))).isEqualTo(Removal.CONTENDED);
      assertThatThrownBy(() -> ProcessLock.acquire(dir, Duration.ZERO, "here"))
          .isInstanceOf(LockBusyException.class);
      assertThat(inode()).isEqualTo(deadInode);
      assertThat(Files.readAllBytes(lockPath)).isEqualTo(dead);

      assertThat(child.ask("resume")).isEqualTo("ACQUIRED");

      LockRecord winner = LockRecord.parse(Files.readAllBytes(lockPath));
      assertThat(winner.pid()).isEqualTo(child.pid());
      assertThat(winner.holder()).isEqualTo("child");
      assertThatThrownBy(() -> ProcessLock.acquire(dir, Duration.ZERO, "here"))
          .isInstanceOf(LockBusyException.class).hasMessageContaining("pid " + child.pid());
      assertThat(child.ask("release")).isEqualTo("RELEASED");
      assertThat(names()).isEmpty();
    }
  }

  private static String hex(byte[] bytes) {
    return HexFormat.of().formatHex(bytes);
  }

  /** A child JVM that performs lock operations on command, one line each, answering one line. */
  private static final class ChildJvm implements AutoCloseable {
    private final Process process;
    private final PrintWriter commands;
    private final BufferedReader answers;
    private final Path errors;

    private ChildJvm(Process process, Path errors) {
      this.process = process;
      this.errors = errors;
      this.commands = new PrintWriter(process.getOutputStream(), true, StandardCharsets.UTF_8);
      this.answers = new BufferedReader(
          new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
    }

    static ChildJvm start(Path logDirectory) throws IOException {
      Path errors = Files.createTempFile(logDirectory, "child", ".err");
      Process process = new ProcessBuilder(
          Path.of(System.getProperty("java.home"), "bin", "java").toString(),
          "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-Xshare:auto",
          "-cp", System.getProperty("java.class.path"),
          Child.class.getName())
          .redirectError(errors.toFile())
          .start();
      ChildJvm child = new ChildJvm(process, errors);
      assertThat(child.ask("hello")).isEqualTo("READY");
      return child;
    }

    long pid() {
      return process.pid();
    }

    String ask(String command) throws IOException {
      commands.println(command);
      String answer = answers.readLine();
      if (answer == null) {
        throw new AssertionError("the child ended without answering '" + command + "': "
            + Files.readString(errors));
      }
      return answer;
    }

    @Override
    public void close() {
      commands.println("exit");
      commands.close();
      try {
        if (!process.waitFor(BOUND.toSeconds(), TimeUnit.SECONDS)) {
          TestProcesses.reap(process);
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        TestProcesses.reap(process);
      }
    }
  }

  /** The child's side: reads commands from its standard input, answers on its standard output. */
  static final class Child {
    private Child() {}

    public static void main(String[] args) throws Exception {
      BufferedReader in =
          new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
      PrintWriter out = new PrintWriter(System.out, true, StandardCharsets.UTF_8);
      ProcessLock held = null;
      for (String line = in.readLine(); line != null; line = in.readLine()) {
        String[] words = line.split(" ");
        switch (words[0]) {
          case "hello" -> out.println("READY");
          case "pause-next" -> {
            LockFile.removalProbe = new LockFile.RemovalProbe() {
              private boolean used;

              @Override
              public void beforeUnlink(Path lockFile) {
                if (used) {
                  return;
                }
                used = true;
                out.println("PAUSED");
                try {
                  String resume = in.readLine();
                  if (!"resume".equals(resume)) {
                    throw new IllegalStateException("expected resume, got " + resume);
                  }
                } catch (IOException e) {
                  throw new UncheckedIOException(e);
                }
              }
            };
            out.println("ARMED");
          }
          case "remove-if" -> {
            byte[] expected = HexFormat.of().parseHex(words[2]);
            out.println(LockFile.at(Path.of(words[1]))
                .removeIf(bytes -> Arrays.equals(bytes, expected),
                    Duration.ofMillis(Long.parseLong(words[3]))));
          }
          case "replace-if" -> {
            byte[] expected = HexFormat.of().parseHex(words[2]);
            out.println(LockFile.at(Path.of(words[1]))
                .replaceIf(bytes -> Arrays.equals(bytes, expected),
                    LockRecord.fresh(ProcessIdentity.current(), "replacement"),
                    Duration.ofMillis(Long.parseLong(words[3]))));
          }
          case "acquire" -> {
            try {
              held = ProcessLock.acquire(Path.of(words[1]), Duration.ZERO, "child");
              out.println("ACQUIRED");
            } catch (LockBusyException e) {
              out.println("BUSY " + e.getMessage());
            } catch (LockException e) {
              out.println("REFUSED " + e.reason().code() + " " + e.getMessage());
            }
          }
          case "release" -> {
            held.close();
            held = null;
            out.println("RELEASED");
          }
          case "exit" -> {
            return;
          }
          default -> out.println("UNKNOWN " + line);
        }
      }
    }
  }
}
