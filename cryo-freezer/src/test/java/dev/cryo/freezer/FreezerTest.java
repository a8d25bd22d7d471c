package dev.cryo.freezer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class FreezerTest {

  @TempDir Path temp;

  static final Map<String, Object> STORE = Map.of("cart", List.of(1, 2, 3), "name", "alice");

  Freezer freezer() throws Exception {
    return new Freezer(temp.resolve("a/b/freezer"));
  }

  static String mode(Path path) throws Exception {
    return PosixFilePermissions.toString(Files.getPosixFilePermissions(path, LinkOption.NOFOLLOW_LINKS));
  }

  static Set<String> names(Path folder) throws Exception {
    try (Stream<Path> entries = Files.list(folder)) {
      return new java.util.TreeSet<>(entries.map(p -> p.getFileName().toString()).toList());
    }
  }

  @Test
  void theRootIsCreatedPrivateWhenMissingAndReusedWhenPresent() throws Exception {
    Freezer freezer = freezer();
    assertThat(mode(freezer.root())).isEqualTo("rwx------");
    Files.writeString(freezer.root().resolve("kept"), "x");
    new Freezer(freezer.root());
    assertThat(freezer.root().resolve("kept")).exists();
    Path file = Files.writeString(temp.resolve("file"), "x");
    assertThatThrownBy(() -> new Freezer(file)).isInstanceOf(FreezerException.class)
        .hasMessageContaining(file.toString());
  }

  @Test
  void parcelsRoundTripWithTheirHeadersInPrivateFoldersAndFiles() throws Exception {
    Freezer freezer = freezer();
    Instant before = Instant.now().minusMillis(1);
    assertThat(freezer.tryTakeSemaphore("alice", "worker-1:freeze")).isTrue();
    freezer.writeUserParcel("alice", STORE, "worker-1", "freeze", "g1");
    freezer.writeConnectionParcel("alice", "c1", Map.of("pages", List.of(Map.of("p", 1))), "worker-1", "freeze", "g1");
    assertThat(freezer.readUserParcel("alice")).contains(STORE);
    assertThat(freezer.readConnectionParcel("alice", "c1")).contains(Map.of("pages", List.of(Map.of("p", 1))));
    ParcelHeader header = freezer.userParcelHeader("alice").orElseThrow();
    assertThat(header.writer()).isEqualTo("worker-1");
    assertThat(header.cause()).isEqualTo("freeze");
    assertThat(header.group()).isEqualTo("g1");
    assertThat(header.codec()).isEqualTo(SmileCodec.NAME);
    assertThat(header.writtenAt()).isBetween(before, Instant.now().plusMillis(1));
    assertThat(freezer.connectionParcelHeader("alice", "c1")).isPresent();
    Path folder = freezer.folder("alice");
    assertThat(mode(folder)).isEqualTo("rwx------");
    assertThat(mode(folder.resolve(Freezer.USER_PARCEL))).isEqualTo("rw-------");
    assertThat(mode(freezer.connectionParcel("alice", "c1"))).isEqualTo("rw-------");
    assertThat(names(folder)).containsExactly(".lock", "connection-c1.parcel", "user.parcel");
    assertThat(freezer.semaphoreHolder("alice").orElseThrow().holder()).isEqualTo("worker-1:freeze");
  }

  @Test
  void aRewriteReplacesTheParcelWholeAndLeavesNoTemporaries() throws Exception {
    Freezer freezer = freezer();
    freezer.tryTakeSemaphore("bob", "w");
    freezer.writeUserParcel("bob", Map.of("v", 1), "w", "freeze", "g");
    Path parcel = freezer.folder("bob").resolve(Freezer.USER_PARCEL);
    Object inode = Files.readAttributes(parcel,
        java.nio.file.attribute.BasicFileAttributes.class).fileKey();
    String before = Files.readString(parcel, java.nio.charset.StandardCharsets.ISO_8859_1);
    freezer.writeUserParcel("bob", Map.of("v", 2), "w", "freeze", "g");
    assertThat(freezer.readUserParcel("bob")).contains(Map.of("v", 2));
    assertThat(Files.readAttributes(parcel, java.nio.file.attribute.BasicFileAttributes.class)
        .fileKey()).as("a new file renamed over the name: the earlier parcel was never emptied")
        .isNotEqualTo(inode);
    assertThat(before).contains("freeze"); // the earlier file read whole up to the rename
    assertThat(names(freezer.folder("bob"))).containsExactly(".lock", "user.parcel");
  }

  @Test
  void aPayloadTheCodecRefusesLeavesThePreviousParcelIntact() throws Exception {
    Freezer freezer = freezer();
    freezer.tryTakeSemaphore("bob", "w");
    freezer.writeUserParcel("bob", STORE, "w", "freeze", "g");
    assertThatThrownBy(() -> freezer.writeUserParcel("bob", Map.of("x", new Object()), "w", "freeze", "g"))
        .isInstanceOf(IllegalArgumentException.class);
    assertThat(freezer.readUserParcel("bob")).contains(STORE);
  }

  @Test
  void twoConnectionsAreTwoIndependentParcels() throws Exception {
    Freezer freezer = freezer();
    freezer.tryTakeSemaphore("otto", "w");
    freezer.writeConnectionParcel("otto", "c1", Map.of("n", 1), "w", "freeze", "g");
    freezer.writeConnectionParcel("otto", "C1", Map.of("n", 2), "w", "freeze", "g");
    freezer.writeConnectionParcel("otto", "../c1", Map.of("n", 3), "w", "freeze", "g");
    assertThat(freezer.readConnectionParcel("otto", "c1")).contains(Map.of("n", 1));
    assertThat(freezer.readConnectionParcel("otto", "C1")).contains(Map.of("n", 2));
    assertThat(freezer.readConnectionParcel("otto", "../c1")).contains(Map.of("n", 3));
    freezer.dropConnectionParcel("otto", "c1");
    assertThat(freezer.readConnectionParcel("otto", "c1")).isEmpty();
    assertThat(freezer.readConnectionParcel("otto", "C1")).contains(Map.of("n", 2));
    assertThat(names(freezer.folder("otto"))).filteredOn(n -> !n.startsWith(SpareParcels.PREFIX))
        .containsExactly(".lock", "connection-%2E%2E%2Fc1.parcel", "connection-C1.parcel");
    assertThat(names(freezer.folder("otto"))).filteredOn(n -> n.startsWith(SpareParcels.PREFIX))
        .as("the dropped parcel's file, kept emptied for reuse").hasSize(1);
  }

  @Test
  void writingWithoutTheSemaphoreIsRefusedAndCreatesNothing() throws Exception {
    Freezer freezer = freezer();
    assertThatThrownBy(() -> freezer.writeUserParcel("carol", STORE, "w", "freeze", "g"))
        .isInstanceOfSatisfying(FreezerException.class,
            e -> assertThat(e.reason()).isEqualTo(FreezerException.Reason.FOLDER_MISSING))
        .hasMessageContaining("semaphore");
    assertThat(freezer.folderKeys()).isEmpty();
  }

  @Test
  void readsAreAbsentWhenThereIsNothing() throws Exception {
    Freezer freezer = freezer();
    assertThat(freezer.readUserParcel("nobody")).isEmpty();
    assertThat(freezer.readConnectionParcel("nobody", "c")).isEmpty();
    assertThat(freezer.userParcelHeader("nobody")).isEmpty();
    assertThat(freezer.readCommanderParcel()).isEmpty();
    assertThat(freezer.semaphoreHolder("nobody")).isEmpty();
    freezer.tryTakeSemaphore("dave", "w");
    assertThat(freezer.readUserParcel("dave")).isEmpty();
    assertThat(freezer.connectionParcelHeader("dave", "c")).isEmpty();
  }

  @Test
  void dropsAskForAbsenceAndTheReleaseTakesTheEmptyFolder() throws Exception {
    Freezer freezer = freezer();
    freezer.dropUserParcel("erin");
    freezer.dropConnectionParcel("erin", "c1");
    freezer.dropCommanderParcel();
    freezer.tryTakeSemaphore("erin", "w");
    freezer.writeUserParcel("erin", STORE, "w", "freeze", "g");
    freezer.writeConnectionParcel("erin", "c1", STORE, "w", "freeze", "g");
    freezer.dropUserParcel("erin");
    freezer.dropUserParcel("erin");
    assertThat(freezer.readUserParcel("erin")).isEmpty();
    assertThat(freezer.semaphoreHolder("erin").orElseThrow().holder()).isEqualTo("w");
    freezer.releaseSemaphore("erin", "w");
    assertThat(freezer.folder("erin")).isDirectory();
    assertThat(freezer.readConnectionParcel("erin", "c1")).contains(STORE);
    freezer.tryTakeSemaphore("erin", "w2");
    freezer.dropConnectionParcel("erin", "c1");
    assertThat(freezer.folder("erin")).isDirectory();
    freezer.releaseSemaphore("erin", "w2");
    assertThat(freezer.folder("erin")).doesNotExist();
  }

  @Test
  void droppingAUsersFolderSaysWhetherThereWasAnythingAndVerifiesItIsGone() throws Exception {
    Freezer freezer = freezer();
    assertThat(freezer.dropUserFolder("frank")).isFalse();
    freezer.tryTakeSemaphore("frank", "w");
    freezer.writeUserParcel("frank", STORE, "w", "freeze", "g");
    assertThat(freezer.dropUserFolder("frank")).isTrue();
    assertThat(freezer.folder("frank")).doesNotExist();
    assertThat(freezer.dropUserFolder("frank")).isFalse();
  }

  @Test
  void theSweepRemovesUnclaimedFoldersSortedAndNeverTheCommandersParcel() throws Exception {
    Freezer freezer = freezer();
    for (String user : List.of("zed", "amy", "kim", "bo")) {
      freezer.tryTakeSemaphore(user, "w");
      freezer.writeUserParcel(user, STORE, "w", "freeze", "g");
    }
    freezer.writeCommanderParcel(Map.of("epoch", 7), "commander", "stop");
    Files.createDirectory(freezer.root().resolve("stray"));
    assertThat(freezer.folderKeys()).containsExactlyInAnyOrder("zed", "amy", "kim", "bo", "stray");
    List<String> swept = freezer.cleanupFrozen(Set.of(Freezer.key("kim"), Freezer.key("amy")));
    assertThat(swept).containsExactly("bo", "stray", "zed");
    assertThat(freezer.folderKeys()).containsExactly("amy", "kim");
    for (String key : swept) {
      assertThat(freezer.root().resolve(key)).doesNotExist();
    }
    assertThat(freezer.readCommanderParcel()).contains(Map.of("epoch", 7));
    assertThat(freezer.commanderParcelHeader().orElseThrow().group()).isEmpty();
    assertThat(freezer.cleanupFrozen(Set.of())).containsExactly("amy", "kim");
    assertThat(freezer.readCommanderParcel()).isPresent();
  }

  static byte[] utf16(String text) {
    return text.getBytes(java.nio.charset.StandardCharsets.UTF_16BE);
  }

  @Test
  void hostileIdentitiesStayInsideTheRootEachInItsOwnFolder() throws Exception {
    Freezer freezer = freezer();
    Files.writeString(temp.resolve("a/b/x"), "outside");
    for (String user : FolderKeysTest.HOSTILE) {
      assertThat(freezer.tryTakeSemaphore(user, "w")).as("user %s", user).isTrue();
      freezer.writeUserParcel(user, Map.of("who", utf16(user)), "w", "freeze", "g");
      freezer.writeConnectionParcel(user, user, Map.of("cid", utf16(user)), "w", "freeze", "g");
    }
    for (String user : FolderKeysTest.HOSTILE) {
      assertThat(freezer.folder(user).getParent()).isEqualTo(freezer.root());
      assertThat((byte[]) ((Map<?, ?>) freezer.readUserParcel(user).orElseThrow()).get("who"))
          .isEqualTo(utf16(user));
      assertThat((byte[]) ((Map<?, ?>) freezer.readConnectionParcel(user, user).orElseThrow()).get("cid"))
          .isEqualTo(utf16(user));
    }
    assertThat(freezer.folderKeys()).hasSize(FolderKeysTest.HOSTILE.size());
    assertThat(Files.readString(temp.resolve("a/b/x"))).isEqualTo("outside");
    assertThat(names(temp.resolve("a/b"))).containsExactly("freezer", "x");
  }

  @Test
  void aTornParcelOnDiskIsALoudErrorNamingTheFileAndNothingIsChanged() throws Exception {
    Freezer freezer = freezer();
    freezer.tryTakeSemaphore("gus", "w");
    freezer.writeUserParcel("gus", STORE, "w", "freeze", "g");
    Path file = freezer.folder("gus").resolve(Freezer.USER_PARCEL);
    byte[] bytes = Files.readAllBytes(file);
    Files.write(file, java.util.Arrays.copyOf(bytes, bytes.length - 3));
    assertThatThrownBy(() -> freezer.readUserParcel("gus"))
        .isInstanceOfSatisfying(FreezerException.class, e -> {
          assertThat(e.reason()).isEqualTo(FreezerException.Reason.CORRUPT_PARCEL);
          assertThat(e.file()).isEqualTo(file);
        }).hasMessageContaining(file.toString());
    assertThat(freezer.userParcelHeader("gus").orElseThrow().writer()).isEqualTo("w");
    assertThat(file).exists();
    freezer.dropUserParcel("gus");
    freezer.releaseSemaphore("gus", "w");
    assertThat(freezer.folderKeys()).isEmpty();
  }

  @Test
  void aSymbolicLinkWhereAParcelShouldBeIsNeitherFollowedNorWrittenThrough() throws Exception {
    Freezer freezer = freezer();
    Path target = Files.writeString(temp.resolve("target"), "secret");
    freezer.tryTakeSemaphore("hal", "w");
    Files.createSymbolicLink(freezer.folder("hal").resolve(Freezer.USER_PARCEL), target);
    assertThatThrownBy(() -> freezer.readUserParcel("hal")).isInstanceOfSatisfying(FreezerException.class,
        e -> assertThat(e.reason()).isEqualTo(FreezerException.Reason.NOT_A_REGULAR_FILE));
    // Written whole into a new file and renamed over the name: the link itself is replaced, never
    // followed nor written through.
    freezer.writeUserParcel("hal", STORE, "w", "freeze", "g");
    assertThat(Files.readString(target)).isEqualTo("secret");
    assertThat(freezer.folder("hal").resolve(Freezer.USER_PARCEL)).isRegularFile()
        .isNotEqualTo(target);
    assertThat(Files.isSymbolicLink(freezer.folder("hal").resolve(Freezer.USER_PARCEL))).isFalse();
    assertThat(freezer.readUserParcel("hal")).contains(STORE);
    assertThat(freezer.dropUserFolder("hal")).isTrue();
    assertThat(Files.readString(target)).isEqualTo("secret");
  }

  @Test
  void aParcelOfAnotherCodecIsRefusedNamingBoth() throws Exception {
    Freezer freezer = freezer();
    freezer.tryTakeSemaphore("ivy", "w");
    Files.write(freezer.folder("ivy").resolve(Freezer.USER_PARCEL), ParcelFormat.encode(
        new ParcelHeader("w", Instant.now(), "freeze", "g", "java-serialization"), new byte[] {(byte) 0xAC, (byte) 0xED}));
    assertThatThrownBy(() -> freezer.readUserParcel("ivy")).isInstanceOfSatisfying(FreezerException.class,
        e -> assertThat(e.reason()).isEqualTo(FreezerException.Reason.INVALID_PAYLOAD))
        .hasMessageContaining("java-serialization");
  }

  @Test
  void aPlantedParcelNamingAClassIsRefusedOrPlainDataNeverInstantiated() throws Exception {
    Freezer freezer = freezer();
    freezer.tryTakeSemaphore("jo", "w");
    java.io.ByteArrayOutputStream serialized = new java.io.ByteArrayOutputStream();
    try (java.io.ObjectOutputStream out = new java.io.ObjectOutputStream(serialized)) {
      out.writeObject(new PlainDataCodecsTest.Planted());
    }
    PlainDataCodecsTest.Planted.instantiated = false;
    Path file = freezer.folder("jo").resolve(Freezer.USER_PARCEL);
    Files.write(file, ParcelFormat.encode(new ParcelHeader("w", Instant.now(), "freeze", "g", SmileCodec.NAME),
        serialized.toByteArray()));
    try {
      Optional<Object> read = freezer.readUserParcel("jo");
      assertThat(read.orElse(null)).isNotInstanceOf(PlainDataCodecsTest.Planted.class);
    } catch (FreezerException e) {
      assertThat(e.reason()).isEqualTo(FreezerException.Reason.INVALID_PAYLOAD);
      assertThat(e.getMessage()).contains(file.toString());
    }
    Files.write(file, ParcelFormat.encode(new ParcelHeader("w", Instant.now(), "freeze", "g", SmileCodec.NAME),
        new com.fasterxml.jackson.dataformat.smile.databind.SmileMapper().writeValueAsBytes(
            Map.of("@class", PlainDataCodecsTest.Planted.class.getName(), "value", "y"))));
    assertThat(freezer.readUserParcel("jo")).contains(Map.of("@class", PlainDataCodecsTest.Planted.class.getName(), "value", "y"));
    assertThat(PlainDataCodecsTest.Planted.instantiated).isFalse();
  }

  @Test
  void wipeEmptiesTheRootAndDropRemovesIt() throws Exception {
    Freezer freezer = freezer();
    freezer.tryTakeSemaphore("kay", "w");
    freezer.writeUserParcel("kay", STORE, "w", "freeze", "g");
    freezer.writeCommanderParcel(STORE, "c", "stop");
    freezer.wipeRoot();
    assertThat(names(freezer.root())).isEmpty();
    assertThat(mode(freezer.root())).isEqualTo("rwx------");
    freezer.dropRoot();
    assertThat(freezer.root()).doesNotExist();
    freezer.dropRoot();
    freezer.wipeRoot();
    assertThat(freezer.root()).isDirectory();
  }

  @Test
  void renameRootMovesTheWholeRootAtomicallyAndTheFreezerFollows() throws Exception {
    Freezer freezer = freezer();
    Path old = freezer.root();
    freezer.tryTakeSemaphore("lea", "w");
    freezer.writeUserParcel("lea", STORE, "w", "freeze", "g");
    freezer.releaseSemaphore("lea", "w");
    Path occupied = Files.createDirectory(temp.resolve("occupied"));
    assertThatThrownBy(() -> freezer.renameRoot(occupied)).isInstanceOfSatisfying(FreezerException.class,
        e -> assertThat(e.reason()).isEqualTo(FreezerException.Reason.RENAME_REFUSED));
    assertThat(freezer.root()).isEqualTo(old);
    assertThat(occupied).as("an empty directory there is refused, never replaced").isEmptyDirectory();
    Path destination = temp.resolve("renamed");
    freezer.renameRoot(destination);
    assertThat(old).doesNotExist();
    assertThat(freezer.root()).isEqualTo(destination);
    assertThat(freezer.readUserParcel("lea")).contains(STORE);
    assertThat(destination.resolve(Freezer.key("lea"))).isDirectory();
  }

  @Test
  void renameRootAcrossFileSystemsRefusesAndNeverCopies() throws Exception {
    Path other = Path.of("/dev/shm");
    Assumptions.assumeTrue(Files.isDirectory(other) && Files.isWritable(other),
        "no /dev/shm to rename across file systems");
    Assumptions.assumeFalse(Files.getFileStore(other).equals(Files.getFileStore(temp)),
        "/dev/shm and " + temp + " are the same file system: nothing to refuse here");
    Freezer freezer = freezer();
    Path old = freezer.root();
    freezer.tryTakeSemaphore("max", "w");
    freezer.writeUserParcel("max", STORE, "w", "freeze", "g");
    Path destination = other.resolve("cryo-freezer-test-" + ProcessHandle.current().pid() + "-" + System.nanoTime());
    try {
      assertThatThrownBy(() -> freezer.renameRoot(destination)).isInstanceOfSatisfying(FreezerException.class,
          e -> {
            assertThat(e.reason()).isEqualTo(FreezerException.Reason.RENAME_REFUSED);
            assertThat(e.getCause()).isInstanceOf(AtomicMoveNotSupportedException.class);
          }).hasMessageContaining("nothing was moved or copied");
      assertThat(destination).doesNotExist();
      assertThat(freezer.root()).isEqualTo(old);
      assertThat(freezer.readUserParcel("max")).contains(STORE);
    } finally {
      if (Files.exists(destination)) {
        new Freezer(destination).dropRoot();
      }
    }
  }

  @Test
  void storageFreePercentIsAShareOfTheWholeFileSystem() throws Exception {
    double free = freezer().storageFreePercent();
    assertThat(free).isGreaterThan(0.0).isLessThanOrEqualTo(100.0);
  }

  @Test
  void aSecondHolderInTheSameProcessFindsTheSemaphoreTaken() throws Exception {
    Freezer freezer = freezer();
    assertThat(freezer.tryTakeSemaphore("ned", "first")).isTrue();
    assertThat(freezer.tryTakeSemaphore("ned", "second")).isFalse();
    assertThatThrownBy(() -> freezer.releaseSemaphore("ned", "second"))
        .isInstanceOf(dev.cryo.lock.LockException.class).hasMessageContaining("first");
    assertThat(freezer.semaphoreHolder("ned").orElseThrow().holder()).isEqualTo("first");
    freezer.releaseSemaphore("ned", "first");
    assertThat(freezer.tryTakeSemaphore("ned", "second")).isTrue();
  }
}
