package dev.cryo.lock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The semaphore's lock as a link of one record per process and holder name ({@link HolderRecords}):
 * no file created or freed per hold, the judges reading a record with several links, and what is
 * found at the record's place when it is not ours.
 */
class HolderRecordsTest {

  private static final long SELF = ProcessHandle.current().pid();

  @TempDir Path temp;

  private Path parent() throws IOException {
    return temp.toRealPath();
  }

  private static List<Path> recordFiles(HolderRecords records) throws IOException {
    try (Stream<Path> files = Files.list(records.directory())) {
      return files.sorted().toList();
    }
  }

  @Test
  void everyHoldOfOneHolderIsALinkOfOneRecordAndTheReleaseKeepsIt() throws Exception {
    Path parent = parent();
    HolderRecords records = new HolderRecords(parent);
    SemaphoreHold a = FolderSemaphore.take(parent.resolve("a"), "worker", null, records);
    SemaphoreHold b = FolderSemaphore.take(parent.resolve("b"), "worker", null, records);
    assertThat(a).isNotNull();
    assertThat(b).isNotNull();

    List<Path> files = recordFiles(records);
    assertThat(files).hasSize(1);
    Path record = files.get(0);
    assertThat(record.getFileName().toString()).startsWith(SELF + ".");
    assertThat(Inodes.key(parent.resolve("a/.lock"))).isEqualTo(Inodes.key(record));
    assertThat(Inodes.key(parent.resolve("b/.lock"))).isEqualTo(Inodes.key(record));
    assertThat(Inodes.links(record)).isEqualTo(3);
    try (Stream<Path> inA = Files.list(parent.resolve("a"))) {
      assertThat(inA.map(p -> p.getFileName().toString())).containsExactly(".lock");
    }
    assertThat(Files.readAllBytes(record)).isEqualTo(a.record().toBytes());
    assertThat(Files.getPosixFilePermissions(record)).hasToString("[OWNER_READ, OWNER_WRITE]");

    // The judges read a record with several links as any record.
    assertThat(FolderSemaphore.holder(parent.resolve("a"))).hasValueSatisfying(holder -> {
      assertThat(holder.pid()).isEqualTo(SELF);
      assertThat(holder.holder()).isEqualTo("worker");
    });
    assertThat(FolderSemaphore.take(parent.resolve("a"), "another", null, records))
        .as("a live holder's link is held").isNull();
    assertThat(FolderSemaphore.tryTake(parent.resolve("b"), "another")).isFalse();

    a.release(false);
    assertThat(parent.resolve("a")).doesNotExist();
    assertThat(Inodes.links(record)).as("the release unlinks, the record stays").isEqualTo(2);
    b.release(false);
    assertThat(Inodes.links(record)).isEqualTo(1);

    SemaphoreHold again = FolderSemaphore.take(parent.resolve("a"), "worker", null, records);
    assertThat(Inodes.key(parent.resolve("a/.lock"))).as("the next take links the same record")
        .isEqualTo(Inodes.key(record));
    again.release(false);
    assertThat(recordFiles(records)).as("one more record: the other holder name's")
        .hasSize(2).contains(record);
  }

  @Test
  void twoHolderNamesHaveTwoRecordsAndAReleaseRefusesAnotherHoldersLink() throws Exception {
    Path parent = parent();
    HolderRecords records = new HolderRecords(parent);
    SemaphoreHold a = FolderSemaphore.take(parent.resolve("a"), "freeze", null, records);
    SemaphoreHold b = FolderSemaphore.take(parent.resolve("b"), "adopt", null, records);
    assertThat(recordFiles(records)).hasSize(2);
    assertThat(Inodes.key(parent.resolve("a/.lock"))).isNotEqualTo(Inodes.key(parent.resolve("b/.lock")));
    assertThatThrownBy(() -> FolderSemaphore.release(parent.resolve("a"), "adopt"))
        .isInstanceOfSatisfying(LockValidationException.class,
            e -> assertThat(e.reason()).isEqualTo(LockException.Reason.HOLDER_MISMATCH));
    a.release(false);
    b.release(false);
  }

