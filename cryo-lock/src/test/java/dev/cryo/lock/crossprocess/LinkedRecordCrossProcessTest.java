package dev.cryo.lock.crossprocess;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cryo.lock.FolderSemaphore;
import dev.cryo.lock.HolderRecords;
import dev.cryo.lock.Inodes;
import dev.cryo.lock.SemaphoreHold;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Semaphore locks that are links of one record per process ({@link HolderRecords}), with real
 * processes: two processes and this one take folders under the same holder name, each through a
 * record of its own; one is killed holding two folders, and its links are reclaimed one by one as
 * any dead holder's lock, its record file removed by the clean-up, the others' kept.
 */
class LinkedRecordCrossProcessTest {

  private static final Duration BOUND = Duration.ofSeconds(60);

  @TempDir Path temp;

  private static List<String> recordNames(Path directory) throws IOException {
    try (Stream<Path> files = Files.list(directory)) {
      return files.map(p -> p.getFileName().toString()).sorted().toList();
    }
  }

  @Test
  void aKilledHoldersLinksAreReclaimedAndItsRecordCleanedWhileTheLivingKeepTheirs()
      throws Exception {
    Path parent = temp.toRealPath();
    Path a = parent.resolve("a");
    Path b = parent.resolve("b");
    Path c = parent.resolve("c");
    Path records = parent.resolve(HolderRecords.DIRECTORY_NAME);
    try (ChildJvm first = ChildJvm.start("holds a and b", HolderMain.class,
            List.of("take-linked", "shared", a.toString(), b.toString()));
        ChildJvm second = ChildJvm.start("holds c", HolderMain.class,
            List.of("take-linked", "shared", c.toString()))) {
      first.awaitLine("@TAKEN", BOUND);
      second.awaitLine("@TAKEN", BOUND);
      HolderRecords mine = new HolderRecords(parent);
      SemaphoreHold d = FolderSemaphore.take(parent.resolve("d"), "shared", null, mine);
      assertThat(d).isNotNull();

      List<String> names = recordNames(records);
      assertThat(names).hasSize(3);
      assertThat(names).anyMatch(n -> n.startsWith(first.pid() + "."))
          .anyMatch(n -> n.startsWith(second.pid() + "."))
          .anyMatch(n -> n.startsWith(ProcessHandle.current().pid() + "."));
      Path firstRecord = records.resolve(names.stream()
          .filter(n -> n.startsWith(first.pid() + ".")).findFirst().orElseThrow());
      assertThat(Inodes.key(a.resolve(".lock"))).isEqualTo(Inodes.key(b.resolve(".lock")))
          .isEqualTo(Inodes.key(firstRecord));
      assertThat(Inodes.links(firstRecord)).isEqualTo(3);
      assertThat(FolderSemaphore.holder(a).orElseThrow().pid()).isEqualTo(first.pid());
      assertThat(FolderSemaphore.take(a, "shared", null, mine)).as("a live holder").isNull();
      assertThat(FolderSemaphore.take(c, "shared", null, mine)).as("a live holder").isNull();
      assertThat(HolderRecords.removeAbandoned(parent)).as("nobody is dead yet").isZero();

      first.kill();
      assertThat(HolderRecords.removeAbandoned(parent)).isEqualTo(1);
      assertThat(firstRecord).doesNotExist();
      assertThat(recordNames(records)).hasSize(2);
      assertThat(Inodes.links(a.resolve(".lock"))).as("its links keep the record readable").isEqualTo(2);
      assertThat(FolderSemaphore.holder(b).orElseThrow().pid()).isEqualTo(first.pid());

      SemaphoreHold takenA = FolderSemaphore.take(a, "shared", null, mine);
      assertThat(takenA).as("a dead holder's link is reclaimed").isNotNull();
      assertThat(FolderSemaphore.holder(a).orElseThrow().pid())
          .isEqualTo(ProcessHandle.current().pid());
      assertThat(Inodes.links(b.resolve(".lock"))).isEqualTo(1);
      SemaphoreHold takenB = FolderSemaphore.take(b, "shared", null, mine);
      assertThat(takenB).isNotNull();
      assertThat(FolderSemaphore.take(c, "shared", null, mine)).as("still alive").isNull();

      takenA.release(false);
      takenB.release(false);
      d.release(false);
      assertThat(a).doesNotExist();
      assertThat(b).doesNotExist();
      second.send("halt");
      assertThat(second.awaitExit(BOUND)).isZero();
      assertThat(HolderRecords.removeAbandoned(parent)).isEqualTo(1);
      assertThat(recordNames(records)).singleElement()
          .satisfies(n -> assertThat(n).startsWith(ProcessHandle.current().pid() + "."));
    }
  }
}
