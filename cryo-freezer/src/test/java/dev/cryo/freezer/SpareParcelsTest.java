package dev.cryo.freezer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.cryo.lock.FolderSemaphore;
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
 * The parcel files an adoption drops are kept, emptied, in the user's folder, travel with it when
 * the folder is recycled, and the next freeze writes its parcels whole into them and renames them
 * into place ({@link SpareParcels}): no user data stays in a spare, no spare is read as a parcel,
 * a spare nobody vouches for (a crash between a drop's rename and its emptying) is never reused,
 * whatever is not a plain file at a parcel's name or a spare's (a link, a directory) is never
 * followed, written through or moved for good, and no directory is opened for them.
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
  void anAdoptionKeepsItsParcelsEmptiedInTheFolderAndTheNextFreezeWritesThemWholeFromThem()
      throws Exception {
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

    assertThat(freezer.folder("alice")).doesNotExist();
    List<Path> kept = spares(spareFolder(freezer.root()));
    assertThat(kept).hasSize(3);
    Set<Object> keptKeys = new HashSet<>();
    for (Path spare : kept) {
      assertThat(Files.size(spare)).as("no user data stays in " + spare).isZero();
      keptKeys.add(key(spare));
    }
    assertThat(keptKeys).as("the very files the freeze wrote").isEqualTo(written);

    freeze(freezer, "bob", 1);
    assertThat(keptKeys).contains(key(freezer.folder("bob").resolve(Freezer.USER_PARCEL)),
        key(freezer.connectionParcel("bob", "c0")));
    assertThat(spares(freezer.folder("bob"))).as("the spare the freeze did not need").hasSize(1);
    Freezer other = new Freezer(freezer.root());
    assertThat(other.readUserParcel("bob")).contains(STORE);
    assertThat(other.readConnectionParcel("bob", "c0")).contains(STORE);
    assertThat(freezer.folderKeys()).containsExactly(Freezer.key("bob"));
    assertThat(Forcing.folderKeys(freezer.root())).containsExactly(Freezer.key("bob"));
  }

  /**
   * A wake leaves the parcels in place for the next freeze; that freeze, with no spare at hand,
   * writes each whole into a new file renamed over it (never emptying the parcel there first,
   * which a refused write would then lose): no spare left over, the new state read back.
   */
  @Test
  void aFreezeOverParcelsAWakeLeftInPlaceReplacesThemWhole() throws Exception {
    Freezer freezer = new Freezer(temp.resolve("freezer"));
    freeze(freezer, "alice", 1);
    Path user = freezer.folder("alice").resolve(Freezer.USER_PARCEL);
    Path connection = freezer.connectionParcel("alice", "c0");
    Object userFile = key(user);
    Object connectionFile = key(connection);
    assertThat(freezer.tryTakeSemaphore("alice", "w")).isTrue(); // a wake: read, nothing dropped
    assertThat(freezer.readUserParcel("alice")).contains(STORE);
    freezer.releaseSemaphore("alice", "w");

    Map<String, Object> later = Map.of("cart", List.of("tea"), "n", 4);
    assertThat(freezer.tryTakeSemaphore("alice", "w")).isTrue();
    freezer.writeUserParcel("alice", later, "w", "freeze", "g");
    freezer.writeConnectionParcel("alice", "c0", later, "w", "freeze", "g");
    freezer.releaseSemaphore("alice", "w");

    assertThat(new Freezer(freezer.root()).readUserParcel("alice")).contains(later);
    assertThat(new Freezer(freezer.root()).readConnectionParcel("alice", "c0")).contains(later);
    assertThat(key(user)).isNotEqualTo(userFile);
    assertThat(key(connection)).isNotEqualTo(connectionFile);
    assertThat(spares(freezer.folder("alice"))).isEmpty();
  }

  @Test
  void aFrozenFolderWithSparesIsAdoptedByAnotherFreezerAndByPathAndGoesWhole() throws Exception {
    Freezer freezer = new Freezer(temp.resolve("freezer"));
    freeze(freezer, "alice", 2);
    adopt(freezer, "alice", 2);
    freeze(freezer, "bob", 0);
    freeze(freezer, "carol", 0);
    assertThat(spares(freezer.folder("bob"))).hasSize(2);

    adopt(new Freezer(freezer.root()), "bob", 0);
    assertThat(freezer.folder("bob")).doesNotExist();

    Path carol = freezer.folder("carol");
    Files.createFile(carol.resolve(SpareParcels.PREFIX + "77"));
    assertThat(FolderSemaphore.tryTake(carol, "by-path")).isTrue();
    Files.delete(carol.resolve(Freezer.USER_PARCEL));
    FolderSemaphore.release(carol, "by-path");
    assertThat(carol).as("its spares went with it").doesNotExist();
    assertThat(freezer.folderKeys()).isEmpty();
  }

  @Test
  void aSpareNobodyVouchesForIsRemovedAtTheRecyclingAndNeverWritten() throws Exception {
    Freezer freezer = new Freezer(temp.resolve("freezer"));
    freeze(freezer, "alice", 0);
    Path stranger = freezer.folder("alice").resolve(SpareParcels.PREFIX + "999999");
    Files.writeString(stranger, "a parcel renamed by a drop that crashed before emptying it");

    adopt(freezer, "alice", 0);

    List<Path> kept = spares(spareFolder(freezer.root()));
    assertThat(kept).hasSize(1).noneMatch(p -> p.getFileName().equals(stranger.getFileName()));
    assertThat(Files.size(kept.get(0))).isZero();
    freeze(freezer, "bob", 0);
    assertThat(new Freezer(freezer.root()).readUserParcel("bob")).contains(STORE);
  }

  @Test
  void theSweepRemovesAGoneProcesssSpareFolderWithItsSpares() throws Exception {
    Freezer freezer = new Freezer(temp.resolve("freezer"));
    freeze(freezer, "alice", 1);
    adopt(freezer, "alice", 1);
    Path ours = spareFolder(freezer.root());
    Process gone = new ProcessBuilder("true").start();
    gone.waitFor();
    Path dead = Files.createDirectory(freezer.root().resolve(SpareFolders.PREFIX + gone.pid()
        + ".00"));
    Files.writeString(dead.resolve(SpareParcels.PREFIX + "1"), "a crash before the emptying");

    assertThat(freezer.folderKeys()).isEmpty();
    assertThat(freezer.cleanupFrozen(Set.of(), freezer.folderKeys())).isEmpty();
    assertThat(dead).doesNotExist();
    assertThat(ours).as("this process's stays").isDirectory();
    assertThat(spares(ours)).hasSize(2);
    freeze(freezer, "bob", 1);
    assertThat(new Freezer(freezer.root()).readUserParcel("bob")).contains(STORE);
  }

  @Test
  void aLinkAtAParcelsNameIsRemovedAsALinkAndItsTargetIsUntouched() throws Exception {
    Freezer freezer = new Freezer(temp.resolve("freezer"));
    Path outside = Files.writeString(temp.resolve("outside"), "somebody else's");
    assertThat(freezer.tryTakeSemaphore("carol", "w")).isTrue();
    Files.createSymbolicLink(freezer.folder("carol").resolve(Freezer.USER_PARCEL), outside);

    freezer.dropUserParcel("carol");

    assertThat(freezer.folder("carol").resolve(Freezer.USER_PARCEL))
        .doesNotExist().satisfies(p -> assertThat(Files.isSymbolicLink(p)).isFalse());
    assertThat(Files.readString(outside)).isEqualTo("somebody else's");
    for (Path file : files(freezer.folder("carol"))) {
      assertThat(Files.isSymbolicLink(file)).as(file + " is no link").isFalse();
    }
    freezer.releaseSemaphore("carol", "w");
    assertThat(Files.readString(outside)).isEqualTo("somebody else's");
  }

  @Test
  void aDirectoryAtAParcelsNameStaysThereAndTheDropIsRefusedAsWithoutSpares() throws Exception {
    Freezer freezer = new Freezer(temp.resolve("freezer"));
    assertThat(freezer.tryTakeSemaphore("carol", "w")).isTrue();
    Path planted = Files.createDirectory(freezer.folder("carol").resolve(Freezer.USER_PARCEL));

    assertThatThrownBy(() -> freezer.dropUserParcel("carol"))
        .isInstanceOf(FreezerException.class);

    assertThat(planted).isDirectory();
    assertThat(spares(freezer.folder("carol"))).isEmpty();
    Files.delete(planted);
    freezer.releaseSemaphore("carol", "w");
  }

  @Test
  void aSpareSwappedForALinkIsNeverWrittenThrough() throws Exception {
    Freezer freezer = new Freezer(temp.resolve("freezer"));
    freeze(freezer, "alice", 2);
    adopt(freezer, "alice", 2);
    Path outside = Files.writeString(temp.resolve("outside"), "somebody else's");
    for (Path spare : spares(spareFolder(freezer.root()))) {
      Files.delete(spare);
      Files.createSymbolicLink(spare, outside);
    }

    freeze(freezer, "bob", 2);

    assertThat(Files.readString(outside)).isEqualTo("somebody else's");
    Freezer other = new Freezer(freezer.root());
    assertThat(other.readUserParcel("bob")).contains(STORE);
    assertThat(other.readConnectionParcel("bob", "c1")).contains(STORE);
    assertThat(Files.isSymbolicLink(freezer.folder("bob").resolve(Freezer.USER_PARCEL))).isFalse();
    assertThat(spares(freezer.folder("bob"))).as("the links were removed, not kept").isEmpty();
  }

  @Test
  void noDescriptorOutlivesTheHoldsThatUsedTheSpares() throws Exception {
    Freezer freezer = new Freezer(temp.resolve("freezer"));
    long before = openDescriptors();
    for (int i = 0; i < 20; i++) {
      freeze(freezer, "alice", 2);
      adopt(freezer, "alice", 2);
    }
    assertThat(spares(spareFolder(freezer.root()))).hasSize(3);
    assertThat(openDescriptors()).as("descriptors open after the holds ended")
        .isLessThanOrEqualTo(before);
  }

  private static long openDescriptors() throws Exception {
    try (Stream<Path> fds = Files.list(Path.of("/proc/self/fd"))) {
      return fds.count();
    }
  }

  @Test
  void atMostItsCapacityOfSparesIsKeptPerFolder() throws Exception {
    Freezer freezer = new Freezer(temp.resolve("freezer"));
    int connections = SpareParcels.CAPACITY + 5;
    freeze(freezer, "alice", connections);
    adopt(freezer, "alice", connections);
    assertThat(spares(spareFolder(freezer.root()))).hasSize(SpareParcels.CAPACITY);
    assertThat(freezer.folder("alice")).doesNotExist();
  }

  @Test
  void aRenameOfTheRootLeavesNoSpareBehindAndTheMovedRootGetsItsOwn() throws Exception {
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
    assertThat(spares(spareFolder(moved))).hasSize(2);
  }

  /** The one spare folder at {@code root}. */
  private static Path spareFolder(Path root) throws Exception {
    try (Stream<Path> entries = Files.list(root)) {
      List<Path> folders = entries.filter(p -> SpareFolders.isSpareName(p.getFileName().toString()))
          .toList();
      assertThat(folders).as("one spare folder in " + root).hasSize(1);
      return folders.get(0);
    }
  }

  /** The spare parcels of {@code folder}. */
  private static List<Path> spares(Path folder) throws Exception {
    return files(folder).stream()
        .filter(p -> p.getFileName().toString().startsWith(SpareParcels.PREFIX)).toList();
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
