package dev.cryo.freezer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.cryo.lock.SpareFolders;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The parcel files an adoption drops are kept, emptied, in the spare parcels' directory, and the
 * next freeze writes its parcels whole into them and renames them into place ({@link
 * SpareParcels}): no user data stays in a spare, no listing takes the directory for a user, the
 * sweep removes a gone process's, whatever is not a plain file at a parcel's name or a spare's
 * (a link, a directory) is never followed, written through or moved for good, and no descriptor
 * of the spares is kept once no semaphore is held (a file system stays free to unmount).
 */
class SpareParcelsTest {

  @TempDir Path temp;

  static final Map<String, Object> STORE = Map.of("cart", List.of("tea", "milk"), "n", 3);

  private static void freeze(Freezer freezer, String user, int connections) throws Exception {
    assertThat(freezer.tryTakeSemaphore(user, "w")).isTrue();
    freezer.writeUserParcel(user, STORE, "w", "freeze", "g");
    for (int c = 0; c < connections; c++) {
      freezer.writeConnectionParcel(user, "c" + c, STORE, "w", "freeze", "g");
    }
    freezer.releaseSemaphore(user, "w");
  }

  private static void adopt(Freezer freezer, String user, int connections) throws Exception {
    assertThat(freezer.tryTakeSemaphore(user, "w")).isTrue();
    assertThat(freezer.readUserParcel(user)).contains(STORE);
    freezer.dropUserParcel(user);
    for (int c = 0; c < connections; c++) {
      assertThat(freezer.readConnectionParcel(user, "c" + c)).contains(STORE);
      freezer.dropConnectionParcel(user, "c" + c);
    }
    freezer.releaseSemaphore(user, "w");
  }

  @Test
  void anAdoptionKeepsItsParcelsEmptiedAndTheNextFreezeWritesThemWholeFromThem() throws Exception {
    Freezer freezer = new Freezer(temp.resolve("freezer"));
    freeze(freezer, "alice", 2);
    Set<Object> written = new HashSet<>();
    for (Path parcel : files(freezer.folder("alice"))) {
      if (parcel.getFileName().toString().endsWith(Freezer.PARCEL_SUFFIX)) {
        written.add(key(parcel));
      }
    }
    assertThat(written).hasSize(3);
    adopt(freezer, "alice", 2);

    Path pool = pool(freezer.root());
    List<Path> kept = files(pool);
    assertThat(kept).hasSize(3);
    Set<Object> keptKeys = new HashSet<>();
    for (Path spare : kept) {
      assertThat(Files.size(spare)).as("no user data stays in " + spare).isZero();
      keptKeys.add(key(spare));
    }
    assertThat(keptKeys).as("the very files the freeze wrote").isEqualTo(written);
    assertThat(freezer.folder("alice")).doesNotExist();

    freeze(freezer, "bob", 1);
    assertThat(keptKeys).contains(key(freezer.folder("bob").resolve(Freezer.USER_PARCEL)),
        key(freezer.connectionParcel("bob", "c0")));
    assertThat(files(pool)).hasSize(1);
    Freezer other = new Freezer(freezer.root());
    assertThat(other.readUserParcel("bob")).contains(STORE);
    assertThat(other.readConnectionParcel("bob", "c0")).contains(STORE);
    assertThat(freezer.folderKeys()).containsExactly(Freezer.key("bob"));
  }

  @Test
  void noListingTakesTheSpareParcelsForAUserAndTheSweepRemovesAGoneProcesss() throws Exception {
    Freezer freezer = new Freezer(temp.resolve("freezer"));
    freeze(freezer, "alice", 1);
    adopt(freezer, "alice", 1);
    Path ours = pool(freezer.root());
    Process gone = new ProcessBuilder("true").start();
    gone.waitFor();
    Path dead = Files.createDirectory(freezer.root().resolve(SpareFolders.PREFIX + gone.pid()
        + SpareParcels.MARK + "00"));
    Files.writeString(dead.resolve("p1"), "a crash between the rename and the truncation");

    assertThat(freezer.folderKeys()).isEmpty();
    assertThat(freezer.cleanupFrozen(Set.of(), freezer.folderKeys())).isEmpty();
    assertThat(dead).doesNotExist();
    assertThat(ours).as("this process's stays").isDirectory();
    assertThat(files(ours)).hasSize(2);
    freeze(freezer, "bob", 1);
    assertThat(new Freezer(freezer.root()).readUserParcel("bob")).contains(STORE);
  }