  @Test
  void aRecordTakesItsPlaceThroughTheSpareFolderToo() throws Exception {
    Path parent = parent();
    HolderRecords records = new HolderRecords(parent);
    SpareFolders spares = new SpareFolders(parent);
    SemaphoreHold first = FolderSemaphore.take(parent.resolve("a"), "worker", spares, records);
    first.release(false, spares); // recycled: a spare now
    assertThat(spares.size()).isEqualTo(1);
    Path record = recordFiles(records).get(0);
    assertThat(Inodes.links(record)).isEqualTo(1);

    SemaphoreHold second = FolderSemaphore.take(parent.resolve("b"), "worker", spares, records);
    assertThat(spares.size()).as("the spare was used").isZero();
    assertThat(Inodes.key(parent.resolve("b/.lock"))).isEqualTo(Inodes.key(record));
    second.release(false, spares);
    assertThat(Inodes.links(record)).isEqualTo(1);
    assertThat(parent.resolve("b")).doesNotExist();
  }

  @Test
  void aStrangersFileOrLinkAtTheRecordsPlaceIsNeitherFollowedNorChanged() throws Exception {
    Path parent = parent();
    Path place = parent.resolve(HolderRecords.DIRECTORY_NAME);
    Files.writeString(place, "not a directory");
    HolderRecords records = new HolderRecords(parent);
    SemaphoreHold a = FolderSemaphore.take(parent.resolve("a"), "worker", null, records);
    assertThat(a).as("the take goes the usual way").isNotNull();
    assertThat(Inodes.links(parent.resolve("a/.lock"))).isEqualTo(1);
    a.release(false);
    assertThat(Files.readString(place)).isEqualTo("not a directory");

    Files.delete(place);
    Path elsewhere = Files.createDirectory(parent.resolve("elsewhere"));
    Files.createSymbolicLink(place, elsewhere);
    SemaphoreHold b = FolderSemaphore.take(parent.resolve("b"), "worker", null,
        new HolderRecords(parent));
    assertThat(b).isNotNull();
    assertThat(Inodes.links(parent.resolve("b/.lock"))).isEqualTo(1);
    b.release(false);
    try (Stream<Path> inside = Files.list(elsewhere)) {
      assertThat(inside).as("the link was not followed").isEmpty();
    }
  }

  @Test
  void aStrangersFilePutAtTheRecordsNameIsNeverTakenAsOurs() throws Exception {
    Path parent = parent();
    HolderRecords records = new HolderRecords(parent);
    FolderSemaphore.take(parent.resolve("a"), "worker", null, records).release(false);
    Path record = recordFiles(records).get(0);
    Path stranger = records.directory().resolve("stranger");
    byte[] strangers = LockRecord.fresh(ProcessTable.system().current(), "a stranger").toBytes();
    Files.write(stranger, strangers);
    Object strangerKey = Inodes.key(stranger);
    Files.move(stranger, record, StandardCopyOption.REPLACE_EXISTING);

    SemaphoreHold b = FolderSemaphore.take(parent.resolve("b"), "worker", null, records);
    assertThat(b).isNotNull();
    Path lock = parent.resolve("b/.lock");
    assertThat(Inodes.key(lock)).as("a fresh record of ours, not the stranger's").isNotEqualTo(strangerKey);
    assertThat(FolderSemaphore.holder(parent.resolve("b")).orElseThrow().holder())
        .isEqualTo("worker");
    assertThat(Files.readAllBytes(record)).as("the stranger's file is left as it is")
        .isEqualTo(strangers);
    assertThat(Inodes.links(record)).as("its link in the folder was undone").isEqualTo(1);
    b.release(false);
  }

  @Test
  void aRecordWhoseLinksAreAllGoneIsPublishedAgainAndItsHoldsStillRelease() throws Exception {
    Path parent = parent();
    HolderRecords records = new HolderRecords(parent);
    SemaphoreHold a = FolderSemaphore.take(parent.resolve("a"), "worker", null, records);
    Object first = Inodes.key(parent.resolve("a/.lock"));
    for (Path file : recordFiles(records)) {
      Files.delete(file);
    }
    Files.delete(records.directory()); // by hand, or a wipe of the records

    SemaphoreHold b = FolderSemaphore.take(parent.resolve("b"), "worker", null, records);
    assertThat(b).isNotNull();
    assertThat(Inodes.key(parent.resolve("b/.lock"))).isNotEqualTo(first);
    assertThat(recordFiles(records)).hasSize(1);

    a.release(false);
    assertThat(parent.resolve("a")).as("the hold of the record gone still releases")
        .doesNotExist();
    b.release(false);
    assertThat(parent.resolve("b")).doesNotExist();
  }

