package dev.cryo.chaos.nemesis;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.TimeUnit;

/**
 * The run's home on a file system of its own — a tmpfs of a fixed size the harness mounts (as
 * root) — so that the nemesis can fill it up and give the space back. {@link #mount} says why when
 * it cannot; the disk fault is skipped then.
 */
public final class SmallDisk implements AutoCloseable {

  private static final String BALLAST = "chaos-ballast";

  private final Path mountPoint;

  private SmallDisk(Path mountPoint) {
    this.mountPoint = mountPoint;
  }

  /**
   * Mounts a tmpfs of {@code megabytes} at {@code mountPoint} (an empty directory); returns it, or
   * throws saying why it could not (not root, no mount(8), refused by the kernel).
   */
  public static SmallDisk mount(Path mountPoint, int megabytes)
      throws IOException, InterruptedException {
    Files.createDirectories(mountPoint);
    Process mount = new ProcessBuilder("mount", "-t", "tmpfs", "-o",
        "size=" + megabytes + "m,mode=0700", "tmpfs", mountPoint.toString())
        .redirectErrorStream(true).start();
    String said = new String(mount.getInputStream().readAllBytes(), StandardCharsets.UTF_8)
        .strip();
    if (!mount.waitFor(10, TimeUnit.SECONDS) || mount.exitValue() != 0) {
      throw new IOException("mount -t tmpfs refused (" + said + ")");
    }
    return new SmallDisk(mountPoint);
  }

  /** Fills the file system up with a ballast file; returns how many bytes it took. */
  public long fill() throws IOException {
    Path ballast = mountPoint.resolve(BALLAST);
    byte[] block = new byte[1 << 20];
    long written = 0;
    try (OutputStream stream = Files.newOutputStream(ballast, StandardOpenOption.CREATE,
        StandardOpenOption.APPEND)) {
      while (true) {
        stream.write(block);
        written += block.length;
      }
    } catch (IOException full) {
      // No space left: what we wanted. Smaller writes take the rest.
    }
    try (OutputStream stream = Files.newOutputStream(ballast, StandardOpenOption.APPEND)) {
      byte[] small = new byte[4096];
      while (true) {
        stream.write(small);
        written += small.length;
      }
    } catch (IOException full) {
      return written;
    }
  }

  /** Gives the space back: the ballast is deleted. */
  public void release() throws IOException {
    Files.deleteIfExists(mountPoint.resolve(BALLAST));
  }

  /** Unmounts the file system (lazily: a process still in it does not keep it). */
  @Override
  public void close() throws IOException, InterruptedException {
    release();
    new ProcessBuilder("umount", "-l", mountPoint.toString()).redirectErrorStream(true)
        .redirectOutput(ProcessBuilder.Redirect.DISCARD).start().waitFor(10, TimeUnit.SECONDS);
  }
}