  @Test
  void aLinkAtAParcelsNameIsRemovedAsALinkAndItsTargetIsUntouched() throws Exception {
    Freezer freezer = new Freezer(temp.resolve("freezer"));
    freeze(freezer, "alice", 0);
    adopt(freezer, "alice", 0); // the spares' directory exists from now on
    Path outside = Files.writeString(temp.resolve("outside"), "somebody else's");
    assertThat(freezer.tryTakeSemaphore("carol", "w")).isTrue();
    Files.createSymbolicLink(freezer.folder("carol").resolve(Freezer.USER_PARCEL), outside);

    freezer.dropUserParcel("carol");

    assertThat(freezer.folder("carol").resolve(Freezer.USER_PARCEL))
        .doesNotExist().satisfies(p -> assertThat(Files.isSymbolicLink(p)).isFalse());
    assertThat(Files.readString(outside)).isEqualTo("somebody else's");
    for (Path spare : files(pool(freezer.root()))) {
      assertThat(Files.isSymbolicLink(spare)).as(spare + " is no link").isFalse();
    }
    freezer.releaseSemaphore("carol", "w");
  }

  @Test
  void aDirectoryAtAParcelsNameStaysThereAndTheDropIsRefusedAsWithoutSpares() throws Exception {
    Freezer freezer = new Freezer(temp.resolve("freezer"));
    freeze(freezer, "alice", 0);
    adopt(freezer, "alice", 0);
    int before = files(pool(freezer.root())).size();
    assertThat(freezer.tryTakeSemaphore("carol", "w")).isTrue();
    Path planted = Files.createDirectory(freezer.folder("carol").resolve(Freezer.USER_PARCEL));

    assertThatThrownBy(() -> freezer.dropUserParcel("carol"))
        .isInstanceOf(FreezerException.class);

    assertThat(planted).isDirectory();
    assertThat(files(pool(freezer.root()))).hasSize(before);
    Files.delete(planted);
    freezer.releaseSemaphore("carol", "w");
  }

  @Test
  void aSpareSwappedForALinkIsNeverWrittenThrough() throws Exception {
    Freezer freezer = new Freezer(temp.resolve("freezer"));
    freeze(freezer, "alice", 2);
    adopt(freezer, "alice", 2);
    Path outside = Files.writeString(temp.resolve("outside"), "somebody else's");
    for (Path spare : files(pool(freezer.root()))) {
      Files.delete(spare);
      Files.createSymbolicLink(spare, outside);
    }

    freeze(freezer, "bob", 2);

    assertThat(Files.readString(outside)).isEqualTo("somebody else's");
    Freezer other = new Freezer(freezer.root());
    assertThat(other.readUserParcel("bob")).contains(STORE);
    assertThat(other.readConnectionParcel("bob", "c1")).contains(STORE);
    assertThat(Files.isSymbolicLink(freezer.folder("bob").resolve(Freezer.USER_PARCEL))).isFalse();
  }

  @Test
  void noDescriptorOfTheSparesOutlivesTheHoldsThatUsedThem() throws Exception {
    Freezer freezer = new Freezer(temp.resolve("freezer"));
    long before = openDescriptors();
    for (int i = 0; i < 20; i++) {
      freeze(freezer, "alice", 2);
      adopt(freezer, "alice", 2);
    }
    assertThat(files(pool(freezer.root()))).hasSize(3);
    assertThat(openDescriptors()).as("descriptors open after the holds ended")
        .isLessThanOrEqualTo(before);
  }

  private static long openDescriptors() throws Exception {
    try (Stream<Path> fds = Files.list(Path.of("/proc/self/fd"))) {
      return fds.count();
    }
  }

  @Test
  void atMostItsCapacityOfSparesIsKept() throws Exception {
    Freezer freezer = new Freezer(temp.resolve("freezer"));
    int connections = SpareParcels.CAPACITY + 5;
    freeze(freezer, "alice", connections);
    adopt(freezer, "alice", connections);
    assertThat(files(pool(freezer.root()))).hasSize(SpareParcels.CAPACITY);
    assertThat(freezer.folder("alice")).doesNotExist();
  }

  @Test
  void aRenameOfTheRootLeavesNoSpareParcelsBehindAndTheMovedRootGetsItsOwn() throws Exception {
    Freezer freezer = new Freezer(temp.resolve("freezer"));
    freeze(freezer, "alice", 1);
    adopt(freezer, "alice", 1);
    Path moved = temp.resolve("moved");
    freezer.renameRoot(moved);
    try (Stream<Path> entries = Files.list(moved)) {
      assertThat(entries.toList()).isEmpty();
    }
    freeze(freezer, "alice", 1);
    adopt(freezer, "alice", 1);
    assertThat(files(pool(moved))).hasSize(2);
  }

  private static Path pool(Path root) throws Exception {
    try (Stream<Path> entries = Files.list(root)) {
      List<Path> pools = entries.filter(p -> p.getFileName().toString().contains(SpareParcels.MARK))
          .toList();
      assertThat(pools).as("one spare parcels' directory in " + root).hasSize(1);
      return pools.get(0);
    }
  }

  private static List<Path> files(Path directory) throws Exception {
    try (Stream<Path> entries = Files.list(directory)) {
      return entries.sorted().toList();
    }
  }

  private static Object key(Path path) throws Exception {
    return Files.readAttributes(path, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS)
        .fileKey();
  }
}