  @Test
  void aRecordRewrittenThroughALinkElsewhereIsNotReleasedAsOursAndIsRetired() throws Exception {
    Path parent = parent();
    HolderRecords records = new HolderRecords(parent);
    SemaphoreHold a = FolderSemaphore.take(parent.resolve("a"), "worker", null, records);
    Path record = recordFiles(records).get(0);
    Path elsewhere = parent.resolve("elsewhere");
    Files.createLink(elsewhere, record);
    byte[] same = Files.readAllBytes(record);
    try (FileChannel channel = FileChannel.open(elsewhere, StandardOpenOption.WRITE)) {
      channel.write(ByteBuffer.wrap(same), 0); // the same bytes, the same length: rewritten all the same
    }

    assertThatThrownBy(() -> a.release(false))
        .isInstanceOfSatisfying(LockValidationException.class,
            e -> assertThat(e.reason()).isEqualTo(LockException.Reason.HOLDER_MISMATCH));
    assertThat(parent.resolve("a/.lock")).as("left as it is").exists();

    SemaphoreHold b = FolderSemaphore.take(parent.resolve("b"), "worker", null, records);
    assertThat(Inodes.key(parent.resolve("b/.lock"))).as("a fresh record for the next take")
        .isNotEqualTo(Inodes.key(record));
    b.release(false);
  }

  @Test
  void anInterruptedThreadTakesAndReleasesAndAClosedRecordDescriptorIsRetired()
      throws Exception {
    Path parent = parent();
    HolderRecords records = new HolderRecords(parent);
    AtomicReference<Object> outcome = new AtomicReference<>();
    Thread thread = new Thread(() -> {
      try {
        Thread.currentThread().interrupt();
        SemaphoreHold hold = FolderSemaphore.take(parent.resolve("a"), "worker", null, records);
        boolean took = hold != null && Inodes.key(parent.resolve("a/.lock"))
            .equals(Inodes.key(recordFiles(records).get(0)));
        hold.release(false);
        outcome.set(took && Thread.currentThread().isInterrupted()
            && Files.notExists(parent.resolve("a")));
      } catch (Throwable e) {
        outcome.set(e);
      }
    });
    thread.start();
    thread.join();
    assertThat(outcome.get()).isEqualTo(Boolean.TRUE);

    SemaphoreHold b = FolderSemaphore.take(parent.resolve("b"), "worker", null, records);
    SemaphoreHold c = FolderSemaphore.take(parent.resolve("c"), "worker", null, records);
    Object first = Inodes.key(parent.resolve("b/.lock"));
    HolderRecords.Published published = records.publishedFor("worker");
    closeItsDescriptor(published); // as an interrupt during a release closes it
    b.release(false);
    assertThat(parent.resolve("b")).as("released through the descriptor opened again")
        .doesNotExist();

    closeItsDescriptor(published);
    Files.delete(published.path); // and its file gone from its name: nothing to open again
    c.release(false);
    assertThat(parent.resolve("c")).as("released through a descriptor of its own, by its bytes")
        .doesNotExist();
    SemaphoreHold d = FolderSemaphore.take(parent.resolve("d"), "worker", null, records);
    List<Path> now = recordFiles(records);
    assertThat(now).as("a fresh record").hasSize(1).doesNotContain(published.path);
    assertThat(Inodes.key(parent.resolve("d/.lock"))).isEqualTo(Inodes.key(now.get(0)));
    assertThat(first).isNotNull();
    d.release(false);
  }

  @Test
  void aRecordLeavesTheProcesssLocksOnceRetiredAndItsLastHoldGivenBack() throws Exception {
    Path parent = parent();
    HolderRecords records = new HolderRecords(parent);
    SemaphoreHold a = FolderSemaphore.take(parent.resolve("a"), "worker", null, records);
    Object first = Inodes.key(parent.resolve("a/.lock"));
    assertThat(HolderRecords.releasingOf(first)).isNotNull();

    records.clear(); // the parent is about to be wiped
    assertThat(HolderRecords.releasingOf(first)).as("a hold of it is still out").isNotNull();
    a.release(false);
    assertThat(HolderRecords.releasingOf(first)).as("retired, its last hold given back").isNull();

    SemaphoreHold b = FolderSemaphore.take(parent.resolve("b"), "worker", null, records);
    Object second = Inodes.key(parent.resolve("b/.lock"));
    assertThat(second).as("a fresh record").isNotEqualTo(first);
    b.release(false);
    assertThat(HolderRecords.releasingOf(second)).as("in use: its next take links it").isNotNull();
    records.removeOwn(); // the parent is about to be moved
    assertThat(HolderRecords.releasingOf(second)).isNull();
  }

