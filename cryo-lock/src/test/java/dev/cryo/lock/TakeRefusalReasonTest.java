package dev.cryo.lock;

import static dev.cryo.lock.TestProcesses.localRecord;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.cryo.lock.LockException.Reason;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SecureDirectoryStream;
import java.nio.file.StandardCopyOption;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The refusals a take makes in the middle of its own file work keep their reason and their
 * message: a {@link LockException} is an {@link java.io.IOException}, and a publication's
 * {@code catch} of the file system's failures must not turn it into an
 * {@link Reason#IO_FAILURE} that tells the user to check permissions and free space. Callers act on
 * the reason: {@link FolderSemaphore#take} makes a folder that {@link Reason#DIRECTORY_DISAPPEARED
 * disappeared} again, answers {@code null} (busy: retry later) when its claim was taken by another
 * right after it, and gives every other refusal to the freezer's caller.
 *
 * <p>Each change is made for real at the exact step, through the publications' test seams
 * ({@link OwnLockfile#beforeLink}, {@link SparePublication#afterRename},
 * {@link Publication#afterLink}); each test also says what the take left on disk and that it left
 * no descriptor open (counted through {@code /proc/self/fd}).
 */
class TakeRefusalReasonTest {

  private static final long SELF = ProcessHandle.current().pid();

  @TempDir Path parent;

  @AfterEach
  void noSeams() {
    OwnLockfile.beforeLink = null;
    SparePublication.afterRename = null;
    Publication.afterLink = Publication.NO_SEAM;
  }

  @Test
  void aFolderRenamedAwayBeforeTheLinkIsRefusedAsDisappearedAndNothingIsLeft() throws Exception {
    Path folder = Files.createDirectory(parent.resolve("u-1"));
    Path moved = parent.resolve("moved");
    AtomicReference<Object> temporary = new AtomicReference<>();
    OwnLockfile.beforeLink = (lockFile, written) -> {
      temporary.set(witnessed(written));
      Files.move(folder, moved, StandardCopyOption.ATOMIC_MOVE);
    };
    NoFollowDirectory.Opened opened = NoFollowDirectory.openKeyed(folder);
    try (SecureDirectoryStream<Path> directory = opened.directory()) {
      LockRecord record = LockRecord.fresh(ProcessTable.system().current(), "h");
      assertThatThrownBy(() -> OwnLockfile.publish(folder, directory, opened.fileKey(), record))
          .isInstanceOfSatisfying(LockValidationException.class, e -> {
            assertThat(e.reason()).isEqualTo(Reason.DIRECTORY_DISAPPEARED);
            assertThat(e.lockFile()).isEqualTo(folder.resolve(FolderSemaphore.FILE_NAME));
          })
          .hasMessageContaining("the directory " + folder + " disappeared")
          .hasMessageContaining("nothing was left behind")
          .hasMessageNotContaining("free space");
    }
    assertThat(temporary.get()).as("the seam ran").isNotNull();
    assertThat(folder).doesNotExist();
    assertThat(names(moved)).as("the temporary removed, no lock linked").isEmpty();
    assertThat(Inodes.descriptors(temporary.get())).as("the temporary's descriptor").isZero();
  }

  @Test
  void aTakeWhoseFolderIsRenamedAwayBeforeTheLinkMakesTheFolderAgainAndTakesIt()
      throws Exception {
    Path folder = Files.createDirectory(parent.resolve("u-1"));
    Path moved = parent.resolve("moved");
    AtomicReference<Object> temporary = new AtomicReference<>();
    OwnLockfile.beforeLink = (lockFile, written) -> {
      OwnLockfile.beforeLink = null; // once: the take's second turn goes through
      temporary.set(witnessed(written));
      Files.move(folder, moved, StandardCopyOption.ATOMIC_MOVE);
    };

    SemaphoreHold hold = FolderSemaphore.take(folder, "h");

    assertThat(hold).as("the take, made again in a fresh folder").isNotNull();
    assertThat(FolderSemaphore.holder(folder)).contains(hold.record());
    assertThat(names(folder)).containsExactly(FolderSemaphore.FILE_NAME);
    assertThat(names(moved)).isEmpty();
    assertThat(Inodes.descriptors(temporary.get())).isZero();
    hold.release(false);
    assertThat(folder).doesNotExist();
  }

  @Test
  void aFolderReplacedBeforeTheLinkIsRefusedAsNotADirectoryAndTheRecordStaysWhereItLanded()
      throws Exception {
    Path folder = Files.createDirectory(parent.resolve("u-1"));
    Path moved = parent.resolve("moved");
    AtomicReference<Object> temporary = new AtomicReference<>();
    OwnLockfile.beforeLink = (lockFile, written) -> {
      // The folder swapped for a copy of itself (a restore, a sync): the link, made by path,
      // lands in the copy, not in the folder the take holds.
      temporary.set(witnessed(written));
      Files.move(folder, moved, StandardCopyOption.ATOMIC_MOVE);
      Files.createDirectory(folder);
      Files.copy(moved.resolve(written.getFileName()), written);
    };

    assertThatThrownBy(() -> FolderSemaphore.take(folder, "h"))
        .isInstanceOfSatisfying(LockValidationException.class,
            e -> assertThat(e.reason()).isEqualTo(Reason.NOT_A_DIRECTORY))
        .hasMessageContaining("the folder " + folder + " was replaced while its semaphore was"
            + " taken")
        .hasMessageContaining("nothing was taken")
        .hasMessageNotContaining("free space");

    assertThat(names(moved)).as("the folder held: its temporary removed, no lock").isEmpty();
    LockRecord left = LockRecord.parse(
        Files.readAllBytes(folder.resolve(FolderSemaphore.FILE_NAME)));
    assertThat(left.pid()).as("the record left where it landed names this process")
        .isEqualTo(SELF);
    assertThat(left.holder()).isEqualTo("h");
    assertThat(Inodes.descriptors(temporary.get())).as("the temporary's descriptor").isZero();
    assertThat(Inodes.descriptors(Inodes.key(moved))).as("the folder's descriptor").isZero();
  }

  @Test
  void aSpareReplacedRightAfterItsRenameIsRefusedAsNotADirectory() throws Exception {
    aSpareReplacedRightAfterItsRenameIsRefused(null);
  }

  @Test
  void aSpareReplacedRightAfterItsRenameIsRefusedAsNotADirectoryWithALinkedRecord()
      throws Exception {
    aSpareReplacedRightAfterItsRenameIsRefused(new HolderRecords(parent));
  }

  private void aSpareReplacedRightAfterItsRenameIsRefused(HolderRecords records)
      throws Exception {
    SpareFolders spares = new SpareFolders(parent);
    FolderSemaphore.take(parent.resolve("u-1"), "h", spares, records).release(false, spares);
    assertThat(spares.size()).isEqualTo(1);
    Path folder = parent.resolve("u-2");
    Path moved = parent.resolve("moved");
    SparePublication.afterRename = (named, spare) -> {
      Files.move(folder, moved, StandardCopyOption.ATOMIC_MOVE);
      Files.createDirectory(folder);
    };

    assertThatThrownBy(() -> FolderSemaphore.take(folder, "h", spares, records))
        .isInstanceOfSatisfying(LockValidationException.class, e -> {
          assertThat(e.reason()).isEqualTo(Reason.NOT_A_DIRECTORY);
          assertThat(e.lockFile()).isEqualTo(folder.resolve(FolderSemaphore.FILE_NAME));
        })
        .hasMessageContaining("the folder " + folder + " was replaced right after it was made")
        .hasMessageContaining("nothing was taken")
        .hasMessageNotContaining("free space");

    assertThat(names(folder)).as("the directory put at the name, untouched").isEmpty();
    Path lock = moved.resolve(FolderSemaphore.FILE_NAME);
    assertThat(names(moved)).as("the record went with the folder made")
        .containsExactly(FolderSemaphore.FILE_NAME);
    LockRecord left = LockRecord.parse(Files.readAllBytes(lock));
    assertThat(left.pid()).isEqualTo(SELF);
    assertThat(left.holder()).isEqualTo("h");
    assertThat(Inodes.descriptors(Inodes.key(lock))).as("the lock's descriptor").isZero();
    assertThat(Inodes.descriptors(Inodes.key(moved))).as("the folder's descriptor").isZero();
  }

  @Test
  void aClaimRemovedRightAfterItWasPublishedIsBusyNotAFailure() throws Exception {
    Path folder = Files.createDirectory(parent.resolve("u-1"));
    Path lock = folder.resolve(FolderSemaphore.FILE_NAME);
    Files.write(lock, localRecord(TestProcesses.reapedPid(), 7, "crashed").toBytes());
    Publication.afterLink = (target, temporary) -> {
      if (target.equals(lock)) {
        Publication.afterLink = Publication.NO_SEAM;
        Files.delete(target); // broken by hand right after the claim published it
      }
    };

    assertThat(FolderSemaphore.take(folder, "h")).as("busy: the caller retries").isNull();

    assertThat(names(folder)).as("the dead holder's lock reclaimed, nothing of the take left")
        .isEmpty();
    assertThat(Inodes.descriptors(Inodes.key(folder))).as("the folder's descriptor").isZero();
    SemaphoreHold again = FolderSemaphore.take(folder, "h");
    assertThat(again).isNotNull();
    again.release(false);
  }

  @Test
  void aClaimTakenByAnotherRightAfterItWasPublishedIsBusyAndTheOtherStays() throws Exception {
    Path folder = Files.createDirectory(parent.resolve("u-1"));
    Path lock = folder.resolve(FolderSemaphore.FILE_NAME);
    Files.write(lock, localRecord(TestProcesses.reapedPid(), 7, "crashed").toBytes());
    byte[] other = LockRecord.fresh(ProcessTable.system().current(), "other").toBytes();
    Publication.afterLink = (target, temporary) -> {
      if (target.equals(lock)) {
        Publication.afterLink = Publication.NO_SEAM;
        Path replacement = Files.write(folder.resolve("replacement"), other);
        Files.move(replacement, target, StandardCopyOption.ATOMIC_MOVE,
            StandardCopyOption.REPLACE_EXISTING);
      }
    };

    assertThat(FolderSemaphore.take(folder, "h")).as("busy: the caller retries").isNull();

    assertThat(names(folder)).containsExactly(FolderSemaphore.FILE_NAME);
    assertThat(Files.readAllBytes(lock)).as("the other holder's record, untouched")
        .isEqualTo(other);
    assertThat(Inodes.descriptors(Inodes.key(lock))).as("the lock's descriptor").isZero();
    assertThat(Inodes.descriptors(Inodes.key(folder))).as("the folder's descriptor").isZero();
  }

  @Test
  void aDanglingLinkAtAMissingFoldersNameIsRefusedAsNotADirectoryByTheTake() throws Exception {
    Path nowhere = parent.resolve("nowhere");
    Path folder = Files.createSymbolicLink(parent.resolve("u-1"), nowhere);

    assertThatThrownBy(() -> FolderSemaphore.take(folder, "h"))
        .isInstanceOfSatisfying(LockValidationException.class,
            e -> assertThat(e.reason()).isEqualTo(Reason.NOT_A_DIRECTORY))
        .hasMessageContaining("the semaphore folder " + folder + " is a symbolic link, not a"
            + " directory")
        .hasMessageNotContaining("could not open");

    assertThat(Files.readSymbolicLink(folder)).isEqualTo(nowhere);
    assertThat(nowhere).doesNotExist();
  }

  /**
   * The identity of the temporary {@code written}, kept alive by a second name outside the folder:
   * once the take removed its name and closed it, no new file can get its inode number (a count of
   * its descriptors then counts only its own).
   */
  private Object witnessed(Path written) throws IOException {
    Files.createLink(parent.resolve("witness"), written);
    return Inodes.key(written);
  }

  private static List<String> names(Path directory) throws IOException {
    try (Stream<Path> entries = Files.list(directory)) {
      return entries.map(entry -> entry.getFileName().toString()).sorted().toList();
    }
  }
}
