package dev.cryo.lock;

import static dev.cryo.lock.TestProcesses.localRecord;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import dev.cryo.lock.LockException.Reason;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class FolderSemaphoreTest {

  private static final long SELF = ProcessHandle.current().pid();

  @TempDir Path root;

  private Path folder() {
    return root.resolve("users").resolve("u-42");
  }

  private Path lockPath() {
    return folder().resolve(FolderSemaphore.FILE_NAME);
  }

  private List<String> names(Path directory) throws IOException {
    try (Stream<Path> entries = Files.list(directory)) {
      return entries.map(entry -> entry.getFileName().toString()).sorted().toList();
    }
  }

  @Test
  void tryTakeCreatesAPrivateFolderAndARecordNamingTheHolder() throws Exception {
    assertThat(FolderSemaphore.tryTake(folder(), "freeze u-42")).isTrue();

    assertThat(Files.getPosixFilePermissions(folder(), LinkOption.NOFOLLOW_LINKS))
        .isEqualTo(PosixFilePermissions.fromString("rwx------"));
    assertThat(Files.getPosixFilePermissions(lockPath(), LinkOption.NOFOLLOW_LINKS))
        .isEqualTo(PosixFilePermissions.fromString("rw-------"));
    LockRecord record = LockRecord.parse(Files.readAllBytes(lockPath()));
    assertThat(record.holder()).isEqualTo("freeze u-42");
    assertThat(record.pid()).isEqualTo(SELF);
    assertThat(record.token()).isNotNull();
    assertThat(FolderSemaphore.holder(folder())).contains(record);
    assertThat(names(folder())).containsExactly(".lock");
  }

  @Test
  void aTakenSemaphoreIsNotTakenAgainNotEvenByTheSameHolder() throws Exception {
    assertThat(FolderSemaphore.tryTake(folder(), "first")).isTrue();
    byte[] first = Files.readAllBytes(lockPath());

    assertThat(FolderSemaphore.tryTake(folder(), "second")).isFalse();
    assertThat(FolderSemaphore.tryTake(folder(), "first")).isFalse();

    assertThat(Files.readAllBytes(lockPath())).isEqualTo(first);
  }

  @Test
  void aReleaseByAnotherHolderIsRefusedNamingTheCurrentOneAndTheLockStays() throws Exception {
    FolderSemaphore.tryTake(folder(), "wake u-42");
    byte[] taken = Files.readAllBytes(lockPath());

    assertThatThrownBy(() -> FolderSemaphore.release(folder(), "sweep"))
        .isInstanceOfSatisfying(LockValidationException.class, e -> {
          assertThat(e.reason()).isEqualTo(Reason.HOLDER_MISMATCH);
          assertThat(e.lockFile()).isEqualTo(lockPath());
        })
        .hasMessageContaining("'sweep'").hasMessageContaining("\"wake u-42\"")
        .hasMessageContaining("pid " + SELF);

    assertThat(Files.readAllBytes(lockPath())).isEqualTo(taken);
    FolderSemaphore.release(folder(), "wake u-42");
    assertThat(folder()).doesNotExist();
  }

  @Test
  void theSameHolderNameInAnotherProcessIsAMismatch() throws Exception {
    Files.createDirectories(folder());
    LockRecord foreign = localRecord(1, TestProcesses.startTicks(1), "wake u-42");
    Files.write(lockPath(), foreign.toBytes());

    assertThatThrownBy(() -> FolderSemaphore.release(folder(), "wake u-42"))
        .isInstanceOfSatisfying(LockValidationException.class,
            e -> assertThat(e.reason()).isEqualTo(Reason.HOLDER_MISMATCH))
        .hasMessageContaining("pid 1 ");
    assertThat(Files.readAllBytes(lockPath())).isEqualTo(foreign.toBytes());
  }

  @Test
  void releasingAFreeSemaphoreIsAMismatch() throws Exception {
    Files.createDirectories(folder());

    assertThatThrownBy(() -> FolderSemaphore.release(folder(), "anyone"))
        .isInstanceOfSatisfying(LockValidationException.class,
            e -> assertThat(e.reason()).isEqualTo(Reason.HOLDER_MISMATCH))
        .hasMessageContaining("absent");
    assertThat(folder()).isDirectory();
  }

  @Test
  void releaseRemovesTheFolderWhenTheLockWasAllThatWasLeft() throws Exception {
    FolderSemaphore.tryTake(folder(), "freeze");

    FolderSemaphore.release(folder(), "freeze");

    assertThat(folder()).doesNotExist();
    assertThat(folder().getParent()).isDirectory();
    assertThat(FolderSemaphore.holder(folder())).isEmpty();
  }

  @Test
  void releaseKeepsTheFolderWhileAParcelIsInIt() throws Exception {
    FolderSemaphore.tryTake(folder(), "freeze");
    Files.writeString(folder().resolve("user.parcel"), "state");

    FolderSemaphore.release(folder(), "freeze");

    assertThat(names(folder())).containsExactly("user.parcel");
    assertThat(FolderSemaphore.holder(folder())).isEmpty();
  }

  @Test
  void aHolderNameIsComparedAsItWasWritten() throws Exception {
    String unruly = "freeze\nu-42 " + "x".repeat(LockRecord.MAX_HOLDER_LENGTH);
    assertThat(FolderSemaphore.tryTake(folder(), unruly)).isTrue();
    assertThat(FolderSemaphore.holder(folder()).orElseThrow().holder())
        .startsWith("freeze?u-42 x").hasSize(LockRecord.MAX_HOLDER_LENGTH);

    FolderSemaphore.release(folder(), unruly);

    assertThat(folder()).doesNotExist();
  }

  @Test
  void holderSaysWhoHoldsIt() throws Exception {
    assertThat(FolderSemaphore.holder(folder())).as("no folder at all").isEmpty();
    Files.createDirectories(folder());
    assertThat(FolderSemaphore.holder(folder())).as("a folder without lock").isEmpty();

    FolderSemaphore.tryTake(folder(), "wake");

    assertThat(FolderSemaphore.holder(folder())).hasValueSatisfying(record -> {
      assertThat(record.holder()).isEqualTo("wake");
      assertThat(record.pid()).isEqualTo(SELF);
    });
  }

  @Test
  void holderOfSomethingThatIsNotARecordSaysWhatIsThere() throws Exception {
    Files.createDirectories(folder());
    Files.writeString(lockPath(), "garbage");
    assertThatThrownBy(() -> FolderSemaphore.holder(folder()))
        .isInstanceOfSatisfying(LockValidationException.class,
            e -> assertThat(e.reason()).isEqualTo(Reason.MALFORMED_RECORD))
        .hasMessageContaining("does not parse");

    Files.delete(lockPath());
    Files.createSymbolicLink(lockPath(), root);
    assertThatThrownBy(() -> FolderSemaphore.holder(folder()))
        .isInstanceOfSatisfying(LockValidationException.class,
            e -> assertThat(e.reason()).isEqualTo(Reason.NOT_A_REGULAR_FILE))
        .hasMessageContaining("a symbolic link");
  }

  @Test
  void aSymbolicLinkPlantedAsTheFolderIsRefusedAndNeverFollowed() throws Exception {
    Path elsewhere = Files.createDirectory(root.resolve("elsewhere"));
    Files.createDirectories(folder().getParent());
    Files.createSymbolicLink(folder(), elsewhere);
    assertThatThrownBy(() -> FolderSemaphore.tryTake(folder(), "freeze"))
        .isInstanceOfSatisfying(LockValidationException.class,
            e -> assertThat(e.reason()).isEqualTo(Reason.NOT_A_DIRECTORY))
        .hasMessageContaining("a symbolic link").hasMessageContaining("not followed");
    assertThat(elsewhere).isEmptyDirectory();

    Files.delete(folder());
    Files.createSymbolicLink(folder(), root.resolve("nowhere"));
    assertThatThrownBy(() -> FolderSemaphore.tryTake(folder(), "freeze"))
        .isInstanceOfSatisfying(LockValidationException.class,
            e -> assertThat(e.reason()).isEqualTo(Reason.NOT_A_DIRECTORY))
        .hasMessageContaining("a symbolic link");
    assertThat(root.resolve("nowhere")).doesNotExist();
  }

  @Test
  void aDeadHoldersSemaphoreIsReclaimedWithinTheSingleTry() throws Exception {
    Files.createDirectories(folder());
    Files.write(lockPath(), localRecord(TestProcesses.reapedPid(), 7, "crashed").toBytes());

    assertThat(FolderSemaphore.tryTake(folder(), "heir")).isTrue();

    assertThat(FolderSemaphore.holder(folder()).orElseThrow().holder()).isEqualTo("heir");
  }

  @Test
  void aFolderRemovedDuringTheTakeIsMadeAgain() throws Exception {
    Files.createDirectories(folder());
    Files.write(lockPath(), localRecord(TestProcesses.reapedPid(), 7, "crashed").toBytes());
    LockFile.RemovalProbe saved = LockFile.removalProbe;
    AtomicInteger removals = new AtomicInteger();
    LockFile.removalProbe = lockFile -> {
      if (removals.getAndIncrement() > 0) {
        return;
      }
      // Another operation releases the folder's last content and the folder with it, just as
      // this take reclaims the dead holder's lock.
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
      assertThat(FolderSemaphore.tryTake(folder(), "heir")).isTrue();
    } finally {
      LockFile.removalProbe = saved;
    }

    assertThat(removals).hasValue(1);
    assertThat(FolderSemaphore.holder(folder()).orElseThrow().holder()).isEqualTo("heir");
    assertThat(Files.getPosixFilePermissions(folder()))
        .isEqualTo(PosixFilePermissions.fromString("rwx------"));
  }

  @Test
  void aMalformedRecordIsReclaimedOnlyAfterItsGrace() throws Exception {
    Files.createDirectories(folder());
    Files.writeString(lockPath(), "");

    assertThat(FolderSemaphore.tryTake(folder(), "early")).isFalse();
    assertThat(Files.size(lockPath())).isZero();

    Files.setLastModifiedTime(lockPath(),
        FileTime.from(Instant.now().minus(ProcessLock.MALFORMED_GRACE).minusSeconds(1)));
    assertThat(FolderSemaphore.tryTake(folder(), "late")).isTrue();
    assertThat(FolderSemaphore.holder(folder()).orElseThrow().holder()).isEqualTo("late");
  }

  @Test
  void aHolderOnAnotherHostKeepsIt() throws Exception {
    Files.createDirectories(folder());
    byte[] remote = new LockRecord(TestProcesses.reapedPid(), 5, "another-boot",
        "elsewhere.invalid", "remote", null, Instant.now(), 0, -1).toBytes();
    Files.write(lockPath(), remote);

    assertThat(FolderSemaphore.tryTake(folder(), "local")).isFalse();

    assertThat(Files.readAllBytes(lockPath())).isEqualTo(remote);
  }

  @Test
  void somethingThatIsNotARegularFileIsRefusedWithoutBlocking() throws Exception {
    Files.createDirectories(folder());
    LockFileTest.mkfifo(lockPath());

    LockException refusal = assertTimeoutPreemptively(Duration.ofSeconds(10), () -> {
      try {
        FolderSemaphore.tryTake(folder(), "freeze");
        return null;
      } catch (LockException e) {
        return e;
      }
    });

    assertThat(refusal).isInstanceOf(LockValidationException.class)
        .hasMessageContaining("a FIFO");
    assertThat(refusal.reason()).isEqualTo(Reason.NOT_A_REGULAR_FILE);
    assertThat(names(folder())).containsExactly(".lock");
  }

  @Test
  void aFolderPathThatIsAFileIsRefused() throws Exception {
    Files.createDirectories(folder().getParent());
    Files.writeString(folder(), "not a folder");

    assertThatThrownBy(() -> FolderSemaphore.tryTake(folder(), "freeze"))
        .isInstanceOfSatisfying(LockValidationException.class,
            e -> assertThat(e.reason()).isEqualTo(Reason.NOT_A_DIRECTORY));
    assertThat(Files.readString(folder())).isEqualTo("not a folder");
  }

  @Test
  void anExistingFolderKeepsItsModeAndContent() throws Exception {
    Files.createDirectories(folder());
    Files.setPosixFilePermissions(folder(), PosixFilePermissions.fromString("rwxr-x---"));
    Files.writeString(folder().resolve("user.parcel"), "state");

    assertThat(FolderSemaphore.tryTake(folder(), "wake")).isTrue();

    assertThat(Files.getPosixFilePermissions(folder()))
        .isEqualTo(PosixFilePermissions.fromString("rwxr-x---"));
    assertThat(names(folder())).containsExactly(".lock", "user.parcel");
  }
}
