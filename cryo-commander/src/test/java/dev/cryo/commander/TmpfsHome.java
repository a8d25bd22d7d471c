package dev.cryo.commander;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/**
 * A small tmpfs mounted for one test, which can be filled to the last byte ({@code ENOSPC}) and
 * emptied again. Mounting needs root: where {@code mount} is not permitted, {@link #mount} skips
 * the test with that reason (an assumption), never lets it pass.
 */
final class TmpfsHome implements AutoCloseable {

  private final Path directory;
  private final Path filler;
  private Thread keeper;

  private TmpfsHome(Path directory) {
    this.directory = directory;
    this.filler = directory.resolve("filler");
  }

  /** Mounts a tmpfs of {@code megabytes} at {@code directory}, or skips the test saying why. */
  static TmpfsHome mount(Path directory, int megabytes) throws IOException, InterruptedException {
    Process mount = new ProcessBuilder("mount", "-t", "tmpfs", "-o",
        "size=" + megabytes + "m,mode=0700", "tmpfs", directory.toString())
        .redirectErrorStream(true).start();
    String said = new String(mount.getInputStream().readAllBytes()).trim();
    boolean done = mount.waitFor(30, TimeUnit.SECONDS) && mount.exitValue() == 0;
    assumeTrue(done, "this test needs a small tmpfs (a full disk) and mount is not permitted"
        + " here (run as root): " + said);
    return new TmpfsHome(directory);
  }

  /** The mounted directory. */
  Path directory() {
    return directory;
  }

  /** Fills the file system until it refuses a write: every later write of data fails. */
  void fill() throws IOException {
    byte[] block = new byte[64 * 1024];
    try (OutputStream out = Files.newOutputStream(filler)) {
      while (true) {
        out.write(block);
      }
    } catch (IOException e) {
      if (!String.valueOf(e.getMessage()).contains("No space left")) {
        throw e;
      }
    }
  }

  /**
   * Keeps the file system full until {@link #empty}: what the run frees (a cut-back log, a replaced
   * file) is taken again within a few milliseconds, as a disk other writers keep full would.
   */
  void keepFull() throws IOException {
    fill();
    keeper = Thread.ofPlatform().daemon().name("tmpfs-keeper").start(() -> {
      byte[] page = new byte[4096];
      try (OutputStream out = Files.newOutputStream(filler, java.nio.file.StandardOpenOption
          .APPEND)) {
        while (!Thread.currentThread().isInterrupted()) {
          try {
            out.write(page);
          } catch (IOException full) {
            Thread.sleep(2); // full again: look once more in a moment
          }
        }
      } catch (IOException | InterruptedException e) {
        // emptied or interrupted: the keeper ends
      }
    });
  }

  /** Gives the space back (stopping a {@link #keepFull} first). */
  void empty() throws IOException, InterruptedException {
    if (keeper != null) {
      keeper.interrupt();
      keeper.join();
      keeper = null;
    }
    Files.deleteIfExists(filler);
  }

  @Override
  public void close() throws IOException, InterruptedException {
    empty();
    new ProcessBuilder("umount", "-l", directory.toString()).inheritIO().start()
        .waitFor(30, TimeUnit.SECONDS);
  }
}
