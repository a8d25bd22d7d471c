package dev.cryo.freezer;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cryo.lock.FolderSemaphore;
import dev.cryo.lock.HolderRecords;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The freezer's semaphores as links of one record per holder name ({@link HolderRecords} at the
 * root): freezes and adoptions make no lock file, the records' directory is no folder, the sweep
 * keeps a live process's records, a wipe takes them, and a root given as a link keeps them in its
 * real target.
 */
class LinkedLockTest {

  @TempDir Path temp;

  private static Object key(Path path) throws IOException {
    return Files.readAttributes(path, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS)
        .fileKey();
  }

  private static List<Path> records(Path root) throws IOException {
    try (Stream<Path> files = Files.list(root.resolve(HolderRecords.DIRECTORY_NAME))) {
      return files.toList();
    }
  }

  @Test
  void freezesAndAdoptionsLinkOneRecordAndTheRecordsAreNoFolder() throws Exception {
    Freezer freezer = new Freezer(temp.resolve("root"));
    Path root = freezer.root();
    for (String user : List.of("alice", "bob", "carol")) {
      assertThat(freezer.tryTakeSemaphore(user, "worker-1")).isTrue();
      assertThat(key(freezer.folder(user).resolve(FolderSemaphore.FILE_NAME)))
          .isEqualTo(key(records(root).get(0)));
      freezer.writeUserParcel(user, Map.of("n", user), "worker-1", "freeze", "g");
      freezer.releaseSemaphore(user, "worker-1");
      assertThat(freezer.folder(user).resolve(FolderSemaphore.FILE_NAME)).doesNotExist();
    }
    assertThat(freezer.tryTakeSemaphore("alice", "worker-1")).isTrue(); // the adoption
    assertThat(freezer.readUserParcel("alice")).contains(Map.of("n", "alice"));
    freezer.dropUserParcel("alice");
    freezer.releaseSemaphore("alice", "worker-1");

    assertThat(records(root)).as("one record for every hold of worker-1").hasSize(1);
    assertThat(freezer.folderKeys()).containsExactlyInAnyOrder(Freezer.key("bob"),
        Freezer.key("carol"));
    assertThat(freezer.cleanupFrozen(Set.of(Freezer.key("bob")))).containsExactly(
        Freezer.key("carol"));
    assertThat(records(root)).as("a live process's record stays through the sweep").hasSize(1);

    freezer.wipeRoot();
    assertThat(root).as("the wipe takes the records too").isEmptyDirectory();
    assertThat(freezer.tryTakeSemaphore("dave", "worker-1")).isTrue();
    assertThat(key(freezer.folder("dave").resolve(FolderSemaphore.FILE_NAME)))
        .isEqualTo(key(records(root).get(0)));
    freezer.releaseSemaphore("dave", "worker-1");
  }

  @Test
  void aRootGivenAsALinkKeepsItsRecordsInItsRealTarget() throws Exception {
    Path target = Files.createDirectory(temp.resolve("real-root"));
    Path link = Files.createSymbolicLink(temp.resolve("root-link"), target);
    Freezer freezer = new Freezer(link);
    assertThat(freezer.tryTakeSemaphore("alice", "w")).isTrue();
    assertThat(Files.isDirectory(target.resolve(HolderRecords.DIRECTORY_NAME),
        LinkOption.NOFOLLOW_LINKS)).isTrue();
    assertThat(key(target.resolve(Freezer.key("alice")).resolve(FolderSemaphore.FILE_NAME)))
        .isEqualTo(key(records(target).get(0)));
    freezer.releaseSemaphore("alice", "w");
  }
}
