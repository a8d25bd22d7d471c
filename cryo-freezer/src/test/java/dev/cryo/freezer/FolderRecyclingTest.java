package dev.cryo.freezer;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cryo.lock.SpareFolders;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The freezer recycles the folders its adoptions empty: the root holds the frozen and, beside them,
 * only empty spares that no listing of folders shows, and that leave with a wipe, a drop or a
 * rename of the root. (The spare parcels they carry are {@link SpareParcelsTest}'s.)
 */
class FolderRecyclingTest {

  @TempDir Path temp;

  static final Map<String, Object> STORE = Map.of("cart", "mine");

  private static void freezeAndAdopt(Freezer freezer, String user) throws Exception {
    assertThat(freezer.tryTakeSemaphore(user, "w")).isTrue();
    freezer.writeUserParcel(user, STORE, "w", "freeze", "g");
    freezer.writeConnectionParcel(user, "c1", STORE, "w", "freeze", "g");
    freezer.releaseSemaphore(user, "w");
    assertThat(freezer.tryTakeSemaphore(user, "w")).isTrue();
    assertThat(freezer.readUserParcel(user)).contains(STORE);
    assertThat(freezer.readConnectionParcel(user, "c1")).contains(STORE);
    freezer.dropUserParcel(user);
    freezer.dropConnectionParcel(user, "c1");
    freezer.releaseSemaphore(user, "w");
  }

  @Test
  void anAdoptedUsersFolderBecomesTheNextUsersAndNoListingShowsTheSpare() throws Exception {
    Freezer freezer = new Freezer(temp.resolve("freezer"));
    freezeAndAdopt(freezer, "alice");
    assertThat(freezer.folder("alice")).doesNotExist();
    assertThat(spares(freezer.root())).hasSize(1);
    assertThat(freezer.folderKeys()).isEmpty();
    assertThat(freezer.cleanupFrozen(Set.of())).isEmpty();
    assertThat(spares(freezer.root())).as("the sweep leaves the spare").hasSize(1);

    assertThat(freezer.tryTakeSemaphore("bob", "w")).isTrue();
    freezer.writeUserParcel("bob", STORE, "w", "freeze", "g");
    freezer.releaseSemaphore("bob", "w");
    assertThat(spares(freezer.root())).as("bob's folder was the spare").isEmpty();
    assertThat(freezer.folderKeys()).containsExactly(Freezer.key("bob"));
    List<String> held = names(freezer.folder("bob"));
    assertThat(held).as("its parcel, and the spare parcel it did not need").hasSize(2)
        .contains(Freezer.USER_PARCEL).anyMatch(name -> name.startsWith(SpareParcels.PREFIX));
    assertThat(new Freezer(freezer.root()).readUserParcel("bob")).contains(STORE);
  }

  @Test
  void manyCyclesKeepAtMostOneSparePerFolderInUse() throws Exception {
    Freezer freezer = new Freezer(temp.resolve("freezer"));
    for (int i = 0; i < 50; i++) {
      freezeAndAdopt(freezer, "user-" + (i % 3));
    }
    assertThat(freezer.folderKeys()).isEmpty();
    assertThat(spares(freezer.root())).hasSize(1);
  }

  @Test
  void aWipeADropAndARenameTakeNoSpareAlong() throws Exception {
    Freezer freezer = new Freezer(temp.resolve("freezer"));
    freezeAndAdopt(freezer, "alice");
    freezer.wipeRoot();
    assertThat(names(freezer.root())).isEmpty();
    freezeAndAdopt(freezer, "alice");

    Path moved = temp.resolve("moved");
    freezer.renameRoot(moved);
    assertThat(names(moved)).as("the spare was removed before the move").isEmpty();
    freezeAndAdopt(freezer, "alice");
    assertThat(spares(moved)).hasSize(1);
    freezer.dropRoot();
    assertThat(moved).doesNotExist();
  }

  @Test
  void theSweepRemovesTheSparesOfProcessesThatAreGoneAndKeepsTheLiveOnes() throws Exception {
    Freezer freezer = new Freezer(temp.resolve("freezer"));
    freezeAndAdopt(freezer, "alice");
    Process gone = new ProcessBuilder("true").start();
    gone.waitFor();
    Path dead = Files.createDirectory(freezer.root().resolve(SpareFolders.PREFIX + gone.pid()
        + ".00112233"));
    Files.writeString(dead.resolve(".lock"), "a crash between the record and the rename");

    assertThat(freezer.cleanupFrozen(Set.of(), freezer.folderKeys())).isEmpty();
    assertThat(dead).doesNotExist();
    assertThat(spares(freezer.root())).as("this process's spare stays").hasSize(1);
    freezeAndAdopt(freezer, "bob");
  }

  private static List<Path> spares(Path root) throws Exception {
    try (Stream<Path> entries = Files.list(root)) {
      return entries.filter(p -> SpareFolders.isSpareName(p.getFileName().toString())).toList();
    }
  }

  private static List<String> names(Path folder) throws Exception {
    try (Stream<Path> entries = Files.list(folder)) {
      return entries.map(p -> p.getFileName().toString()).sorted().toList();
    }
  }
}
