package dev.cryo.control;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A control file on a read-only mount cannot be opened read-write, which is what keeps a FIFO from
 * blocking the reader. It is opened read-only only when nobody but this user or root may change its
 * directory: a read-only bind mount does not stop the directory's owner from swapping a FIFO in
 * through another mount.
 *
 * <p>Real mounts: the child JVM runs as root in its own mount namespace where the run directory is
 * bind-mounted read-only ({@code unshare}); this JVM swaps a FIFO in through the writable mount,
 * right when the child says its read-write open was refused. Needs root; skipped otherwise.
 */
class ReadOnlyMountTest {

  private static final long BOUND_SECONDS = 30;

  @TempDir Path base;

  @BeforeEach
  void needsRoot() throws IOException {
    assumeThat(Files.getAttribute(Path.of("/proc/self"), "unix:uid")).isEqualTo(0);
    assumeThat(Files.isExecutable(Path.of("/usr/bin/unshare"))).isTrue();
    Files.setPosixFilePermissions(base, PosixFilePermissions.fromString("rwxr-xr-x"));
  }

  /** A run directory owned by {@code owner} (0755) with a drain request for a run. */
  private Path runDirectoryOwnedBy(int owner) throws Exception {
    Path home = base.resolve("run");
    RunDirectory directory = RunDirectory.at(home);
    directory.writeRunState(RunState.begin());
    assertThat(directory.requestStop(StopMode.NOW).written()).isTrue();
    Files.setPosixFilePermissions(home, PosixFilePermissions.fromString("rwxr-xr-x"));
    Files.setAttribute(home, "unix:uid", owner);
    return home;
  }

  /** Reads the stop request of {@code home} in a child where it is a read-only bind mount. */
  private String readOnAReadOnlyMount(Path home, boolean swapInAFifo) throws Exception {
    List<String> command = new ArrayList<>(List.of("unshare", "-m", "sh", "-c",
        "mount --make-rprivate / && mount --bind \"$0\" \"$0\" && mount -o remount,bind,ro"
            + " \"$0\" \"$0\" && exec \"$@\"", home.toString(),
        Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC",
        "-cp", System.getProperty("java.class.path"), ReadStopRequestMain.class.getName(),
        home.toString()));
    Process child = new ProcessBuilder(command).redirectErrorStream(true).start();
    try {
      BufferedReader out = new BufferedReader(new InputStreamReader(child.getInputStream(),
          StandardCharsets.UTF_8));
      assertThat(line(out, "@REFUSED")).isNotNull();
      if (swapInAFifo) {
        Path request = home.resolve(StopRequest.FILE_NAME);
        Files.delete(request);
        assertThat(new ProcessBuilder("mkfifo", request.toString()).start().waitFor()).isZero();
      }
      OutputStream in = child.getOutputStream();
      in.write("go\n".getBytes(StandardCharsets.UTF_8));
      in.flush();
      String read = line(out, "@READ ");
      assertThat(child.waitFor(BOUND_SECONDS, TimeUnit.SECONDS)).isTrue();
      return read;
    } finally {
      child.destroyForcibly();
    }
  }

  /** The next line of the child starting with {@code prefix}, waiting at most the bound. */
  private static String line(BufferedReader out, String prefix) throws Exception {
    CompletableFuture<String> found = CompletableFuture.supplyAsync(() -> {
      try {
        StringBuilder seen = new StringBuilder();
        for (String line; (line = out.readLine()) != null; ) {
          if (line.startsWith(prefix)) {
            return line.substring(prefix.length());
          }
          seen.append(line).append('\n');
        }
        throw new AssertionError("the child ended before '" + prefix + "':\n" + seen);
      } catch (IOException e) {
        throw new AssertionError(e);
      }
    });
    try {
      return found.get(BOUND_SECONDS, TimeUnit.SECONDS);
    } catch (TimeoutException e) {
      throw new AssertionError("the child did not say '" + prefix + "' within " + BOUND_SECONDS
          + " s: its read blocked");
    }
  }

  @Test
  void aRequestOnAReadOnlyMountInAnotherUsersDirectoryIsNotOpenedReadOnly() throws Exception {
    Path home = runDirectoryOwnedBy(65534);

    String read = readOnAReadOnlyMount(home, true);

    assertThat(read).startsWith("unparseable").contains("not opened read-only");
  }

  @Test
  void aRequestOnAReadOnlyMountInRootsDirectoryIsRead() throws Exception {
    Path home = runDirectoryOwnedBy(0);

    String read = readOnAReadOnlyMount(home, false);

    assertThat(read).isEqualTo("request now");
  }
}
