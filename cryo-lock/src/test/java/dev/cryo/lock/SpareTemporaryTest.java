package dev.cryo.lock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Duration;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A claimer whose temporary loses the race to the lockfile's name (another holder linked first)
 * keeps that temporary, never seen at the name, and writes its next record into it: a contender
 * that loses the link creates no file the next time.
 */
class SpareTemporaryTest {

  @TempDir Path root;

  @Test
  void aTemporaryThatLostTheLinkIsKeptAndWrittenAgainByTheNextClaim() throws Exception {
    Path directory = Files.createDirectory(root.resolve("run"));
    Path lockFile = directory.toRealPath().resolve(ProcessLock.FILE_NAME);
    LockRecord other = LockRecord.fresh(ProcessTable.system().current(), "the winner");
    PublicationSeam.once(PublicationSeam.Step.BEFORE_LINK, () -> {
      try {
        Files.write(lockFile, other.toBytes()); // the winner links first
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    });
    assertThatThrownBy(() -> ProcessLock.acquire(directory, Duration.ZERO))
        .isInstanceOf(LockBusyException.class);
    List<Path> kept = temporaries(directory);
    assertThat(kept).as("the lost temporary, kept").hasSize(1);
    assertThat(kept.get(0).getFileName().toString())
        .startsWith(".lock.cryo-tmp." + ProcessHandle.current().pid() + ".");
    Object spare = Files.readAttributes(kept.get(0), BasicFileAttributes.class).fileKey();

    Files.delete(lockFile); // the winner releases
    try (ProcessLock lock = ProcessLock.acquire(directory, Duration.ZERO)) {
      assertThat(Files.readAttributes(lockFile, BasicFileAttributes.class).fileKey())
          .as("the lockfile is the kept temporary, written again").isEqualTo(spare);
      assertThat(Files.readAllBytes(lockFile)).isEqualTo(lock.record().toBytes());
      assertThat(LockRecord.parse(Files.readAllBytes(lockFile)).token())
          .isEqualTo(lock.record().token());
      assertThat(temporaries(directory)).isEmpty();
    }
    assertThat(directory).isEmptyDirectory();
  }

  @Test
  void aKeptTemporaryThatWasReplacedIsNotUsedNorRemoved() throws Exception {
    Path directory = Files.createDirectory(root.resolve("run"));
    Path lockFile = directory.toRealPath().resolve(ProcessLock.FILE_NAME);
    LockRecord other = LockRecord.fresh(ProcessTable.system().current(), "the winner");
    PublicationSeam.once(PublicationSeam.Step.BEFORE_LINK, () -> {
      try {
        Files.write(lockFile, other.toBytes());
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    });
    assertThatThrownBy(() -> ProcessLock.acquire(directory, Duration.ZERO))
        .isInstanceOf(LockBusyException.class);
    Path spare = temporaries(directory).get(0);
    Files.delete(spare);
    Files.writeString(spare, "somebody else's file"); // another file under the kept name
    Object stranger = Files.readAttributes(spare, BasicFileAttributes.class).fileKey();

    Files.delete(lockFile);
    try (ProcessLock lock = ProcessLock.acquire(directory, Duration.ZERO)) {
      assertThat(Files.readAttributes(lockFile, BasicFileAttributes.class).fileKey())
          .isNotEqualTo(stranger);
      assertThat(Files.readAllBytes(lockFile)).isEqualTo(lock.record().toBytes());
    }
    assertThat(Files.readString(spare)).isEqualTo("somebody else's file");
  }

  private static List<Path> temporaries(Path directory) throws IOException {
    try (Stream<Path> entries = Files.list(directory)) {
      return entries.filter(p -> p.getFileName().toString().contains(".cryo-tmp.")).toList();
    }
  }
}
