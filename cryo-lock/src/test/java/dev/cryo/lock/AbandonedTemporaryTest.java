package dev.cryo.lock;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The temporaries a crash leaves beside a lock (a writer killed between its link and the removal of
 * its temporary) are cleaned by the next acquirer even when nobody contends for the lock, and
 * every spelling of a directory names the lockfile {@link ProcessLock#acquire} takes.
 */
class AbandonedTemporaryTest {

  @TempDir Path root;

  private List<String> names(Path directory) throws IOException {
    try (Stream<Path> entries = Files.list(directory)) {
      return entries.map(entry -> entry.getFileName().toString()).sorted().toList();
    }
  }

  @Test
  void anUncontendedAcquirerCleansTheTemporariesOfDeadWriters() throws Exception {
    Path dir = Files.createDirectory(root.resolve("run"));
    long dead = TestProcesses.reapedPid();
    long self = ProcessHandle.current().pid();
    Files.writeString(dir.resolve(".lock.cryo-tmp." + dead + ".0123456789abcdef"), "crashed");
    Files.writeString(dir.resolve(".lock.cryo-aside." + dead + ".fedcba9876543210"), "crashed");
    Path live = Files.writeString(dir.resolve(".lock.cryo-tmp." + self + ".00000000000000aa"),
        "a live writer's");

    try (ProcessLock lock = ProcessLock.acquire(dir, Duration.ZERO, "uncontended")) {
      assertThat(names(dir)).containsExactly(".lock", live.getFileName().toString());
    }
    Files.delete(live);
    assertThat(names(dir)).isEmpty();
  }

  @Test
  void theLockfileOfADirectoryIsResolvedAsAcquireResolvesIt() throws Exception {
    Path inner = Files.createDirectories(root.resolve("a").resolve("b"));
    Path link = Files.createSymbolicLink(root.resolve("link"), inner);
    Path spelled = link.resolve("..");

    try (ProcessLock lock = ProcessLock.acquire(spelled, Duration.ZERO, "through a link")) {
      assertThat(lock.lockFile()).isEqualTo(root.toRealPath().resolve("a").resolve(".lock"));
      assertThat(ProcessLock.lockFileOf(spelled)).isEqualTo(lock.lockFile());
      assertThat(LockFile.at(ProcessLock.lockFileOf(spelled)).read())
          .isInstanceOf(LockReading.Present.class);
    }
  }
}
