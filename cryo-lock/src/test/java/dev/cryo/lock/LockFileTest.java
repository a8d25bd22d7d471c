package dev.cryo.lock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import dev.cryo.lock.LockFile.Removal;
import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LockFileTest {

  @TempDir Path dir;
  @TempDir Path outside;

  private Path lockPath() {
    return dir.resolve(".lock");
  }

  private LockFile lockFile() {
    return LockFile.at(lockPath());
  }

  private List<String> names(Path directory) throws IOException {
    try (Stream<Path> entries = Files.list(directory)) {
      return entries.map(entry -> entry.getFileName().toString()).sorted().toList();
    }
  }

  static void mkfifo(Path path) throws Exception {
    Fifos.make(path);
  }

  @Test
  void absent() {
    assertThat(lockFile().read()).isInstanceOf(LockReading.Absent.class);
  }

  /** A read remembers the last record it parsed; a record of other bytes is parsed anew. */
  @Test
  void readingRecordsInTurnGivesEachItsOwn() throws Exception {
    LockRecord first = LockRecord.fresh(ProcessIdentity.current(), "first");
    LockRecord second = LockRecord.fresh(ProcessIdentity.current(), "other");
    for (LockRecord record : List.of(first, first, second, first, second, second)) {
      Files.write(lockPath(), record.toBytes());
      assertThat(lockFile().read()).isInstanceOfSatisfying(LockReading.Present.class,
          present -> assertThat(present.record()).isEqualTo(record));
    }
    Files.write(lockPath(), "cryo-lock 1\nnot a record\n".getBytes(StandardCharsets.UTF_8));
    assertThat(lockFile().read()).isInstanceOf(LockReading.Malformed.class);
  }

  @Test
  void aRecordIsPresentWithItsExactBytesAndTime() throws Exception {
    LockRecord record = LockRecord.fresh(ProcessIdentity.current(), "reader");
    Files.write(lockPath(), record.toBytes());
    Instant modified = Instant.parse("2026-01-02T03:04:05Z");
    Files.setLastModifiedTime(lockPath(), FileTime.from(modified));

    LockReading reading = lockFile().read();

    assertThat(reading).isInstanceOfSatisfying(LockReading.Present.class, present -> {
      assertThat(present.record()).isEqualTo(record);
      assertThat(present.bytes()).isEqualTo(record.toBytes());
      assertThat(present.modified()).isEqualTo(modified);
    });
  }

  @Test
  void aRecordThatDoesNotParseIsMalformed() throws Exception {
    Files.writeString(lockPath(), "cryo-lock 1\npid 12\nmood grumpy\n");

    assertThat(lockFile().read()).isInstanceOfSatisfying(LockReading.Malformed.class, malformed -> {
      assertThat(malformed.problem()).contains("unknown key 'mood'");
      assertThat(new String(malformed.bytes(), StandardCharsets.UTF_8)).endsWith("mood grumpy\n");
    });
  }

  @Test
  void anEmptyFileIsMalformed() throws Exception {
    Files.createFile(lockPath());

    assertThat(lockFile().read()).isInstanceOfSatisfying(LockReading.Malformed.class,
        malformed -> assertThat(malformed.problem()).contains("empty"));
  }

  @Test
  void anOversizeFileIsMalformedAndReadOnlyUpToTheBound() throws Exception {
    byte[] huge = new byte[1 << 20];
    Arrays.fill(huge, (byte) '9');
    Files.write(lockPath(), huge);

    assertThat(lockFile().read()).isInstanceOfSatisfying(LockReading.Malformed.class, malformed -> {
      assertThat(malformed.problem()).contains("larger than " + LockRecord.MAX_BYTES);
      assertThat(malformed.bytes()).hasSize(LockRecord.MAX_BYTES + 1);
    });
  }

  @Test
  void aSymbolicLinkIsNotFollowed() throws Exception {
    Path real = outside.resolve("real");
    Files.write(real, LockRecord.fresh(ProcessIdentity.current(), "behind a link").toBytes());
    Files.createSymbolicLink(lockPath(), real);

    assertThat(lockFile().read()).isEqualTo(new LockReading.NotRegular("a symbolic link"));
  }

  @Test
  void aDanglingSymbolicLinkIsNotRegular() throws Exception {
    Files.createSymbolicLink(lockPath(), outside.resolve("nothing"));

    assertThat(lockFile().read()).isEqualTo(new LockReading.NotRegular("a symbolic link"));
  }

  @Test
  void aFifoIsReportedWithoutBlocking() throws Exception {
    mkfifo(lockPath());

    LockReading reading = assertTimeoutPreemptively(Duration.ofSeconds(10), lockFile()::read);

    assertThat(reading).isEqualTo(new LockReading.NotRegular("a FIFO"));
  }

  @Test
  void aDirectoryIsNotRegular() throws Exception {
    Files.createDirectory(lockPath());

    assertThat(lockFile().read()).isEqualTo(new LockReading.NotRegular("a directory"));
  }

  @Test
  void aSocketIsNotRegular() throws Exception {
    try (ServerSocketChannel socket = ServerSocketChannel.open(StandardProtocolFamily.UNIX)) {
      socket.bind(UnixDomainSocketAddress.of(lockPath()));

      assertThat(lockFile().read()).isEqualTo(new LockReading.NotRegular("a socket"));
    }
  }

  @Test
  void everySpellingOfTheDirectoryIsOneLockFile() throws Exception {
    Path alias = outside.resolve("alias");
    Files.createSymbolicLink(alias, dir);
    Path dotted = dir.resolve("..").resolve(dir.getFileName()).resolve(".lock");

    Path canonical = lockFile().path();

    assertThat(LockFile.at(dotted).path()).isEqualTo(canonical);
    assertThat(LockFile.at(alias.resolve(".lock")).path()).isEqualTo(canonical);
    assertThat(canonical).isEqualTo(dir.toRealPath().resolve(".lock"));
  }

  @Test
  void tryPublishPublishesOnce() throws Exception {
    LockRecord first = LockRecord.fresh(ProcessIdentity.current(), "first");
    LockRecord second = LockRecord.fresh(ProcessIdentity.current(), "second");

    assertThat(lockFile().tryPublish(first)).isTrue();
    assertThat(lockFile().tryPublish(second)).isFalse();

    assertThat(Files.readAllBytes(lockPath())).isEqualTo(first.toBytes());
    assertThat(names(dir)).containsExactly(".lock");
  }

  @Test
  void removeIfRemovesWhatTheCallerExpects() throws Exception {
    LockRecord record = LockRecord.fresh(ProcessIdentity.current(), "remove me");
    lockFile().tryPublish(record);

    Removal removal = lockFile().removeIf(bytes -> Arrays.equals(bytes, record.toBytes()),
        Duration.ZERO);

    assertThat(removal).isEqualTo(Removal.REMOVED);
    assertThat(names(dir)).isEmpty();
  }

  @Test
  void removeIfLeavesWhatTheCallerDoesNotExpect() throws Exception {
    LockRecord record = LockRecord.fresh(ProcessIdentity.current(), "keep me");
    lockFile().tryPublish(record);

    Removal removal = lockFile().removeIf(bytes -> false, Duration.ofSeconds(1));

    assertThat(removal).isEqualTo(Removal.CHANGED);
    assertThat(Files.readAllBytes(lockPath())).isEqualTo(record.toBytes());
    assertThat(names(dir)).containsExactly(".lock");
  }

  @Test
  void removeIfOfNothingIsAbsent() throws Exception {
    assertThat(lockFile().removeIf(bytes -> true, Duration.ZERO)).isEqualTo(Removal.ABSENT);
    assertThat(names(dir)).isEmpty();
  }

  @Test
  void removeIfNeverRemovesASymbolicLinkOrItsTarget() throws Exception {
    Path real = outside.resolve("real");
    Files.writeString(real, "precious");
    Files.createSymbolicLink(lockPath(), real);

    assertThat(lockFile().removeIf(bytes -> true, Duration.ZERO)).isEqualTo(Removal.CHANGED);

    assertThat(Files.isSymbolicLink(lockPath())).isTrue();
    assertThat(Files.readString(real)).isEqualTo("precious");
    assertThat(names(dir)).containsExactly(".lock");
  }

  @Test
  void removeIfNeverRemovesAFifoNorBlocksOnIt() throws Exception {
    mkfifo(lockPath());

    Removal removal = assertTimeoutPreemptively(Duration.ofSeconds(10),
        () -> lockFile().removeIf(bytes -> true, Duration.ZERO));

    assertThat(removal).isEqualTo(Removal.CHANGED);
    assertThat(Files.getAttribute(lockPath(), "unix:mode", LinkOption.NOFOLLOW_LINKS))
        .satisfies(mode -> assertThat((Integer) mode & 0170000).isEqualTo(0010000));
    assertThat(names(dir)).containsExactly(".lock");
  }

  @Test
  void removeIfNeverRemovesADirectory() throws Exception {
    Files.createDirectory(lockPath());
    Files.writeString(lockPath().resolve("inside"), "kept");

    assertThat(lockFile().removeIf(bytes -> true, Duration.ZERO)).isEqualTo(Removal.CHANGED);

    assertThat(names(lockPath())).containsExactly("inside");
    assertThat(names(dir)).containsExactly(".lock");
  }

  @Test
  void removeOwnRemovesOnlyTheCallersOwnRecord() throws Exception {
    LockRecord mine = LockRecord.fresh(ProcessIdentity.current(), "mine");
    lockFile().tryPublish(mine);

    assertThat(lockFile().removeOwn(bytes -> false, Duration.ofSeconds(1)))
        .isEqualTo(Removal.CHANGED);
    assertThat(Files.readAllBytes(lockPath())).isEqualTo(mine.toBytes());

    assertThat(lockFile().removeOwn(bytes -> Arrays.equals(bytes, mine.toBytes()), Duration.ZERO))
        .isEqualTo(Removal.REMOVED);
    assertThat(names(dir)).as("no aside link, no temporary").isEmpty();
    assertThat(lockFile().removeOwn(bytes -> true, Duration.ZERO)).isEqualTo(Removal.ABSENT);
  }

  @Test
  void removeOwnNeverRemovesALinkAFifoOrADirectoryNorBlocks() throws Exception {
    Path real = outside.resolve("real");
    Files.writeString(real, "precious");
    Files.createSymbolicLink(lockPath(), real);
    assertThat(lockFile().removeOwn(bytes -> true, Duration.ZERO)).isEqualTo(Removal.CHANGED);
    assertThat(Files.readString(real)).isEqualTo("precious");
    Files.delete(lockPath());

    mkfifo(lockPath());
    assertThat(assertTimeoutPreemptively(Duration.ofSeconds(10),
        () -> lockFile().removeOwn(bytes -> true, Duration.ZERO))).isEqualTo(Removal.CHANGED);
    Files.delete(lockPath());

    Files.createDirectory(lockPath());
    assertThat(lockFile().removeOwn(bytes -> true, Duration.ZERO)).isEqualTo(Removal.CHANGED);
    assertThat(names(dir)).containsExactly(".lock");
  }

  @Test
  void replaceIfSwapsOnlyTheExpectedRecord() throws Exception {
    LockRecord first = LockRecord.fresh(ProcessIdentity.current(), "first");
    LockRecord second = first.withCompanion(42, 7);
    LockRecord stranger = LockRecord.fresh(ProcessIdentity.current(), "stranger");
    lockFile().tryPublish(first);

    assertThat(lockFile().replaceIf(bytes -> Arrays.equals(bytes, first.toBytes()), second,
        Duration.ZERO)).isEqualTo(Removal.REMOVED);
    assertThat(lockFile().replaceIf(bytes -> Arrays.equals(bytes, first.toBytes()), stranger,
        Duration.ZERO)).isEqualTo(Removal.CHANGED);

    assertThat(Files.readAllBytes(lockPath())).isEqualTo(second.toBytes());
    assertThat(names(dir)).containsExactly(".lock");
  }
}