  @Test
  void aRetiredRecordTakesNoNewHold() throws Exception {
    Path parent = parent();
    HolderRecords records = new HolderRecords(parent);
    HolderRecords.Published retired = records.publishedFor("worker");
    records.retire(retired); // as a take that found it rewritten, or a wipe, does
    assertThatThrownBy(retired::pin).isInstanceOf(IOException.class)
        .hasMessageContaining("retired");

    SemaphoreHold hold = FolderSemaphore.take(parent.resolve("a"), "worker", null, records);
    assertThat(Inodes.key(parent.resolve("a/.lock"))).as("a fresh record, linked")
        .isNotEqualTo(retired.fileKey)
        .isEqualTo(records.publishedFor("worker").fileKey);
    hold.release(false);
  }

  /**
   * A long life of one process: its parent wiped and moved again and again (every start wipes,
   * every reboot moves), three holder names in each, and holds still out across a wipe. No record
   * of a round stays among the process's locks once the round is over.
   */
  @Test
  void theProcesssLocksDoNotGrowWithItsWipesAndMoves() throws Exception {
    Path parent = parent();
    List<String> names = List.of("freeze", "wake", "login");
    for (int round = 0; round < 50; round++) {
      HolderRecords records = new HolderRecords(parent);
      List<Object> keys = new java.util.ArrayList<>();
      List<SemaphoreHold> holds = new java.util.ArrayList<>();
      for (String name : names) {
        SemaphoreHold hold = FolderSemaphore.take(parent.resolve("u-" + name), name, null, records);
        keys.add(Inodes.key(parent.resolve("u-" + name + "/.lock")));
        holds.add(hold);
      }
      holds.remove(0).release(false);
      if (round % 2 == 0) {
        records.clear(); // a wipe, holds still out
      } else {
        records.removeOwn(); // a move
      }
      for (SemaphoreHold hold : holds) {
        hold.release(false);
      }
      for (Object key : keys) {
        assertThat(HolderRecords.releasingOf(key)).as("round %d", round).isNull();
      }
    }
  }

  private static void closeItsDescriptor(HolderRecords.Published published) throws IOException {
    published.releasing.lock();
    try {
      published.channel().close();
    } finally {
      published.releasing.unlock();
    }
  }

  @Test
  void aRecordCutShortByAFailedWriteLeavesNothingAndTheTakeFails() throws Exception {
    Path parent = parent();
    HolderRecords records = new HolderRecords(parent);
    HolderRecords.writeProbe = record -> {
      throw new IOException("No space left on device (a test)");
    };
    try {
      // The usual way is tried next, and publishes a file of its own.
      SemaphoreHold a = FolderSemaphore.take(parent.resolve("a"), "worker", null, records);
      assertThat(a).isNotNull();
      assertThat(Inodes.links(parent.resolve("a/.lock"))).isEqualTo(1);
      assertThat(recordFiles(records)).as("no half-written record is left").isEmpty();
      a.release(false);
    } finally {
      HolderRecords.writeProbe = record -> { };
    }
  }

  @Test
  void theRecordsOfTheDeadGoAndThoseOfTheLivingStay() throws Exception {
    Path parent = parent();
    HolderRecords records = new HolderRecords(parent);
    FolderSemaphore.take(parent.resolve("a"), "worker", null, records).release(false);
    long dead = TestProcesses.reapedPid();
    Path deadRecord = records.directory().resolve(dead + ".00");
    Files.write(deadRecord, TestProcesses.localRecord(dead, 5, "gone").toBytes());
    Path liveRecord = records.directory().resolve("1.00");
    Files.write(liveRecord,
        TestProcesses.localRecord(1, TestProcesses.startTicks(1), "init").toBytes());
    Path young = records.directory().resolve("2.00");
    Files.write(young, "half a rec".getBytes(StandardCharsets.UTF_8));
    Path directory = Files.createDirectory(records.directory().resolve("3.00"));

    assertThat(HolderRecords.removeAbandoned(parent)).isEqualTo(1);
    assertThat(deadRecord).doesNotExist();
    assertThat(liveRecord).exists();
    assertThat(young).as("malformed but within the grace").exists();
    assertThat(directory).exists();
    assertThat(recordFiles(records)).filteredOn(p -> p.getFileName().toString()
        .startsWith(SELF + ".")).as("ours stays").hasSize(1);
  }
}
