package dev.cryo.freezer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A full disk during a write, on a real 64 KiB tmpfs: a clear error, and the other parcels and the
 * semaphore intact and releasable. Needs the right to mount (root); skipped with a message otherwise.
 */
class FullDiskTest {

  @TempDir Path temp;
  Path mountPoint;

  static boolean run(String... command) throws Exception {
    Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
    process.getInputStream().readAllBytes();
    return process.waitFor(30, TimeUnit.SECONDS) && process.exitValue() == 0;
  }

  @AfterEach
  void unmount() throws Exception {
    if (mountPoint != null) {
      assertThat(run("umount", mountPoint.toString())).as("umount " + mountPoint).isTrue();
    }
  }

  @Test
  void aFullDiskDuringAWriteIsAClearErrorAndLeavesTheRestIntact() throws Exception {
    Path directory = Files.createDirectory(temp.resolve("small"));
    Assumptions.assumeTrue(run("mount", "-t", "tmpfs", "-o", "size=64k,mode=0700", "tmpfs", directory.toString()),
        "cannot mount a small tmpfs here (needs root): the full-disk test is skipped");
    mountPoint = directory;
    Freezer freezer = new Freezer(directory.resolve("freezer"));
    assertThat(freezer.tryTakeSemaphore("alice", "worker-1")).isTrue();
    freezer.writeUserParcel("alice", Map.of("cart", "small"), "worker-1", "freeze", "g");
    freezer.writeConnectionParcel("alice", "c1", Map.of("page", 1), "worker-1", "freeze", "g");
    Path big = freezer.connectionParcel("alice", "c2");

    assertThatThrownBy(() -> freezer.writeConnectionParcel("alice", "c2",
        Map.of("pages", new byte[256 * 1024]), "worker-1", "freeze", "g"))
        .isInstanceOfSatisfying(FreezerException.class, e -> {
          assertThat(e.reason()).isEqualTo(FreezerException.Reason.IO_FAILURE);
          assertThat(e.file()).isEqualTo(big);
        })
        .hasMessageContaining(big.toString())
        .hasMessageContaining("the other parcels and the semaphore were not touched");

    assertThat(freezer.readConnectionParcel("alice", "c2")).as("nothing torn at its name")
        .isEmpty();
    assertThat(freezer.readUserParcel("alice")).contains(Map.of("cart", "small"));
    assertThat(freezer.readConnectionParcel("alice", "c1")).contains(Map.of("page", 1));
    assertThat(freezer.semaphoreHolder("alice").orElseThrow().holder()).isEqualTo("worker-1");

    freezer.dropConnectionParcel("alice", "c2");
    freezer.writeConnectionParcel("alice", "c3", Map.of("page", 3), "worker-1", "freeze", "g");
    freezer.dropUserParcel("alice");
    freezer.dropConnectionParcel("alice", "c1");
    freezer.dropConnectionParcel("alice", "c3");
    freezer.releaseSemaphore("alice", "worker-1");
    assertThat(freezer.folderKeys()).isEmpty();
  }

  /**
   * A checkpoint's write over the user's parcel of his earlier checkpoint, refused by a full disk:
   * the earlier parcel stays whole and readable (it used to be emptied first, and a worker killed
   * then lost the user), and the write succeeds once space returns.
   */
  @Test
  void aRefusedWriteOverAParcelKeepsTheParcelThereWhole() throws Exception {
    Path directory = Files.createDirectory(temp.resolve("over"));
    Assumptions.assumeTrue(run("mount", "-t", "tmpfs", "-o", "size=256k,mode=0700", "tmpfs",
        directory.toString()), "cannot mount a small tmpfs here (needs root): the full-disk test"
        + " is skipped");
    mountPoint = directory;
    Freezer freezer = new Freezer(directory.resolve("freezer"));
    assertThat(freezer.tryTakeSemaphore("alice", "worker-1")).isTrue();
    freezer.writeUserParcel("alice", Map.of("clicks", 1), "worker-1", "checkpoint", "g");
    freezer.writeUserParcel("alice", Map.of("clicks", 2), "worker-1", "checkpoint", "g");
    Path filler = directory.resolve("filler");
    try (var out = Files.newOutputStream(filler)) {
      byte[] block = new byte[4096];
      while (true) {
        out.write(block);
        out.flush();
      }
    } catch (java.io.IOException full) {
      // the disk is full now
    }

    assertThatThrownBy(() -> freezer.writeUserParcel("alice", Map.of("clicks", 3, "notes",
        new byte[64 * 1024]), "worker-1", "checkpoint", "g"))
        .isInstanceOfSatisfying(FreezerException.class,
            e -> assertThat(e.reason()).isEqualTo(FreezerException.Reason.IO_FAILURE))
        .hasMessageContaining("the parcel there before, if any, is kept whole");
    assertThat(freezer.readUserParcel("alice")).contains(Map.of("clicks", 2));

    Files.delete(filler);
    freezer.writeUserParcel("alice", Map.of("clicks", 4), "worker-1", "checkpoint", "g");
    assertThat(freezer.readUserParcel("alice")).contains(Map.of("clicks", 4));
    freezer.dropUserParcel("alice");
    freezer.releaseSemaphore("alice", "worker-1");
  }

  @Test
  void aFullDiskDuringATakeLeavesNoEmptyFolderBehind() throws Exception {
    Path directory = Files.createDirectory(temp.resolve("full"));
    Assumptions.assumeTrue(run("mount", "-t", "tmpfs", "-o", "size=64k,mode=0700", "tmpfs", directory.toString()),
        "cannot mount a small tmpfs here (needs root): the full-disk test is skipped");
    mountPoint = directory;
    Freezer freezer = new Freezer(directory.resolve("freezer"));
    Path filler = directory.resolve("filler");
    try (var out = Files.newOutputStream(filler)) {
      byte[] block = new byte[4096];
      while (true) {
        out.write(block);
        out.flush();
      }
    } catch (java.io.IOException full) {
      // the disk is full now
    }
    assertThatThrownBy(() -> freezer.tryTakeSemaphore("alice", "worker-1"))
        .isInstanceOfSatisfying(dev.cryo.lock.LockException.class,
            e -> assertThat(e.reason()).isEqualTo(dev.cryo.lock.LockException.Reason.IO_FAILURE));
    assertThat(freezer.folderKeys()).as("no empty folder without a lock is left").isEmpty();
    Files.delete(filler);
    assertThat(freezer.tryTakeSemaphore("alice", "worker-1")).isTrue();
    freezer.releaseSemaphore("alice", "worker-1");
    assertThat(freezer.folderKeys()).isEmpty();
  }
}
