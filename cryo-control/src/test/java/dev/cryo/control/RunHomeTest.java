package dev.cryo.control;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.cryo.control.ControlException.Reason;
import dev.cryo.control.RunHome.Expected;
import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.ServerSocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The home's rule ({@link RunHome}) in one process: what a claim creates, refuses and makes
 * private, and what each operation afterwards judges. Another user is uid {@value #NOBODY}, which
 * only root can give a file: those cases are skipped otherwise.
 */
class RunHomeTest {

  static final int NOBODY = 65534;
  private static final List<Expected> LAYOUT = List.of(Expected.file("journal"),
      Expected.file("stop-request"), Expected.directory("freezer"),
      Expected.directoryOfFiles("workers"), Expected.directoryOfSockets("sockets"));

  @TempDir Path base;

  @Test
  void aMissingHomeIsCreatedPrivateWithItsParents() throws IOException {
    Path home = base.resolve("a/b/home");

    try (RunHome claimed = RunHome.claim(home, LAYOUT)) {
      assertThat(claimed.path()).isEqualTo(home);
      assertThat(mode(home)).isEqualTo("rwx------");
      assertThat(claimed.tightened()).isEmpty();
      assertThat(claimed.tightenedLine()).isEmpty();
    }
  }

  @Test
  void aHomeOfAnotherUserIsRefusedAndLeftAsItIs() throws IOException {
    assumeRoot();
    Path home = directory("home", "rwxr-xr-x");
    owner(home, NOBODY);

    assertThatThrownBy(() -> RunHome.claim(home, LAYOUT))
        .isInstanceOfSatisfying(ControlException.class, e -> {
          assertThat(e.reason()).isEqualTo(Reason.NOT_OWNED);
          assertThat(e.getMessage()).startsWith(home + " is owned by uid " + NOBODY)
              .contains("nothing was read, changed or deleted").contains("chown 0 " + home)
              .doesNotContain("\n");
        });
    assertThat(mode(home)).isEqualTo("rwxr-xr-x"); // not even made private
  }

  @Test
  void aHomeItsGroupOrOthersMayWriteIsRefused() throws IOException {
    for (String mode : List.of("rwxrwx---", "rwx---rwx", "rwxrwxrwt")) {
      Path home = directory("home-" + mode.hashCode(), mode);

      assertThatThrownBy(() -> RunHome.claim(home, LAYOUT)).as(mode)
          .isInstanceOfSatisfying(ControlException.class, e -> {
            assertThat(e.reason()).isEqualTo(Reason.WRITABLE_BY_OTHERS);
            assertThat(e.getMessage()).startsWith(home + " is writable by")
                .contains("chmod 700 " + home);
          });
      assertThat(mode(home)).isEqualTo(mode.replace('t', 'x'));
    }
  }

  @Test
  void aLinkAtTheHomeIsRefusedNotFollowed() throws IOException {
    Path target = directory("target", "rwx------");
    Path home = Files.createSymbolicLink(base.resolve("home"), target);

    assertThatThrownBy(() -> RunHome.claim(home, LAYOUT))
        .isInstanceOfSatisfying(ControlException.class, e -> {
          assertThat(e.reason()).isEqualTo(Reason.UNSAFE_PATH);
          assertThat(e.getMessage()).startsWith(home + " is a symbolic link");
        });
  }

  @Test
  void whatAnEarlierCryoLeftReadableIsMadePrivateAndNamed() throws IOException {
    Path home = directory("home", "rwxr-xr-x");
    RunDirectory.at(home).writeRunState(RunState.begin()); // an earlier run's
    Path journal = file(home.resolve("journal"), "rw-r--r--");
    Path workers = Files.createDirectories(home.resolve("workers"));
    chmod(workers, "rwxr-x---");
    Path log = file(workers.resolve("main_0001.log"), "rw-r-----");
    Path other = file(home.resolve("not-cryo's"), "rw-r--r--");

    try (RunHome claimed = RunHome.claim(home, LAYOUT)) {
      assertThat(claimed.tightened()).containsExactly(home + " 0755 -> 0700",
          "journal 0644 -> 0600", "workers 0750 -> 0700", "workers/main_0001.log 0640 -> 0600");
      assertThat(claimed.tightenedLine().orElseThrow()).contains(home.toString())
          .contains("0755 -> 0700");
    }
    assertThat(mode(home)).isEqualTo("rwx------");
    assertThat(mode(journal)).isEqualTo("rw-------");
    assertThat(mode(workers)).isEqualTo("rwx------");
    assertThat(mode(log)).isEqualTo("rw-------");
    assertThat(mode(other)).isEqualTo("rw-r--r--"); // a name the run does not use: not its business
  }

  @Test
  void aRefusalNarrowsNothingItHadAcceptedBefore() throws IOException {
    Path home = directory("home", "rwxr-xr-x");
    RunDirectory.at(home).writeRunState(RunState.begin());
    Path journal = file(home.resolve("journal"), "rw-r--r--");
    Path workers = Files.createDirectories(home.resolve("workers"));
    chmod(workers, "rwxr-xr-x");
    Files.createSymbolicLink(workers.resolve("main_0001.log"), journal);

    assertThatThrownBy(() -> RunHome.claim(home, LAYOUT))
        .isInstanceOfSatisfying(ControlException.class,
            e -> assertThat(e.reason()).isEqualTo(Reason.NOT_A_REGULAR_FILE));
    assertThat(mode(home)).isEqualTo("rwxr-xr-x");
    assertThat(mode(journal)).isEqualTo("rw-r--r--");
    assertThat(mode(workers)).isEqualTo("rwxr-xr-x");
  }

  @Test
  void aReadableHomeThatDoesNotLookLikeARunDirectoryIsRefusedNotNarrowed() throws IOException {
    Path home = directory("home", "rwxr-xr-x"); // /usr, or a user's own home directory
    file(home.resolve("notes.txt"), "rw-r--r--");

    assertThatThrownBy(() -> RunHome.claim(home, LAYOUT))
        .isInstanceOfSatisfying(ControlException.class, e -> {
          assertThat(e.reason()).isEqualTo(Reason.NOT_PRIVATE);
          assertThat(e.getMessage()).startsWith(home + " may be read or entered by others (mode"
              + " 0755)").contains("no run.json").contains("chmod 700 " + home);
        });
    assertThat(mode(home)).isEqualTo("rwxr-xr-x");

    Path empty = directory("empty", "rwxr-xr-x"); // made by mkdir for the run: made private
    try (RunHome claimed = RunHome.claim(empty, LAYOUT)) {
      assertThat(claimed.tightened()).containsExactly(empty + " 0755 -> 0700");
    }
    assertThat(mode(empty)).isEqualTo("rwx------");
  }

  @Test
  void somethingElseWhereTheRunKeepsAFileOrDirectoryIsRefused() throws Exception {
    Path target = file(base.resolve("precious"), "rw-r--r--");
    Files.writeString(target, "precious");
    assertRefused("journal", home -> Files.createSymbolicLink(home.resolve("journal"), target),
        Reason.NOT_A_REGULAR_FILE, "is a symbolic link, where the run keeps a regular file");
    assertRefused("stop-request", home -> mkfifo(home.resolve("stop-request")),
        Reason.NOT_A_REGULAR_FILE, "is a FIFO");
    assertRefused("journal", home -> Files.createDirectory(home.resolve("journal")),
        Reason.NOT_A_REGULAR_FILE, "is a directory");
    assertRefused("freezer", home -> Files.createSymbolicLink(home.resolve("freezer"), base),
        Reason.UNSAFE_PATH, "is a symbolic link, where the run keeps a directory");
    assertRefused("freezer", home -> Files.writeString(home.resolve("freezer"), "x"),
        Reason.UNSAFE_PATH, "is a regular file");
    assertRefused("workers/main_0001.log", home -> Files.createSymbolicLink(
        Files.createDirectory(home.resolve("workers")).resolve("main_0001.log"), target),
        Reason.NOT_A_REGULAR_FILE, "is a symbolic link");
    assertRefused("sockets/main_0001.sock", home -> Files.writeString(
        Files.createDirectory(home.resolve("sockets")).resolve("main_0001.sock"), "x"),
        Reason.UNSAFE_PATH, "is a regular file, where the run keeps a worker's socket");
    assertThat(target).hasContent("precious");
  }

  @Test
  void aStaleSocketOfTheUserIsNoRefusal() throws IOException {
    Path home = directory("home", "rwx------");
    Path sockets = Files.createDirectory(home.resolve("sockets"));
    try (ServerSocketChannel server = ServerSocketChannel.open(StandardProtocolFamily.UNIX)) {
      server.bind(UnixDomainSocketAddress.of(sockets.resolve("main_0001.sock")));
      RunHome.claim(home, LAYOUT).close();
    }
  }

  @Test
  void anEntryOfAnotherUserIsRefusedAtTheClaimAndWhenRequired() throws IOException {
    assumeRoot();
    Path home = directory("home", "rwx------");
    Path request = file(home.resolve("stop-request"), "rw-------");
    owner(request, NOBODY);

    assertThatThrownBy(() -> RunHome.claim(home, LAYOUT))
        .isInstanceOfSatisfying(ControlException.class, e -> {
          assertThat(e.reason()).isEqualTo(Reason.NOT_OWNED);
          assertThat(e.getMessage()).startsWith(request + " is owned by uid " + NOBODY)
              .contains("remove it");
        });
    Files.delete(request);
    try (RunHome claimed = RunHome.claim(home, LAYOUT)) {
      file(request, "rw-------");
      owner(request, NOBODY);
      assertThatThrownBy(() -> claimed.read("stop-request", 4096))
          .isInstanceOfSatisfying(ControlException.class,
              e -> assertThat(e.reason()).isEqualTo(Reason.NOT_OWNED));
    }
    assertThat(owner(request)).isEqualTo(NOBODY);
  }

  @Test
  void anEntryOthersMayWriteIsRefusedWhenRequired() throws IOException {
    Path home = directory("home", "rwx------");
    try (RunHome claimed = RunHome.claim(home, LAYOUT)) {
      Path file = file(home.resolve("reload.json"), "rw-rw-rw-");

      assertThatThrownBy(() -> claimed.read("reload.json", 4096))
          .isInstanceOfSatisfying(ControlException.class, e -> {
            assertThat(e.reason()).isEqualTo(Reason.WRITABLE_BY_OTHERS);
            assertThat(e.getMessage()).startsWith(file + " is writable by its group and others"
                + " (mode 0666)").contains("chmod 600 " + file);
          });
      assertThat(file).exists();
      claimed.require("missing", RunHome.Kind.FILE); // nothing there: no refusal
    }
  }

  @Test
  void whatTheRunCreatesIsPrivateWhateverTheUmask() throws IOException {
    Path home = directory("home", "rwx------");
    try (RunHome claimed = RunHome.claim(home, LAYOUT)) {
      try (FileChannel channel = claimed.create("journal.new")) {
        channel.write(ByteBuffer.wrap("first".getBytes(StandardCharsets.UTF_8)));
      }
      try (FileChannel channel = claimed.create("journal.new")) { // emptied, then written
        channel.write(ByteBuffer.wrap("x".getBytes(StandardCharsets.UTF_8)));
      }
      assertThat(claimed.rename("journal.new", "journal")).isTrue();
      assertThat(claimed.rename("journal.new", "journal")).isFalse();
      claimed.createNew("events.jsonl").close();
      claimed.replace("status.json", "{}".getBytes(StandardCharsets.UTF_8));
      Path freezer = claimed.directory("freezer");
      Path written = claimed.withPrivateFile("workers", "main_0001.log", reachable -> {
        Files.writeString(reachable, "a line\n");
        return reachable;
      });

      assertThat(home.resolve("journal")).hasContent("x");
      assertThat(mode(home.resolve("journal"))).isEqualTo("rw-------");
      assertThat(mode(home.resolve("events.jsonl"))).isEqualTo("rw-------");
      assertThat(mode(home.resolve("status.json"))).isEqualTo("rw-------");
      assertThat(mode(freezer)).isEqualTo("rwx------");
      assertThat(mode(home.resolve("workers"))).isEqualTo("rwx------");
      assertThat(mode(home.resolve("workers/main_0001.log"))).isEqualTo("rw-------");
      assertThat(home.resolve("workers/main_0001.log")).hasContent("a line");
      assertThat(written.toString()).startsWith("/proc/self/fd/"); // through the held directory
    }
  }

  @Test
  void operationsAfterTheClaimFollowNoLinkAndNeverBlockOnAFifo() throws Exception {
    Path home = directory("home", "rwx------");
    Path target = file(base.resolve("precious"), "rw-r--r--");
    Files.writeString(target, "precious");
    try (RunHome claimed = RunHome.claim(home, LAYOUT)) {
      Files.createSymbolicLink(home.resolve("journal.new"), target);
      Files.createSymbolicLink(home.resolve("events.jsonl"), target);
      Files.createDirectories(home.resolve("workers"));
      Files.createSymbolicLink(home.resolve("workers/main_0002.log"), target);
      mkfifo(home.resolve("fifo"));

      assertThatThrownBy(() -> claimed.create("journal.new"))
          .isInstanceOfSatisfying(ControlException.class,
              e -> assertThat(e.reason()).isEqualTo(Reason.NOT_A_REGULAR_FILE));
      assertThatThrownBy(() -> claimed.createNew("events.jsonl"))
          .isInstanceOf(IOException.class);
      assertThatThrownBy(() -> claimed.withPrivateFile("workers", "main_0002.log", p -> p))
          .isInstanceOfSatisfying(ControlException.class,
              e -> assertThat(e.reason()).isEqualTo(Reason.NOT_A_REGULAR_FILE));
      assertTimeoutPreemptively(Duration.ofSeconds(10), () -> {
        assertThatThrownBy(() -> claimed.create("fifo"))
            .isInstanceOfSatisfying(ControlException.class,
                e -> assertThat(e.getMessage()).contains("is a FIFO"));
        assertThatThrownBy(() -> claimed.read("fifo", 10))
            .isInstanceOf(ControlException.class);
      });
      assertThatThrownBy(() -> claimed.createNew("fifo"))
          .isInstanceOf(ControlException.class);
    }
    assertThat(target).hasContent("precious");
  }

  @Test
  void theHomeIsHeldByItsDescriptor() throws IOException {
    Path home = directory("home", "rwx------");
    Path elsewhere = directory("elsewhere", "rwx------");
    try (RunHome claimed = RunHome.claim(home, LAYOUT)) {
      Path moved = base.resolve("moved");
      Files.move(home, moved);
      Files.createSymbolicLink(home, elsewhere);

      claimed.replace("status.json", "{}".getBytes(StandardCharsets.UTF_8));

      assertThat(moved.resolve("status.json")).exists();
      assertThat(elsewhere.resolve("status.json")).doesNotExist();
    }
  }

  @Test
  void aWatcherDoesNotActOnAStopRequestOthersMayWriteAndLeavesIt() throws IOException {
    Path home = directory("home", "rwx------");
    RunDirectory directory = RunDirectory.at(home);
    RunState run = RunState.begin();
    directory.writeRunState(run);
    try (RunHome claimed = RunHome.claim(home, LAYOUT)) {
      StopWatcher watcher = directory.watch(run.invocationId(), claimed);
      Path request = home.resolve(StopRequest.FILE_NAME);
      Files.write(request, new StopRequest(run.invocationId(), StopMode.NOW, RunState.now())
          .toJson());
      chmod(request, "rw-rw-rw-");

      assertThat(watcher.tick()).isEmpty();
      assertThat(watcher.refusal().orElseThrow()).startsWith(request + " is writable by");
      assertThat(request).exists();

      chmod(request, "rw-------");
      assertThat(watcher.tick()).contains(StopMode.NOW);
      assertThat(watcher.refusal()).isEmpty();

      Files.delete(request); // a link there is still read as a request that does not parse
      Files.createSymbolicLink(request, base);
      assertThat(watcher.tick()).contains(StopMode.DRAIN);
    }
  }

  // ------------------------------------------------------------------------ helpers

  @FunctionalInterface
  private interface Plant {
    void in(Path home) throws Exception;
  }

  private int planted;

  private void assertRefused(String relative, Plant plant, Reason reason, String found)
      throws Exception {
    Path home = directory("refused-" + planted++, "rwx------");
    plant.in(home);
    List<String> before = listing(home);

    assertThatThrownBy(() -> RunHome.claim(home, LAYOUT)).as(relative)
        .isInstanceOfSatisfying(ControlException.class, e -> {
          assertThat(e.reason()).isEqualTo(reason);
          assertThat(e.getMessage()).startsWith(home.resolve(relative) + " " + found)
              .contains("nothing was read, changed or deleted").doesNotContain("\n");
        });
    assertThat(listing(home)).isEqualTo(before);
  }

  private static List<String> listing(Path home) throws IOException {
    try (var all = Files.walk(home)) {
      return all.map(path -> home.relativize(path) + " " + kind(path)).sorted().toList();
    }
  }

  private static String kind(Path path) {
    return Files.isSymbolicLink(path) ? "link" : Files.isDirectory(path, LinkOption.NOFOLLOW_LINKS)
        ? "directory" : Files.isRegularFile(path, LinkOption.NOFOLLOW_LINKS) ? "file" : "other";
  }

  private Path directory(String name, String mode) throws IOException {
    Path directory = Files.createDirectories(base.resolve(name));
    chmod(directory, mode);
    return directory;
  }

  private static Path file(Path path, String mode) throws IOException {
    if (!Files.exists(path, LinkOption.NOFOLLOW_LINKS)) {
      Files.createFile(path);
    }
    chmod(path, mode);
    return path;
  }

  private static void chmod(Path path, String mode) throws IOException {
    Files.setPosixFilePermissions(path, PosixFilePermissions.fromString(mode.replace('t', 'x')));
    if (mode.endsWith("t")) { // the sticky bit, which Java's permissions cannot spell
      run("chmod", "+t", path.toString());
    }
  }

  private static String mode(Path path) throws IOException {
    return PosixFilePermissions.toString(Files.getPosixFilePermissions(path,
        LinkOption.NOFOLLOW_LINKS));
  }

  private static void owner(Path path, int uid) throws IOException {
    Files.setAttribute(path, "unix:uid", uid, LinkOption.NOFOLLOW_LINKS);
  }

  private static int owner(Path path) throws IOException {
    return (Integer) Files.getAttribute(path, "unix:uid", LinkOption.NOFOLLOW_LINKS);
  }

  private static void mkfifo(Path path) throws IOException {
    run("mkfifo", path.toString());
  }

  private static void run(String... command) throws IOException {
    try {
      Process process = new ProcessBuilder(command).inheritIO().start();
      if (process.waitFor() != 0) {
        throw new IOException(String.join(" ", command) + " failed");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException(e);
    }
  }

  private static void assumeRoot() throws IOException {
    assumeTrue(owner(Path.of("/proc/self")) == 0, "needs root, to give a file to uid " + NOBODY);
  }
}
