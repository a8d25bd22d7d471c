package dev.cryo.lock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.ClosedDirectoryStreamException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Folders recycled through {@link SpareFolders}: a release whose folder holds only its lock keeps
 * the folder as a spare, the next take of a missing folder is made from it, and every case where
 * that would be wrong (a folder with anything in it, a name taken meanwhile, a spare gone) goes the
 * usual way and changes nothing it should not.
 */
class SpareFoldersTest {

  @TempDir Path parent;

  @Test
  void aReleasedEmptyFolderIsKeptAndTheNextMissingFolderIsMadeFromItWithItsWholeRecord()
      throws Exception {
    SpareFolders spares = new SpareFolders(parent);
    Path first = parent.resolve("u-1");
    SemaphoreHold hold = FolderSemaphore.take(first, "h", spares);
    Object folder = key(first);
    hold.release(false, spares);

    assertThat(first).doesNotExist();
    assertThat(spares.size()).isEqualTo(1);
    List<Path> kept = spareDirectories();
    assertThat(kept).hasSize(1);
    assertThat(key(kept.get(0))).isEqualTo(folder);
    assertThat(kept.get(0).toFile().list()).isEmpty();

    Path second = parent.resolve("u-2");
    SemaphoreHold again = FolderSemaphore.take(second, "other", spares);
    assertThat(key(second)).isEqualTo(folder);
    assertThat(spares.size()).isZero();
    assertThat(spareDirectories()).isEmpty();
    assertThat(FolderSemaphore.holder(second)).contains(again.record());
    assertThat(Files.readAllBytes(second.resolve(FolderSemaphore.FILE_NAME)))
        .isEqualTo(again.record().toBytes());
    assertThat(second.toFile().list()).containsExactly(FolderSemaphore.FILE_NAME);
    again.release(false, spares);
    assertThat(second).doesNotExist();
  }

  @Test
  void aFolderWithAnythingElseInItStaysWithItAndIsNeverKept() throws Exception {
    SpareFolders spares = new SpareFolders(parent);
    Path folder = parent.resolve("u-1");
    SemaphoreHold hold = FolderSemaphore.take(folder, "h", spares);
    Files.writeString(folder.resolve("user.parcel"), "state");
    hold.release(false, spares);

    assertThat(folder.resolve("user.parcel")).hasContent("state");
    assertThat(folder.resolve(FolderSemaphore.FILE_NAME)).doesNotExist();
    assertThat(spares.size()).isZero();
    assertThat(spareDirectories()).isEmpty();
  }

  @Test
  void aReleaseThatKeepsItsFolderKeepsItWhereItIs() throws Exception {
    SpareFolders spares = new SpareFolders(parent);
    Path folder = parent.resolve("u-1");
    FolderSemaphore.take(folder, "h", spares).release(true, spares);
    assertThat(folder).isDirectory();
    assertThat(spares.size()).isZero();
  }

  @Test
  void aLateCallThroughAReleasedHoldNeverReachesTheSpare() throws Exception {
    SpareFolders spares = new SpareFolders(parent);
    SemaphoreHold hold = FolderSemaphore.take(parent.resolve("u-1"), "h", spares);
    hold.release(false, spares);
    assertThat(spares.size()).isEqualTo(1);
    assertThatThrownBy(() -> hold.directory().newByteChannel(Path.of("user.parcel"),
        Set.of(StandardOpenOption.CREATE, StandardOpenOption.WRITE)))
        .isInstanceOf(ClosedDirectoryStreamException.class);
    assertThat(spareDirectories().get(0).toFile().list()).isEmpty();
  }

  @Test
  void aSpareThatVanishedFallsBackToMakingTheFolder() throws Exception {
    SpareFolders spares = new SpareFolders(parent);
    FolderSemaphore.take(parent.resolve("u-1"), "h", spares).release(false, spares);
    Files.delete(spareDirectories().get(0));

    Path folder = parent.resolve("u-2");
    SemaphoreHold hold = FolderSemaphore.take(folder, "h", spares);
    assertThat(FolderSemaphore.holder(folder)).contains(hold.record());
    assertThat(spares.size()).isZero();
  }

  @Test
  void aNameTakenByAFolderWithParcelsIsNotReplacedAndTheSpareGoesBack() throws Exception {
    SpareFolders spares = spareKept();
    Path folder = Files.createDirectory(parent.resolve("u-2"));
    Files.writeString(folder.resolve("user.parcel"), "frozen");

    assertThat(SparePublication.publish(folder, spares, record())).isNull();
    assertThat(folder.toFile().list()).containsExactly("user.parcel");
    assertThat(spares.size()).isEqualTo(1);
    assertThat(spareDirectories().get(0).toFile().list()).isEmpty();
  }

  @Test
  void aNameTakenByALinkOrAFileIsNotReplacedNorFollowed() throws Exception {
    SpareFolders spares = spareKept();
    Path target = Files.createDirectory(parent.resolve("elsewhere"));
    Path link = Files.createSymbolicLink(parent.resolve("u-2"), target);
    Path file = Files.writeString(parent.resolve("u-3"), "a file");

    assertThat(SparePublication.publish(link, spares, record())).isNull();
    assertThat(SparePublication.publish(file, spares, record())).isNull();
    assertThat(Files.isSymbolicLink(link)).isTrue();
    assertThat(target.toFile().list()).isEmpty();
    assertThat(file).hasContent("a file");
    assertThat(spares.size()).isEqualTo(1);
    assertThatThrownBy(() -> FolderSemaphore.take(link, "h", spares))
        .isInstanceOfSatisfying(LockValidationException.class,
            e -> assertThat(e.reason()).isEqualTo(LockException.Reason.NOT_A_DIRECTORY));
  }

  @Test
  void clearRemovesTheEmptySparesAndEmptiesThePool() throws Exception {
    SpareFolders spares = spareKept();
    spares.clear();
    assertThat(spares.size()).isZero();
    assertThat(spareDirectories()).isEmpty();
  }

  @Test
  void aFullPoolRemovesTheFolderAsBefore() throws Exception {
    SpareFolders none = new SpareFolders(parent, 0);
    Path folder = parent.resolve("u-1");
    FolderSemaphore.take(folder, "h", none).release(false, none);
    assertThat(folder).doesNotExist();
    assertThat(spareDirectories()).isEmpty();
  }

  @Test
  void aPoolOfAnotherParentIsRefused() throws Exception {
    SpareFolders spares = new SpareFolders(Files.createDirectory(parent.resolve("other")));
    assertThatThrownBy(() -> FolderSemaphore.take(parent.resolve("u-1"), "h", spares))
        .isInstanceOf(IllegalArgumentException.class);
  }

  private SpareFolders spareKept() throws Exception {
    SpareFolders spares = new SpareFolders(parent);
    FolderSemaphore.take(parent.resolve("u-1"), "h", spares).release(false, spares);
    assertThat(spares.size()).isEqualTo(1);
    return spares;
  }

  private static LockRecord record() {
    return LockRecord.fresh(ProcessTable.system().current(), "h");
  }

  private List<Path> spareDirectories() throws Exception {
    return spareDirectories(parent);
  }

  /** The spare folders in {@code parent}. */
  static List<Path> spareDirectories(Path parent) throws Exception {
    try (Stream<Path> entries = Files.list(parent)) {
      return entries.filter(p -> SpareFolders.isSpareName(p.getFileName().toString())).toList();
    }
  }

  /** The device and inode at {@code path}, not following a link. */
  static Object key(Path path) throws Exception {
    return Files.readAttributes(path, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS)
        .fileKey();
  }
}
