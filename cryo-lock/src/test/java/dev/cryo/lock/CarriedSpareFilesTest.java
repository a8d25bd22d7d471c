package dev.cryo.lock;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Spare folders carrying emptied spare files ({@link SpareFolders#PREFIX} names): a recycling
 * release carries those its caller vouches for and removes the others, the next take hands the
 * carried ones over, and every removal of a folder or a spare removes its spare files with it.
 */
class CarriedSpareFilesTest {

  @TempDir Path parent;

  private static final String KEPT = SpareFolders.PREFIX + "parcel-1";
  private static final String STRANGER = SpareFolders.PREFIX + "parcel-2";

  @Test
  void aRecyclingReleaseCarriesTheVouchedSparesAndRemovesTheOthersAndTheNextTakeGetsThem()
      throws Exception {
    SpareFolders spares = new SpareFolders(parent);
    Path first = parent.resolve("u-1");
    SemaphoreHold hold = FolderSemaphore.take(first, "h", spares);
    assertThat(hold.carriedFiles()).isEmpty();
    Files.createFile(first.resolve(KEPT));
    Object kept = key(first.resolve(KEPT));
    Files.writeString(first.resolve(STRANGER), "what a crash left before the emptying");

    hold.release(false, spares, Set.of(KEPT));

    assertThat(first).doesNotExist();
    List<Path> recycled = spareDirectories();
    assertThat(recycled).hasSize(1);
    assertThat(recycled.get(0).toFile().list()).as("the stranger was removed")
        .containsExactly(KEPT);

    Path second = parent.resolve("u-2");
    SemaphoreHold again = FolderSemaphore.take(second, "h", spares);
    assertThat(again.carriedFiles()).containsExactly(KEPT);
    assertThat(key(second.resolve(KEPT))).as("the very file kept").isEqualTo(kept);
    again.release(false, spares, Set.of());
    assertThat(second).doesNotExist();
    assertThat(spareDirectories()).hasSize(1);
    assertThat(spareDirectories().get(0).toFile().list()).as("not vouched for: removed").isEmpty();
  }

  @Test
  void aFolderWithAParcelBesideItsSparesStaysWithThemAll() throws Exception {
    SpareFolders spares = new SpareFolders(parent);
    Path folder = parent.resolve("u-1");
    SemaphoreHold hold = FolderSemaphore.take(folder, "h", spares);
    Files.createFile(folder.resolve(KEPT));
    Files.writeString(folder.resolve("user.parcel"), "state");

    hold.release(false, spares, Set.of(KEPT));

    assertThat(folder.resolve("user.parcel")).hasContent("state");
    assertThat(spareDirectories()).isEmpty();
    assertThat(folder.resolve(FolderSemaphore.FILE_NAME)).doesNotExist();
  }

  @Test
  void aReleaseByPathRemovesTheFolderWithItsSpareFiles() throws Exception {
    Path folder = parent.resolve("u-1");
    assertThat(FolderSemaphore.tryTake(folder, "h")).isTrue();
    Files.createFile(folder.resolve(KEPT));
    Files.createFile(folder.resolve(STRANGER));

    FolderSemaphore.release(folder, "h");

    assertThat(folder).doesNotExist();
  }

  @Test
  void aReleaseWithoutAPoolRemovesTheFolderWithItsSpareFiles() throws Exception {
    Path folder = parent.resolve("u-1");
    SemaphoreHold hold = FolderSemaphore.take(folder, "h");
    Files.createFile(folder.resolve(KEPT));

    hold.release(false, null, Set.of(KEPT));

    assertThat(folder).doesNotExist();
  }

  @Test
  void aFullPoolAndAClearedOneRemoveTheSpareFoldersWithTheirFiles() throws Exception {
    SpareFolders spares = new SpareFolders(parent, 1);
    for (String user : List.of("u-1", "u-2")) {
      Path folder = parent.resolve(user);
      SemaphoreHold hold = FolderSemaphore.take(folder, "h");
      Files.createFile(folder.resolve(KEPT));
      hold.release(false, spares, Set.of(KEPT));
    }
    assertThat(spareDirectories()).as("the second did not fit and went whole").hasSize(1);
    assertThat(spares.size()).isEqualTo(1);

    spares.clear();

    assertThat(spareDirectories()).isEmpty();
  }

  @Test
  void aGoneProcesssSpareFolderGoesWithItsFilesAndALinkInItIsRemovedNotFollowed()
      throws Exception {
    Process gone = new ProcessBuilder("true").start();
    gone.waitFor();
    Path dead = Files.createDirectory(parent.resolve(SpareFolders.PREFIX + gone.pid() + ".00"));
    Files.writeString(dead.resolve(KEPT), "x");
    Path outside = Files.createDirectory(parent.resolve("outside"));
    Files.writeString(outside.resolve(KEPT), "not the spare's");
    Files.createSymbolicLink(dead.resolve("link"), outside);

    assertThat(SpareFolders.removeAbandoned(parent)).isEqualTo(1);

    assertThat(dead).doesNotExist();
    assertThat(outside.resolve(KEPT)).hasContent("not the spare's");
  }

  private List<Path> spareDirectories() throws Exception {
    return SpareFoldersTest.spareDirectories(parent);
  }

  private static Object key(Path path) throws Exception {
    return SpareFoldersTest.key(path);
  }
}
