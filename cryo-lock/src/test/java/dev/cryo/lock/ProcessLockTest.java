package dev.cryo.lock;

import static dev.cryo.lock.TestProcesses.BOUND;
import static dev.cryo.lock.TestProcesses.localRecord;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assumptions.assumeThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import dev.cryo.lock.LockException.Reason;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ProcessLockTest {

  private static final long SELF = ProcessHandle.current().pid();

  @TempDir Path root;
  private Path dir;

  @BeforeEach
  void makeLockDirectory() throws IOException {
    dir = Files.createDirectory(root.resolve("run"));
  }

  private Path lockPath() {
    return dir.resolve(ProcessLock.FILE_NAME);
  }

  private List<String> names(Path directory) throws IOException {
    try (Stream<Path> entries = Files.list(directory)) {
      return entries.map(entry -> entry.getFileName().toString()).sorted().toList();
    }
  }

  /** Acquires in a new thread (a different slot owner), returning what it got. */
  private static CompletableFuture<ProcessLock> acquireInAnotherThread(Path directory,
      Duration wait, String holder) {
    CompletableFuture<ProcessLock> result = new CompletableFuture<>();
    Thread thread = new Thread(() -> {
      try {
        result.complete(ProcessLock.acquire(directory, wait, holder));
      } catch (Throwable e) {
        result.completeExceptionally(e);
      }
    }, "other-" + holder);
    thread.start();
    return result;
  }

  private static Throwable failureOf(CompletableFuture<?> future) throws Exception {
    try {
      Object value = future.get(BOUND.toSeconds(), TimeUnit.SECONDS);
      throw new AssertionError("expected a refusal, got " + value);
    } catch (java.util.concurrent.ExecutionException e) {
      return e.getCause();
    }
  }

  /** A live record that is not this JVM's: pid 1 with its own start. */
  private static LockRecord foreignLiveRecord() throws IOException {
    return localRecord(1, TestProcesses.startTicks(1), "foreign");
  }

  @Test
  void aLockIsAPrivateRecordThatReleaseRemoves() throws Exception {
    ProcessLock lock = ProcessLock.acquire(dir, Duration.ZERO, "unit\ntest");

    assertThat(lock.lockFile()).isEqualTo(dir.toRealPath().resolve(".lock"));
    assertThat(Files.getPosixFilePermissions(lockPath(), LinkOption.NOFOLLOW_LINKS))
        .isEqualTo(PosixFilePermissions.fromString("rw-------"));
    LockRecord onDisk = LockRecord.parse(Files.readAllBytes(lockPath()));
    assertThat(onDisk).isEqualTo(lock.record());
    assertThat(onDisk.pid()).isEqualTo(SELF);
    assertThat(onDisk.holder()).isEqualTo("unit?test");
    assertThat(onDisk.start()).isEqualTo(TestProcesses.startTicks(SELF));
    assertThat(ProcessLock.heldRecord(lock.lockFile())).isEqualTo(onDisk);
    assertThat(lock.isOpen()).isTrue();

    lock.close();

    assertThat(lock.isOpen()).isFalse();
    assertThat(names(dir)).isEmpty();
    assertThat(ProcessLock.heldRecord(lock.lockFile())).isNull();
  }

  @Test
  void theDefaultHolderNamesThisProcessAndThread() throws Exception {
    try (ProcessLock lock = ProcessLock.acquire(dir, Duration.ZERO)) {
      assertThat(lock.record().holder())
          .isEqualTo("java pid " + SELF + " thread " + Thread.currentThread().getName());
    }
  }

  @Test
  void aMissingDirectoryIsRefusedAndNotCreated() {
    Path missing = root.resolve("missing");

    assertThatThrownBy(() -> ProcessLock.acquire(missing, Duration.ofSeconds(5)))
        .isInstanceOfSatisfying(LockValidationException.class, e -> {
          assertThat(e.reason()).isEqualTo(Reason.DIRECTORY_MISSING);
          assertThat(e.isRetryable()).isFalse();
          assertThat(e.lockFile()).isEqualTo(missing.resolve(".lock"));
        })
        .hasMessageContaining("does not exist").hasMessageContaining("nothing was created");
    assertThat(missing).doesNotExist();
  }

  @Test
  void aFileIsNotADirectory() throws Exception {
    Path file = Files.writeString(root.resolve("file"), "data");

    assertThatThrownBy(() -> ProcessLock.acquire(file, Duration.ofSeconds(5)))
        .isInstanceOfSatisfying(LockValidationException.class,
            e -> assertThat(e.reason()).isEqualTo(Reason.NOT_A_DIRECTORY))
        .hasMessageContaining("not a directory");
    assertThat(Files.readString(file)).isEqualTo("data");
  }

  @Test
  void aSymbolicLinkAtTheLockIsRefusedNeverFollowedAndUntouched() throws Exception {
    Path victim = Files.writeString(root.resolve("victim"), "precious");
    Files.createSymbolicLink(lockPath(), victim);

    assertThatThrownBy(() -> ProcessLock.acquire(dir, Duration.ofSeconds(5)))
        .isInstanceOfSatisfying(LockValidationException.class,
            e -> assertThat(e.reason()).isEqualTo(Reason.NOT_A_REGULAR_FILE))
        .hasMessageContaining("a symbolic link");

    assertThat(Files.readSymbolicLink(lockPath())).isEqualTo(victim);
    assertThat(Files.readString(victim)).isEqualTo("precious");
    assertThat(names(dir)).containsExactly(".lock");
    Files.delete(lockPath());
    try (ProcessLock lock = ProcessLock.acquire(dir, Duration.ZERO)) {
      assertThat(lock.record().pid()).as("the refusal freed the slot").isEqualTo(SELF);
    }
  }

  @Test
  void aFifoAtTheLockIsRefusedWithoutBlocking() throws Exception {
    LockFileTest.mkfifo(lockPath());

    Throwable refusal = assertTimeoutPreemptively(Duration.ofSeconds(10), () -> {
      try {
        ProcessLock.acquire(dir, Duration.ofSeconds(5)).close();
        return null;
      } catch (LockException e) {
        return e;
      }
    });

    assertThat(refusal).isInstanceOfSatisfying(LockValidationException.class,
        e -> assertThat(e.reason()).isEqualTo(Reason.NOT_A_REGULAR_FILE))
        .hasMessageContaining("a FIFO");
    assertThat(((Integer) Files.getAttribute(lockPath(), "unix:mode", LinkOption.NOFOLLOW_LINKS))
        & 0170000).isEqualTo(0010000);
    assertThat(names(dir)).containsExactly(".lock");
  }

  @Test
  void aDirectoryAtTheLockIsRefusedAndUntouched() throws Exception {
    Files.createDirectory(lockPath());
    Files.writeString(lockPath().resolve("inside"), "kept");

    assertThatThrownBy(() -> ProcessLock.acquire(dir, Duration.ofSeconds(5)))
        .isInstanceOfSatisfying(LockValidationException.class,
            e -> assertThat(e.reason()).isEqualTo(Reason.NOT_A_REGULAR_FILE))
        .hasMessageContaining("a directory");
    assertThat(names(lockPath())).containsExactly("inside");
    assertThat(names(dir)).containsExactly(".lock");
  }

  @Test
  void theSameThreadReentersAndTheFileOutlivesInnerReleases() throws Exception {
    ProcessLock outer = ProcessLock.acquire(dir, Duration.ZERO, "outer");
    ProcessLock middle = ProcessLock.acquire(dir, Duration.ZERO, "middle");
    ProcessLock inner = ProcessLock.acquire(dir, Duration.ZERO, "inner");
    byte[] written = Files.readAllBytes(lockPath());

    assertThat(middle.record()).isEqualTo(outer.record());
    assertThat(inner.record()).isEqualTo(outer.record());
    assertThat(outer.record().holder()).isEqualTo("outer");

    inner.close();
    assertThat(Files.readAllBytes(lockPath())).isEqualTo(written);
    outer.close();
    assertThat(Files.readAllBytes(lockPath()))
        .as("handles count, whichever is closed first").isEqualTo(written);
    middle.close();
    assertThat(names(dir)).isEmpty();
  }

  @Test
  void closeIsIdempotentAndAClosedHandleCountsOnce() throws Exception {
    ProcessLock outer = ProcessLock.acquire(dir, Duration.ZERO);
    ProcessLock inner = ProcessLock.acquire(dir, Duration.ZERO);
    String firstToken = outer.record().token();

    inner.close();
    inner.close();
    assertThat(lockPath()).exists();
    outer.close();
    outer.close();
    inner.close();

    assertThat(names(dir)).isEmpty();
    assertThat(outer.isOpen()).isFalse();
    try (ProcessLock again = ProcessLock.acquire(dir, Duration.ZERO)) {
      assertThat(again.record().token()).isNotEqualTo(firstToken);
      assertThat(lockPath()).exists();
      outer.close();
      inner.close();
      assertThat(lockPath()).as("a stale handle does not release a later acquisition").exists();
    }
  }

  @Test
  void reentryIntoARecordReplacedByAForeignOneIsBusy() throws Exception {
    LockRecord foreign = foreignLiveRecord();
    try (ProcessLock outer = ProcessLock.acquire(dir, Duration.ZERO)) {
      try (ProcessLock control = ProcessLock.acquire(dir, Duration.ZERO)) {
        assertThat(control.record()).isEqualTo(outer.record());
      }
      Publication.replace(lockPath(), foreign.toBytes(), Publication.Durability.VOLATILE);

      assertThatThrownBy(() -> ProcessLock.acquire(dir, Duration.ofSeconds(5)))
          .isInstanceOfSatisfying(LockBusyException.class,
              e -> assertThat(e.holder()).contains(foreign))
          .hasMessageContaining("pid 1").hasMessageContaining("re-entry refused");
    }
    assertThat(Files.readAllBytes(lockPath())).as("the foreign record is left on disk")
        .isEqualTo(foreign.toBytes());
  }

  @Test
  void reentryWhenTheFileVanishedIsLockLost() throws Exception {
    ProcessLock outer = ProcessLock.acquire(dir, Duration.ZERO);
    Files.delete(lockPath());

    assertThatThrownBy(() -> ProcessLock.acquire(dir, Duration.ofSeconds(5)))
        .isInstanceOfSatisfying(LockValidationException.class,
            e -> assertThat(e.reason()).isEqualTo(Reason.LOCK_LOST))
        .hasMessageContaining("absent");

    outer.close();
    assertThat(names(dir)).isEmpty();
    try (ProcessLock again = ProcessLock.acquire(dir, Duration.ZERO)) {
      assertThat(LockRecord.parse(Files.readAllBytes(lockPath()))).isEqualTo(again.record());
    }
  }

  @Test
  void closeLeavesAForeignRecordAndFreesTheSlot() throws Exception {
    LockRecord foreign = foreignLiveRecord();
    ProcessLock lock = ProcessLock.acquire(dir, Duration.ZERO);
    Publication.replace(lockPath(), foreign.toBytes(), Publication.Durability.VOLATILE);

    lock.close();

    assertThat(lock.isOpen()).isFalse();
    assertThat(Files.readAllBytes(lockPath())).isEqualTo(foreign.toBytes());
    assertThat(ProcessLock.heldRecord(lock.lockFile())).isNull();
    Throwable busy = failureOf(acquireInAnotherThread(dir, Duration.ZERO, "after"));
    assertThat(busy).isInstanceOf(LockBusyException.class)
        .as("busy because of the file, not because of a thread of this process")
        .hasMessageNotContaining("of this process").hasMessageContaining("pid 1 ");
    assertThatThrownBy(() -> ProcessLock.acquire(dir, Duration.ZERO))
        .as("no re-entry into a released slot").isInstanceOf(LockBusyException.class)
        .hasMessageNotContaining("re-entry");
    Files.delete(lockPath());
    try (ProcessLock again = acquireInAnotherThread(dir, Duration.ZERO, "again")
        .get(BOUND.toSeconds(), TimeUnit.SECONDS)) {
      assertThat(again.record().holder()).isEqualTo("again");
    }
  }

  @Test
  void closeLeavesADirectoryThatReplacedTheLockAndFreesTheSlot() throws Exception {
    ProcessLock lock = ProcessLock.acquire(dir, Duration.ZERO);
    Files.delete(lockPath());
    Files.createDirectory(lockPath());
    Files.writeString(lockPath().resolve("inside"), "kept");

    lock.close();

    assertThat(lock.isOpen()).isFalse();
    assertThat(ProcessLock.heldRecord(lock.lockFile())).isNull();
    assertThat(names(lockPath())).containsExactly("inside");
    assertThat(names(dir)).containsExactly(".lock");
  }

  @Test
  void shareWithNamesACompanionInTheSameAcquisition() throws Exception {
    Process child = TestProcesses.sleeper();
    try (ProcessLock lock = ProcessLock.acquire(dir, Duration.ZERO, "runner")) {
      String token = lock.record().token();

      lock.shareWith(child.toHandle());

      LockRecord onDisk = LockRecord.parse(Files.readAllBytes(lockPath()));
      assertThat(onDisk).isEqualTo(lock.record());
      assertThat(onDisk.token()).isEqualTo(token);
      assertThat(onDisk.companionPid()).isEqualTo(child.pid());
      assertThat(onDisk.companionStart()).isEqualTo(TestProcesses.startTicks(child.pid()));
      try (ProcessLock reentered = ProcessLock.acquire(dir, Duration.ZERO)) {
        assertThat(reentered.record()).isEqualTo(onDisk);
      }
      assertThat(names(dir)).containsExactly(".lock");
    } finally {
      TestProcesses.reap(child);
    }
    assertThat(names(dir)).isEmpty();
  }

  @Test
  void shareWithAProcessThatIsAlreadyGoneLeavesTheRecordAsItIs() throws Exception {
    Process child = TestProcesses.sleeper();
    ProcessHandle gone = child.toHandle();
    TestProcesses.reap(child);
    try (ProcessLock lock = ProcessLock.acquire(dir, Duration.ZERO)) {
      lock.shareWith(gone);

      assertThat(LockFile.at(lockPath()).read()).isInstanceOfSatisfying(
          LockReading.Present.class, present -> {
            assertThat(present.record().companionPid()).isZero();
            assertThat(present.record()).isEqualTo(lock.record());
          });
      try (ProcessLock reentered = ProcessLock.acquire(dir, Duration.ZERO)) {
        assertThat(reentered.record()).isEqualTo(lock.record());
      }
    }
    assertThat(names(dir)).isEmpty();
  }

  @Test
  void shareWithRefusesWhenTheRecordIsNoLongerOurs() throws Exception {
    LockRecord foreign = foreignLiveRecord();
    try (ProcessLock lock = ProcessLock.acquire(dir, Duration.ZERO)) {
      Publication.replace(lockPath(), foreign.toBytes(), Publication.Durability.VOLATILE);

      assertThatThrownBy(() -> lock.shareWith(ProcessHandle.current()))
          .isInstanceOfSatisfying(LockValidationException.class,
              e -> assertThat(e.reason()).isEqualTo(Reason.LOCK_LOST))
          .hasMessageContaining("no longer ours");

      assertThat(Files.readAllBytes(lockPath())).isEqualTo(foreign.toBytes());
    }
    assertThat(Files.readAllBytes(lockPath())).isEqualTo(foreign.toBytes());
  }

  @Test
  void anotherThreadWaitsThenIsToldThisProcessHoldsIt() throws Exception {
    try (ProcessLock lock = ProcessLock.acquire(dir, Duration.ZERO, "owner")) {
      Duration wait = Duration.ofMillis(300);
      long start = System.nanoTime();

      Throwable busy = failureOf(acquireInAnotherThread(dir, wait, "waiter"));

      assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(wait);
      assertThat(busy).isInstanceOfSatisfying(LockBusyException.class, e -> {
        assertThat(e.holder()).contains(lock.record());
        assertThat(e.isRetryable()).isTrue();
        assertThat(e.reason()).isEqualTo(Reason.BUSY);
        assertThat(e.lockFile()).isEqualTo(lock.lockFile());
      }).hasMessageContaining("pid " + SELF).hasMessageContaining("\"owner\"")
          .hasMessageContaining("of this process");
      assertThat(LockRecord.parse(Files.readAllBytes(lockPath()))).isEqualTo(lock.record());
    }
  }

  @Test
  void aWaiterGetsTheLockAsSoonAsTheOwnerReleases() throws Exception {
    ProcessLock lock = ProcessLock.acquire(dir, Duration.ZERO, "owner");
    Thread[] waiterThread = new Thread[1];
    CompletableFuture<ProcessLock> waiter = new CompletableFuture<>();
    waiterThread[0] = new Thread(() -> {
      try {
        waiter.complete(ProcessLock.acquire(dir, Duration.ofMinutes(5), "waiter"));
      } catch (Throwable e) {
        waiter.completeExceptionally(e);
      }
    }, "waiter");
    waiterThread[0].start();
    TestProcesses.awaitParkedOrDone(waiterThread[0]);
    assertThat(waiter).isNotDone();
    assertThat(waiterThread[0].getState()).as("parked, not spinning")
        .isEqualTo(Thread.State.TIMED_WAITING);

    long released = System.nanoTime();
    lock.close();
    try (ProcessLock got = waiter.get(BOUND.toSeconds(), TimeUnit.SECONDS)) {
      assertThat(Duration.ofNanos(System.nanoTime() - released))
          .as("woken by the release, not by its deadline").isLessThan(Duration.ofSeconds(20));
      assertThat(got.record().holder()).isEqualTo("waiter");
      assertThat(LockRecord.parse(Files.readAllBytes(lockPath()))).isEqualTo(got.record());
    }
  }

  /**
   * Woken by the file-change notification, not by a nap: the waiter naps up to ten minutes between
   * looks, so with the notification dead it is still asleep at {@link TestProcesses#BOUND}.
   */
  @Test
  void aWaiterWakesWhenAnotherProcessRemovesItsRecord() throws Exception {
    try (ReleaseWatch watch = ReleaseWatch.on(dir)) {
      assertThat(watch.isNotified()).as("Linux has inotify").isTrue();
    }
    Files.write(lockPath(), foreignLiveRecord().toBytes());
    WatchSeam.napAtMost(Duration.ofMinutes(10));
    try {
      aWaiterWakesWhenTheRecordIsRemoved();
    } finally {
      WatchSeam.restore();
    }
  }

  private void aWaiterWakesWhenTheRecordIsRemoved() throws Exception {
    Thread[] waiterThread = new Thread[1];
    CompletableFuture<ProcessLock> waiter = new CompletableFuture<>();
    waiterThread[0] = new Thread(() -> {
      try {
        waiter.complete(ProcessLock.acquire(dir, Duration.ofMinutes(5), "waiter"));
      } catch (Throwable e) {
        waiter.completeExceptionally(e);
      }
    }, "waiter");
    waiterThread[0].start();
    TestProcesses.awaitParkedOrDone(waiterThread[0]);
    assertThat(waiter).isNotDone();

    Files.delete(lockPath());

    try (ProcessLock got = waiter.get(BOUND.toSeconds(), TimeUnit.SECONDS)) {
      assertThat(got.record().holder()).isEqualTo("waiter");
    }
  }

  @Test
  void everySpellingOfTheDirectorySharesOneSlot() throws Exception {
    Path alias = Files.createSymbolicLink(root.resolve("alias"), dir);
    Path dotted = dir.resolve("..").resolve("run");
    Path relative = Path.of("").toAbsolutePath().relativize(dir);

    try (ProcessLock lock = ProcessLock.acquire(dir, Duration.ZERO);
        ProcessLock viaDots = ProcessLock.acquire(dotted, Duration.ZERO);
        ProcessLock viaAlias = ProcessLock.acquire(alias, Duration.ZERO);
        ProcessLock viaRelative = ProcessLock.acquire(relative, Duration.ZERO)) {
      assertThat(List.of(viaDots.record(), viaAlias.record(), viaRelative.record()))
          .containsOnly(lock.record());
      assertThat(List.of(viaDots.lockFile(), viaAlias.lockFile(), viaRelative.lockFile()))
          .containsOnly(lock.lockFile());
      assertThat(failureOf(acquireInAnotherThread(alias, Duration.ZERO, "alias user")))
          .isInstanceOf(LockBusyException.class).hasMessageContaining("of this process");
    }
    assertThat(names(dir)).isEmpty();
  }

  @Test
  void aDeadHolderIsReclaimedEvenWithoutWaiting() throws Exception {
    long dead = TestProcesses.reapedPid();
    Files.write(lockPath(), localRecord(dead, 1234, "crashed").toBytes());

    try (ProcessLock lock = ProcessLock.acquire(dir, Duration.ZERO, "heir")) {
      assertThat(LockRecord.parse(Files.readAllBytes(lockPath()))).isEqualTo(lock.record());
      assertThat(names(dir)).containsExactly(".lock");
    }
  }

  @Test
  void aBarePidOfADeadProcessIsReclaimed() throws Exception {
    Files.writeString(lockPath(), TestProcesses.reapedPid() + "\n");

    try (ProcessLock lock = ProcessLock.acquire(dir, Duration.ZERO, "heir")) {
      assertThat(LockRecord.parse(Files.readAllBytes(lockPath()))).isEqualTo(lock.record());
    }
  }

  @Test
  void aReusedPidIsReclaimedAndTheLiveOwnerOfThePidIsBusy() throws Exception {
    Process child = TestProcesses.sleeper();
    try {
      long start = TestProcesses.startTicks(child.pid());
      Files.write(lockPath(), localRecord(child.pid(), start, "live child").toBytes());
      assertThatThrownBy(() -> ProcessLock.acquire(dir, Duration.ZERO))
          .isInstanceOf(LockBusyException.class).hasMessageContaining("pid " + child.pid());

      Files.write(lockPath(), localRecord(child.pid(), start + 3, "earlier owner").toBytes());
      try (ProcessLock lock = ProcessLock.acquire(dir, Duration.ZERO, "heir")) {
        assertThat(lock.record().holder()).isEqualTo("heir");
      }
    } finally {
      TestProcesses.reap(child);
    }
  }

  @Test
  void aHolderFromAnotherBootIsReclaimed() throws Exception {
    ProcessIdentity self = ProcessIdentity.current();
    Files.write(lockPath(), new LockRecord(self.pid(), self.start(), "an-earlier-boot",
        self.host(), "before reboot", null, Instant.now(), 0, -1).toBytes());

    try (ProcessLock lock = ProcessLock.acquire(dir, Duration.ZERO, "heir")) {
      assertThat(LockRecord.parse(Files.readAllBytes(lockPath()))).isEqualTo(lock.record());
    }
  }

  @Test
  void aHolderOnAnotherHostIsHeldUntilTheDeadline() throws Exception {
    byte[] remote = new LockRecord(TestProcesses.reapedPid(), 5, "another-boot",
        "elsewhere.invalid", "remote job", null, Instant.now(), 0, -1).toBytes();
    Files.write(lockPath(), remote);
    Duration wait = Duration.ofMillis(300);
    long start = System.nanoTime();

    assertThatThrownBy(() -> ProcessLock.acquire(dir, wait))
        .isInstanceOfSatisfying(LockBusyException.class,
            e -> assertThat(e.holder()).hasValueSatisfying(
                holder -> assertThat(holder.host()).isEqualTo("elsewhere.invalid")))
        .hasMessageContaining("on elsewhere.invalid").hasMessageContaining("\"remote job\"");

    assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(wait);
    assertThat(Files.readAllBytes(lockPath())).isEqualTo(remote);
  }

  @Test
  void aMalformedRecordIsRespectedDuringItsGraceAndReclaimedAfter() throws Exception {
    Files.writeString(lockPath(), "");

    assertThatThrownBy(() -> ProcessLock.acquire(dir, Duration.ZERO))
        .isInstanceOf(LockBusyException.class).hasMessageContaining("does not parse");
    assertThat(Files.size(lockPath())).isZero();

    Files.setLastModifiedTime(lockPath(),
        FileTime.from(Instant.now().minus(ProcessLock.MALFORMED_GRACE).minusSeconds(1)));
    try (ProcessLock lock = ProcessLock.acquire(dir, Duration.ZERO, "heir")) {
      assertThat(LockRecord.parse(Files.readAllBytes(lockPath()))).isEqualTo(lock.record());
    }
  }

  @Test
  void aWaiterReclaimsAMalformedRecordOnceItsGraceIsOver() throws Exception {
    Files.writeString(lockPath(), "half a rec");
    Instant modified = Files.getLastModifiedTime(lockPath()).toInstant();

    try (ProcessLock lock = ProcessLock.acquire(dir, Duration.ofSeconds(30), "patient")) {
      assertThat(Instant.now()).isAfterOrEqualTo(modified.plus(ProcessLock.MALFORMED_GRACE));
      assertThat(lock.record().holder()).isEqualTo("patient");
    }
  }

  @Test
  @SuppressWarnings("try") // the resource is the unreadable file itself
  void aRecordThatCannotBeReadIsHeld() throws Exception {
    try (Unreadable unreadable = Unreadable.at(lockPath())) {
      long size = Files.size(lockPath());
      FileTime modified = Files.getLastModifiedTime(lockPath());

      assertThatThrownBy(() -> ProcessLock.acquire(dir, Duration.ofMillis(200)))
          .isInstanceOfSatisfying(LockBusyException.class,
              e -> assertThat(e.holder()).isEmpty())
          .hasMessageContaining("cannot be read");

      assertThat(Files.size(lockPath())).isEqualTo(size);
      assertThat(Files.getLastModifiedTime(lockPath())).isEqualTo(modified);
    }
  }

  @Test
  void abandonedTemporariesAreCleanedByTheNextAcquirer() throws Exception {
    long dead = TestProcesses.reapedPid();
    Files.write(lockPath(), localRecord(dead, 99, "crashed").toBytes());
    Files.writeString(dir.resolve(".lock.cryo-tmp." + dead + ".0123456789abcdef"), "half");
    Files.writeString(dir.resolve(".lock.cryo-aside." + dead + ".0123456789abcdef"), "half");

    try (ProcessLock lock = ProcessLock.acquire(dir, Duration.ZERO)) {
      assertThat(names(dir)).containsExactly(".lock");
      assertThat(LockRecord.parse(Files.readAllBytes(lockPath()))).isEqualTo(lock.record());
    }
  }

  @Test
  void aDirectoryThatDisappearsDuringAcquisitionIsItsOwnRefusal() throws Exception {
    Files.write(lockPath(), localRecord(TestProcesses.reapedPid(), 1, "crashed").toBytes());
    LockFile.RemovalProbe saved = LockFile.removalProbe;
    LockFile.removalProbe = lockFile -> {
      try (Stream<Path> entries = Files.list(lockFile.getParent())) {
        for (Path entry : entries.toList()) {
          Files.delete(entry);
        }
        Files.delete(lockFile.getParent());
      } catch (IOException e) {
        throw new AssertionError(e);
      }
    };
    try {
      assertThatThrownBy(() -> ProcessLock.acquire(dir, Duration.ofSeconds(5)))
          .isInstanceOfSatisfying(LockValidationException.class,
              e -> assertThat(e.reason()).isEqualTo(Reason.DIRECTORY_DISAPPEARED))
          .hasMessageContaining("disappeared");
    } finally {
      LockFile.removalProbe = saved;
    }
    assertThat(dir).doesNotExist();
  }

  @Test
  void aReleaseTheFileSystemRefusesKeepsTheLockRegistered() throws Exception {
    assumeThat(chattr("+i", dir) && chattr("-i", dir)).as("chattr +i works here").isTrue();
    ProcessLock lock = ProcessLock.acquire(dir, Duration.ZERO);
    LockRecord record = lock.record();
    assertThat(chattr("+i", dir)).isTrue();
    try {
      assertThatThrownBy(lock::close)
          .isInstanceOfSatisfying(LockValidationException.class,
              e -> assertThat(e.reason()).isEqualTo(Reason.RELEASE_REFUSED))
          .hasMessageContaining("still held");

      assertThat(lock.isOpen()).isTrue();
      assertThat(ProcessLock.heldRecord(lock.lockFile())).isEqualTo(record);
      assertThat(LockRecord.parse(Files.readAllBytes(lockPath()))).isEqualTo(record);
      try (ProcessLock reentered = ProcessLock.acquire(dir, Duration.ZERO)) {
        assertThat(reentered.record()).isEqualTo(record);
      }
    } finally {
      chattr("-i", dir);
    }
    lock.close();
    assertThat(lock.isOpen()).isFalse();
    assertThat(names(dir)).isEmpty();
  }

  private static boolean chattr(String flag, Path path) throws Exception {
    try {
      Process chattr = new ProcessBuilder("chattr", flag, path.toString())
          .redirectErrorStream(true).start();
      chattr.getInputStream().readAllBytes();
      return chattr.waitFor(BOUND.toSeconds(), TimeUnit.SECONDS) && chattr.exitValue() == 0;
    } catch (IOException e) {
      return false;
    }
  }

  /**
   * A lockfile this process cannot read. Without privileges, mode 000 is enough. Root reads any
   * mode, so there the lockfile is a copy of {@code sleep}, running: the kernel refuses to open a
   * running executable for writing (ETXTBSY), and the reader's first open is read-write.
   */
  private static final class Unreadable implements AutoCloseable {
    private final Process running;

    private Unreadable(Process running) {
      this.running = running;
    }

    static Unreadable at(Path path) throws Exception {
      Files.write(path, LockRecord.fresh(ProcessIdentity.current(), "hidden")
          .toBytes());
      Files.setPosixFilePermissions(path, PosixFilePermissions.fromString("---------"));
      if (!canOpen(path)) {
        return new Unreadable(null);
      }
      Files.delete(path);
      Path sleep = Stream.of("/usr/bin/sleep", "/bin/sleep").map(Path::of)
          .filter(Files::isExecutable).findFirst().orElse(null);
      assumeThat(sleep).as("an executable to make a busy text file").isNotNull();
      Files.copy(sleep, path);
      Files.setPosixFilePermissions(path, PosixFilePermissions.fromString("rwx------"));
      Process running = new ProcessBuilder(path.toString(), "600").start();
      Unreadable unreadable = new Unreadable(running);
      try {
        TestProcesses.awaitCondition("the copy runs",
            () -> running.isAlive() && ProcessHandle.of(running.pid())
                .flatMap(handle -> handle.info().command())
                .filter(command -> command.endsWith("/.lock")).isPresent());
        assumeThat(canOpen(path)).as("this kernel refuses to write a running executable")
            .isFalse();
      } catch (RuntimeException | Error e) {
        unreadable.close();
        throw e;
      }
      return unreadable;
    }

    private static boolean canOpen(Path path) {
      try (FileChannel channel = FileChannel.open(path, StandardOpenOption.READ,
          StandardOpenOption.WRITE)) {
        return channel.isOpen();
      } catch (FileSystemException e) {
        return false;
      } catch (IOException e) {
        throw new AssertionError(e);
      }
    }

    @Override
    public void close() {
      if (running != null) {
        TestProcesses.reap(running);
      }
    }
  }
}
