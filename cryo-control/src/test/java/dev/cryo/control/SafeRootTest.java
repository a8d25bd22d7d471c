package dev.cryo.control;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import dev.cryo.control.ControlException.Reason;
import dev.cryo.lock.ProcessTable;
import java.io.IOException;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class SafeRootTest {

  private static final byte[] SENTINEL = "sentinel: never changed\n".getBytes(StandardCharsets.UTF_8);
  private static final String NAME = "sentinel.txt";

  @TempDir Path base;

  static void mkfifo(Path path) throws IOException, InterruptedException {
    Process process = new ProcessBuilder("mkfifo", path.toString()).inheritIO().start();
    assertThat(process.waitFor()).isZero();
  }

  static ServerSocketChannel socket(Path path) throws IOException {
    ServerSocketChannel channel = ServerSocketChannel.open(java.net.StandardProtocolFamily.UNIX);
    channel.bind(UnixDomainSocketAddress.of(path));
    return channel;
  }

  // ---------------------------------------------------------------- the exhaustive sentinel test

  /** What stands at the final name. */
  enum Shape { SYMLINK, DANGLING_SYMLINK, SYMLINK_TO_DIRECTORY, HARDLINK, FIFO, DIRECTORY, REGULAR,
    MISSING }

  /** What stands at the parent of the final name. */
  enum Parent { TOP, PLAIN, SYMLINK, MISSING, FILE }

  /** Every operation of SafeRoot, applied to one relative path. */
  enum Operation {
    LOOKUP, READ, REMOVE, PUBLISH, REPLACE, SUBROOT, SUBROOT_READ, SUBROOT_PUBLISH, NAMES,
    REMOVE_TEMPORARIES;

    Object apply(SafeRoot root, String relative) throws IOException {
      return switch (this) {
        case LOOKUP -> root.lookup(relative);
        case READ -> root.read(relative, 4096);
        case REMOVE -> root.remove(relative);
        case PUBLISH -> root.publishExclusive(relative, "published\n".getBytes());
        case REPLACE -> {
          root.replace(relative, "replaced\n".getBytes());
          yield null;
        }
        case SUBROOT -> {
          Optional<SafeRoot> sub = root.subroot(relative);
          if (sub.isPresent()) {
            sub.get().close();
          }
          yield sub.map(SafeRoot::path);
        }
        case SUBROOT_READ -> {
          Optional<SafeRoot> sub = root.subroot(parentOf(relative));
          if (sub.isEmpty()) {
            yield null;
          }
          try (SafeRoot opened = sub.get()) {
            yield opened.read(NAME, 4096);
          }
        }
        case SUBROOT_PUBLISH -> {
          Optional<SafeRoot> sub = root.subroot(parentOf(relative));
          if (sub.isEmpty()) {
            yield null;
          }
          try (SafeRoot opened = sub.get()) {
            yield opened.publishExclusive(NAME, "published\n".getBytes());
          }
        }
        case NAMES -> root.names();
        case REMOVE_TEMPORARIES -> root.removeAbandonedTemporaries(NAME, ProcessTable.system());
      };
    }

    private static String parentOf(String relative) {
      int slash = relative.lastIndexOf('/');
      return slash < 0 ? "d" : relative.substring(0, slash);
    }
  }

  private record Snapshot(byte[] content, Object fileKey, long modified, List<String> outside) {}

  private Snapshot snapshot(Path sentinel) throws IOException {
    BasicFileAttributes attributes =
        Files.readAttributes(sentinel, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
    List<String> listing;
    try (Stream<Path> entries = Files.list(sentinel.getParent())) {
      listing = entries.map(p -> p.getFileName().toString()).sorted().toList();
    }
    return new Snapshot(Files.readAllBytes(sentinel), attributes.fileKey(),
        attributes.lastModifiedTime().toMillis(), listing);
  }

  @Test
  void aSentinelOutsideTheRootIsNeverChangedWhateverTheShapeOfEntriesAndParents()
      throws Exception {
    int cases = 0;
    List<String> outcomes = new ArrayList<>();
    for (Parent parent : Parent.values()) {
      for (Shape shape : Shape.values()) {
        for (Operation operation : Operation.values()) {
          Path world = Files.createDirectory(base.resolve("case" + cases++));
          Path outside = Files.createDirectory(world.resolve("outside"));
          Path sentinel = outside.resolve(NAME);
          Files.write(sentinel, SENTINEL);
          Files.setLastModifiedTime(sentinel,
              java.nio.file.attribute.FileTime.fromMillis(1_000_000_000_000L));
          Path rootPath = Files.createDirectory(world.resolve("root"));
          String relative = build(rootPath, parent, shape, outside, sentinel);
          Snapshot before = snapshot(sentinel);
          String outcome;
          try (SafeRoot root = SafeRoot.open(rootPath)) {
            Object result = assertTimeoutPreemptively(Duration.ofSeconds(10),
                () -> operation.apply(root, relative),
                () -> parent + "/" + shape + "/" + operation + " hung");
            outcome = "ok " + result;
          } catch (IOException e) {
            outcome = e.getClass().getSimpleName() + " " + (e instanceof ControlException c
                ? c.reason() : "");
          }
          outcomes.add(parent + "/" + shape + "/" + operation + " -> " + outcome);
          Snapshot after = snapshot(sentinel);
          String label = parent + "/" + shape + "/" + operation + " (" + outcome + ")";
          assertThat(after.content()).as(label).isEqualTo(before.content());
          assertThat(after.fileKey()).as(label).isEqualTo(before.fileKey());
          assertThat(after.modified()).as(label).isEqualTo(before.modified());
          assertThat(after.outside()).as(label).isEqualTo(before.outside());
          if ((parent == Parent.SYMLINK || parent == Parent.FILE) && operation != Operation.NAMES
              && operation != Operation.REMOVE_TEMPORARIES) {
            assertThat(outcome).as(label).isEqualTo("ControlException UNSAFE_PATH");
          }
        }
      }
    }
    assertThat(outcomes).hasSize(Parent.values().length * Shape.values().length
        * Operation.values().length);
  }

  /** Lays out the shapes under {@code root}; returns the relative path the operation acts on. */
  private String build(Path root, Parent parent, Shape shape, Path outside, Path sentinel)
      throws Exception {
    Path directory = switch (parent) {
      case TOP -> root;
      case PLAIN -> Files.createDirectory(root.resolve("d"));
      case SYMLINK -> {
        Files.createSymbolicLink(root.resolve("d"), outside);
        yield null;
      }
      case FILE -> {
        Files.write(root.resolve("d"), SENTINEL);
        yield null;
      }
      case MISSING -> null;
    };
    if (directory != null) {
      Path at = directory.resolve(NAME);
      switch (shape) {
        case SYMLINK -> Files.createSymbolicLink(at, sentinel);
        case DANGLING_SYMLINK -> Files.createSymbolicLink(at, outside.resolve("nothing"));
        case SYMLINK_TO_DIRECTORY -> Files.createSymbolicLink(at, outside);
        case HARDLINK -> Files.createLink(at, sentinel);
        case FIFO -> mkfifo(at);
        case DIRECTORY -> Files.createDirectory(at);
        case REGULAR -> Files.write(at, "inside\n".getBytes());
        case MISSING -> { }
      }
    }
    return parent == Parent.TOP ? NAME : "d/" + NAME;
  }

  private static long openDescriptors() throws IOException {
    try (Stream<Path> descriptors = Files.list(Path.of("/proc/self/fd"))) {
      return descriptors.count();
    }
  }

  @Test
  void noDescriptorIsLeftOpenWhateverTheOutcome() throws Exception {
    Path outside = Files.createDirectory(base.resolve("outside"));
    Path rootPath = Files.createDirectory(base.resolve("root"));
    Files.createDirectories(rootPath.resolve("a/b"));
    Files.createSymbolicLink(rootPath.resolve("a/link"), outside);
    mkfifo(rootPath.resolve("a/fifo"));
    Files.write(rootPath.resolve("a/b/big"), new byte[10_000]);
    long before = openDescriptors();
    for (int round = 0; round < 20; round++) {
      try (SafeRoot root = SafeRoot.open(rootPath)) {
        for (String relative : List.of("a/b/big", "a/link/x", "a/fifo", "a/fifo/x", "a/missing/x",
            "a/b")) {
          for (Operation operation : List.of(Operation.LOOKUP, Operation.READ, Operation.SUBROOT,
              Operation.PUBLISH)) {
            try {
              Object result = operation.apply(root, relative);
              if (result instanceof Optional<?> optional && optional.isPresent()
                  && optional.get() instanceof AutoCloseable closeable) {
                closeable.close();
              }
            } catch (IOException expected) {
              // refusals are fine here; only descriptors count
            }
          }
        }
        root.remove("a/b/sentinel.txt");
        assertThatThrownBy(() -> root.remove("a/fifo/x")).isInstanceOf(ControlException.class);
      }
    }
    assertThat(openDescriptors()).isEqualTo(before);
  }

  // ---------------------------------------------------------------- paths

  @ParameterizedTest
  @ValueSource(strings = {"", "/etc/passwd", ".", "..", "a/../b", "a/./b", "a//b", "a/", "nul\0x"})
  void refusesPathsThatAreNotPlainRelativePaths(String relative) throws IOException {
    Files.createDirectories(base.resolve("a/b"));
    try (SafeRoot root = SafeRoot.open(base)) {
      assertThatThrownBy(() -> root.lookup(relative))
          .isInstanceOfSatisfying(ControlException.class,
              e -> assertThat(e.reason()).isEqualTo(Reason.UNSAFE_PATH));
      assertThatThrownBy(() -> root.read(relative, 10)).isInstanceOf(ControlException.class);
      assertThatThrownBy(() -> root.remove(relative)).isInstanceOf(ControlException.class);
      assertThatThrownBy(() -> root.subroot(relative)).isInstanceOf(ControlException.class);
    }
  }

  @Test
  void aLinkOrNonDirectoryInTheWayIsNamed() throws Exception {
    Files.createSymbolicLink(base.resolve("link"), base);
    mkfifo(base.resolve("fifo"));
    Files.write(base.resolve("file"), SENTINEL);
    try (ServerSocketChannel ignored = socket(base.resolve("sock"));
        SafeRoot root = SafeRoot.open(base)) {
      assertThatThrownBy(() -> root.read("link/x", 10)).hasMessageContaining("a symbolic link");
      assertThatThrownBy(() -> root.lookup("fifo/x")).hasMessageContaining("a FIFO");
      assertThatThrownBy(() -> root.subroot("file")).hasMessageContaining("a regular file");
      assertThatThrownBy(() -> root.subroot("sock/x")).hasMessageContaining("a socket");
    }
  }

  @Test
  void lookupSaysAbsentForAMissingEntryOrParent() throws IOException {
    try (SafeRoot root = SafeRoot.open(base)) {
      assertThat(root.lookup("missing")).isEmpty();
      assertThat(root.lookup("missing/parent/x")).isEmpty();
      assertThat(root.read("missing/x", 10)).isEmpty();
      assertThat(root.subroot("missing")).isEmpty();
    }
  }

  @Test
  void lookupNamesEveryKind() throws Exception {
    mkfifo(base.resolve("fifo"));
    Files.createSymbolicLink(base.resolve("link"), base.resolve("nowhere"));
    Files.createDirectory(base.resolve("dir"));
    Files.write(base.resolve("file"), SENTINEL);
    try (ServerSocketChannel ignored = socket(base.resolve("sock"));
        SafeRoot root = SafeRoot.open(base)) {
      assertThat(root.lookup("fifo").orElseThrow().kind()).isEqualTo(EntryKind.FIFO);
      assertThat(root.lookup("sock").orElseThrow().kind()).isEqualTo(EntryKind.SOCKET);
      assertThat(root.lookup("link").orElseThrow().kind()).isEqualTo(EntryKind.SYMBOLIC_LINK);
      assertThat(root.lookup("dir").orElseThrow().kind()).isEqualTo(EntryKind.DIRECTORY);
      assertThat(root.lookup("file").orElseThrow().kind()).isEqualTo(EntryKind.REGULAR_FILE);
    }
  }

  // ---------------------------------------------------------------- reading

  @Test
  void readingIsBoundedByTheLimit() throws IOException {
    Files.write(base.resolve("exact"), new byte[4096]);
    Files.write(base.resolve("over"), new byte[4097]);
    Files.write(base.resolve("huge"), new byte[1 << 20]);
    try (SafeRoot root = SafeRoot.open(base)) {
      assertThat(root.read("exact", 4096).orElseThrow()).hasSize(4096);
      assertThatThrownBy(() -> root.read("over", 4096))
          .isInstanceOfSatisfying(ControlException.class,
              e -> assertThat(e.reason()).isEqualTo(Reason.READ_LIMIT_EXCEEDED));
      assertThatThrownBy(() -> root.read("huge", 4096))
          .hasMessageContaining("more than 4096 bytes");
      Files.write(base.resolve("empty"), new byte[0]);
      assertThat(root.read("empty", 0).orElseThrow()).isEmpty();
      assertThatThrownBy(() -> root.read("exact", 0)).isInstanceOf(ControlException.class);
    }
  }

  @Test
  void readingNeverTrustsTheSizeTheFileClaims() throws IOException {
    // A file in /proc claims a size of 0 and holds more: the reader counts the bytes it gets.
    try (SafeRoot proc = SafeRoot.open(Path.of("/proc/self"))) {
      assertThat(proc.lookup("status").orElseThrow().size()).isZero();
      assertThat(proc.read("status", 1 << 16).orElseThrow()).isNotEmpty();
      assertThatThrownBy(() -> proc.read("status", 10))
          .isInstanceOfSatisfying(ControlException.class,
              e -> assertThat(e.reason()).isEqualTo(Reason.READ_LIMIT_EXCEEDED));
    }
  }

  @Test
  void readingRefusesAnythingButARegularFileAndNeverBlocksOnAFifo() throws Exception {
    mkfifo(base.resolve("fifo"));
    Files.createSymbolicLink(base.resolve("link"), base.resolve("file"));
    Files.write(base.resolve("file"), SENTINEL);
    Files.createDirectory(base.resolve("dir"));
    try (ServerSocketChannel ignored = socket(base.resolve("sock"));
        SafeRoot root = SafeRoot.open(base)) {
      for (String name : List.of("fifo", "link", "dir", "sock")) {
        assertTimeoutPreemptively(Duration.ofSeconds(5), () ->
            assertThatThrownBy(() -> root.read(name, 100))
                .isInstanceOfSatisfying(ControlException.class,
                    e -> assertThat(e.reason()).isEqualTo(Reason.NOT_A_REGULAR_FILE)));
      }
      assertThatThrownBy(() -> root.read("fifo", 100)).hasMessageContaining("a FIFO");
      assertThat(root.read("file", 100).orElseThrow()).isEqualTo(SENTINEL);
    }
  }

  @Test
  void aFifoSwappedInAfterTheLookupNeitherBlocksNorIsRead() throws Exception {
    mkfifo(base.resolve("fifo"));
    try (SafeRoot root = SafeRoot.open(base)) {
      Throwable thrown = notBlockedBy(base.resolve("fifo"), () -> root.readOpened("fifo", 100));
      assertThat(thrown).isInstanceOfSatisfying(ControlException.class,
              e -> assertThat(e.reason()).isEqualTo(Reason.NOT_A_REGULAR_FILE))
          .hasMessageContaining("a FIFO");
      Files.createDirectory(base.resolve("dir"));
      assertThatThrownBy(() -> root.readOpened("dir", 100))
          .hasMessageContaining("a directory");
      Files.createSymbolicLink(base.resolve("link"), base.resolve("fifo"));
      assertThatThrownBy(() -> root.readOpened("link", 100))
          .hasMessageContaining("a symbolic link");
    }
  }

  /**
   * Runs {@code action} and returns what it threw (null when it returned). Should it block on
   * {@code fifo} for 5 s, a writer is opened to release it and the test fails, instead of leaving a
   * blocked thread that holds the directory stream and hangs the build.
   */
  static Throwable notBlockedBy(Path fifo, java.util.concurrent.Callable<?> action)
      throws Exception {
    java.util.concurrent.FutureTask<?> task = new java.util.concurrent.FutureTask<>(action);
    Thread thread = Thread.ofPlatform().daemon().start(task);
    try {
      task.get(5, java.util.concurrent.TimeUnit.SECONDS);
      return null;
    } catch (java.util.concurrent.ExecutionException e) {
      return e.getCause();
    } catch (java.util.concurrent.TimeoutException e) {
      try (var writer = java.nio.channels.FileChannel.open(fifo,
          java.nio.file.StandardOpenOption.READ, java.nio.file.StandardOpenOption.WRITE)) {
        thread.join(5_000);
      }
      throw new AssertionError("blocked on the FIFO " + fifo + " for 5 s");
    }
  }

  // ---------------------------------------------------------------- removing, publishing

  @Test
  void removingIsIdempotentAndRemovesALinkNotItsTarget() throws IOException {
    Path outside = Files.createDirectory(base.resolve("outside"));
    Files.write(outside.resolve("target"), SENTINEL);
    Path rootPath = Files.createDirectory(base.resolve("root"));
    Files.createSymbolicLink(rootPath.resolve("link"), outside.resolve("target"));
    Files.write(rootPath.resolve("file"), SENTINEL);
    try (SafeRoot root = SafeRoot.open(rootPath)) {
      assertThat(root.remove("file")).isTrue();
      assertThat(root.remove("file")).isFalse();
      assertThat(root.remove("link")).isTrue();
      assertThat(root.remove("missing/x")).isFalse();
    }
    assertThat(outside.resolve("target")).hasBinaryContent(SENTINEL);
  }

  @Test
  void publishingNeverReplacesAnEntryAndLeavesNoTemporary() throws IOException {
    Files.createSymbolicLink(base.resolve("dangling"), base.resolve("nowhere"));
    try (SafeRoot root = SafeRoot.open(base)) {
      assertThat(root.publishExclusive("fresh", SENTINEL)).isTrue();
      assertThat(root.publishExclusive("fresh", "other".getBytes())).isFalse();
      assertThat(root.publishExclusive("dangling", SENTINEL)).isFalse();
      assertThat(root.names()).containsExactlyInAnyOrder("fresh", "dangling");
      assertThat(root.read("fresh", 100).orElseThrow()).isEqualTo(SENTINEL);
      assertThatThrownBy(() -> root.publishExclusive("missing/x", SENTINEL))
          .isInstanceOf(NoSuchFileException.class);
    }
    assertThat(Files.isSymbolicLink(base.resolve("dangling"))).isTrue();
    assertThat(base.resolve("nowhere")).doesNotExist();
    assertThat(Files.getPosixFilePermissions(base.resolve("fresh")))
        .containsExactlyInAnyOrder(java.nio.file.attribute.PosixFilePermission.OWNER_READ,
            java.nio.file.attribute.PosixFilePermission.OWNER_WRITE);
  }

  // ---------------------------------------------------------------- identity

  @Test
  void aSubrootStaysBoundToItsDirectoryWhenTheNameIsMoved() throws IOException {
    Files.createDirectory(base.resolve("a"));
    try (SafeRoot root = SafeRoot.open(base); SafeRoot sub = root.subroot("a").orElseThrow()) {
      Files.move(base.resolve("a"), base.resolve("b"));
      Files.createSymbolicLink(base.resolve("a"), Files.createDirectory(base.resolve("elsewhere")));
      assertThat(sub.publishExclusive("x", SENTINEL)).isTrue();
      sub.replace("y", SENTINEL);
      assertThat(sub.isStillAtPath()).isFalse();
      assertThatThrownBy(sub::verifyIdentity)
          .isInstanceOfSatisfying(ControlException.class,
              e -> assertThat(e.reason()).isEqualTo(Reason.ROOT_MOVED));
    }
    assertThat(base.resolve("b/x")).hasBinaryContent(SENTINEL);
    assertThat(base.resolve("b/y")).hasBinaryContent(SENTINEL);
    assertThat(base.resolve("elsewhere")).isEmptyDirectory();
  }

  @Test
  void theRootTellsWhenItsPathNowPointsElsewhere() throws IOException {
    Path rootPath = Files.createDirectory(base.resolve("root"));
    try (SafeRoot root = SafeRoot.open(rootPath)) {
      assertThat(root.isStillAtPath()).isTrue();
      Files.move(rootPath, base.resolve("moved"));
      assertThat(root.isStillAtPath()).isFalse();
      Files.createDirectory(rootPath);
      assertThat(root.isStillAtPath()).isFalse();
      assertThat(root.publishExclusive("x", SENTINEL)).isTrue();
    }
    assertThat(base.resolve("moved/x")).exists();
    assertThat(rootPath).isEmptyDirectory();
  }

  @Test
  void openingANonDirectoryIsRefused() throws IOException {
    Files.write(base.resolve("file"), SENTINEL);
    assertThatThrownBy(() -> SafeRoot.open(base.resolve("file")))
        .isInstanceOfSatisfying(ControlException.class,
            e -> assertThat(e.reason()).isEqualTo(Reason.UNSAFE_PATH));
    assertThatThrownBy(() -> SafeRoot.open(base.resolve("missing")))
        .isInstanceOf(NoSuchFileException.class);
  }
}
