package dev.cryo.freezer;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The freezer's one durability barrier: {@link Freezer#forceUsers}, {@link Freezer#forceAll} and
 * {@link Freezer#renameRootDurably} force every parcel of the folders they name, then each folder,
 * then the root (the order a power loss needs), skip what is gone or is not a parcel, and never
 * follow a link or block on a FIFO. What is forced is seen through the test seam
 * {@link Forcing#forced}, told each path once its {@code fsync} returned.
 */
class ForcingTest {

  @TempDir Path temp;
  Freezer freezer;
  final List<Path> forced = Collections.synchronizedList(new ArrayList<>());

  @BeforeEach
  void seam() throws Exception {
    freezer = new Freezer(temp.resolve("freezer"));
    Forcing.forced = forced::add;
  }

  @AfterEach
  void restore() {
    Forcing.forced = path -> { };
    Forcing.syncProgram = "sync";
  }

  /** A stand-in for {@code sync}: records its arguments in {@code log}, exits {@code status}. */
  private String fakeSync(Path log, int status) throws Exception {
    Path script = temp.resolve("fake-sync-" + status);
    Files.writeString(script, "#!/bin/sh\necho \"$@\" >> '" + log + "'\nexit " + status + "\n");
    assertThat(script.toFile().setExecutable(true)).isTrue();
    return script.toString();
  }

  private void freeze(String user, String... connections) throws Exception {
    assertThat(freezer.tryTakeSemaphore(user, "w1 freeze")).isTrue();
    freezer.writeUserParcel(user, Map.of("n", 1), "w1", "freeze", "g");
    for (String connection : connections) {
      freezer.writeConnectionParcel(user, connection, Map.of("pages", List.of()), "w1", "freeze",
          "g");
    }
    freezer.releaseSemaphore(user, "w1 freeze");
  }

  @Test
  void forcesEveryParcelOfTheUsersThenTheirFoldersThenTheRoot() throws Exception {
    freeze("alice", "c1", "c2");
    freeze("bob", "c3");
    Path folder = freezer.folder("alice");

    assertThat(freezer.forceUsers(List.of("alice"))).isEqualTo(1);

    assertThat(forced).containsExactlyInAnyOrder(folder.resolve(Freezer.USER_PARCEL),
        freezer.connectionParcel("alice", "c1"), freezer.connectionParcel("alice", "c2"), folder,
        freezer.root());
    assertThat(forced.indexOf(folder)).as("the folder after its parcels").isEqualTo(3);
    assertThat(forced.get(4)).as("the root last").isEqualTo(freezer.root());
  }

  @Test
  void theSemaphoreIsNeverForced() throws Exception {
    assertThat(freezer.tryTakeSemaphore("alice", "w1 freeze")).isTrue();
    freezer.writeUserParcel("alice", Map.of("n", 1), "w1", "freeze", "g");

    freezer.forceUsers(List.of("alice"));

    assertThat(forced).doesNotContain(freezer.folder("alice").resolve(".lock"))
        .contains(freezer.folder("alice").resolve(Freezer.USER_PARCEL));
    freezer.releaseSemaphore("alice", "w1 freeze");
  }

  @Test
  @Timeout(value = 30, unit = TimeUnit.SECONDS)
  void aGoneUserALinkAndAFifoAreSkippedNeverFollowedAndNeverWaitedFor() throws Exception {
    freeze("alice", "c1");
    Path folder = freezer.folder("alice");
    Path outside = Files.writeString(temp.resolve("outside.parcel"), "not ours");
    Files.createSymbolicLink(folder.resolve("planted.parcel"), outside);
    Process mkfifo = new ProcessBuilder("mkfifo", folder.resolve("fifo.parcel").toString())
        .start();
    assertThat(mkfifo.waitFor()).isZero();
    Files.createSymbolicLink(freezer.root().resolve(Freezer.key("mallory")), temp);

    assertThat(freezer.forceUsers(List.of("alice", "nobody", "mallory"))).isEqualTo(1);

    assertThat(forced).containsExactlyInAnyOrder(folder.resolve(Freezer.USER_PARCEL),
        freezer.connectionParcel("alice", "c1"), folder, freezer.root());
  }

  @Test
  void manyFoldersAreForcedByOneSyncfsOfTheRootsFileSystem() throws Exception {
    Path log = temp.resolve("sync.log");
    Forcing.syncProgram = fakeSync(log, 0);
    List<String> users = IntStream.range(0, Forcing.SYNCFS_ABOVE + 1).mapToObj(i -> "user" + i)
        .toList();
    for (String user : users) {
      freeze(user, "c-" + user);
    }
    freezer.writeCommanderParcel(Map.of("frozen", users), "commander", "drain");

    assertThat(freezer.forceAll()).isEqualTo(users.size());
    assertThat(freezer.forceUsers(users)).isEqualTo(users.size());

    assertThat(Files.readAllLines(log)).containsExactly("--file-system " + freezer.root(),
        "--file-system " + freezer.root());
    assertThat(forced).containsExactly(freezer.root().resolve(Freezer.COMMANDER_PARCEL),
        freezer.root(), freezer.root());
  }

  @Test
  void fewFoldersAreForcedOneByOneWithoutAsyncfs() throws Exception {
    Path log = temp.resolve("sync.log");
    Forcing.syncProgram = fakeSync(log, 0);
    freeze("alice", "c1");

    freezer.forceAll();

    assertThat(log).doesNotExist();
    assertThat(forced).contains(freezer.folder("alice").resolve(Freezer.USER_PARCEL));
  }

  @Test
  void forceAllForcesEveryFolderInParallelWhenTheSyncfsFails() throws Exception {
    Path log = temp.resolve("sync.log");
    Forcing.syncProgram = fakeSync(log, 1);
    List<String> users = IntStream.range(0, 3 * Forcing.PARALLEL).mapToObj(i -> "user" + i)
        .toList();
    for (String user : users) {
      freeze(user, "c-" + user);
    }
    freezer.writeCommanderParcel(Map.of("frozen", users), "commander", "drain");

    assertThat(freezer.forceAll()).isEqualTo(users.size());

    assertThat(forced).contains(freezer.root().resolve(Freezer.COMMANDER_PARCEL));
    for (String user : users) {
      assertThat(forced).contains(freezer.folder(user),
          freezer.folder(user).resolve(Freezer.USER_PARCEL),
          freezer.connectionParcel(user, "c-" + user));
    }
    assertThat(forced.get(forced.size() - 1)).isEqualTo(freezer.root());
    assertThat(forced).hasSize(users.size() * 3 + 2);
    assertThat(Files.readAllLines(log)).as("tried first").hasSize(1);
  }

  @Test
  void aMissingSyncProgramFallsBackToTheForcesOneByOne() throws Exception {
    Forcing.syncProgram = temp.resolve("no-such-program").toString();
    List<String> users = IntStream.range(0, Forcing.SYNCFS_ABOVE + 1).mapToObj(i -> "user" + i)
        .toList();
    for (String user : users) {
      freeze(user);
    }

    assertThat(freezer.forceUsers(users)).isEqualTo(users.size());

    assertThat(forced).hasSize(users.size() * 2 + 1);
  }

  @Test
  void theSystemsSyncfsRunsHere() {
    assertThat(Forcing.syncFileSystem(freezer.root())).as("sync --file-system on this system")
        .isTrue();
  }

  @Test
  void aDurableRenameForcesTheRootBeforeItAndTheParentAfterIt() throws Exception {
    freeze("alice", "c1");
    Path old = freezer.root();
    Path reboot = temp.resolve("reboot");

    freezer.renameRootDurably(reboot);

    Path renamed = reboot.toRealPath();
    assertThat(freezer.root()).isEqualTo(renamed);
    int rootForced = forced.indexOf(old);
    assertThat(rootForced).as("the root forced under its old name").isPositive();
    assertThat(forced.subList(0, rootForced)).contains(old.resolve(Freezer.key("alice"))
        .resolve(Freezer.USER_PARCEL));
    assertThat(forced.get(forced.size() - 1)).as("the parent of the new name, after the rename")
        .isEqualTo(renamed.getParent());
    assertThat(freezer.readUserParcel("alice")).contains(Map.of("n", 1));
    assertThat(Set.copyOf(forced)).doesNotContain(renamed.resolve(Freezer.key("alice")));
  }
}
