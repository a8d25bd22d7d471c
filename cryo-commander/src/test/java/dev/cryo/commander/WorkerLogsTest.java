package dev.cryo.commander;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cryo.control.RunHome;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileTime;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class WorkerLogsTest {

  @Test
  void aSpawnRemovesTheOldestLogsOfWorkersNotAliveBeyondTheKeptCount(@TempDir Path dir)
      throws Exception {
    Path workers = Files.createDirectory(dir.resolve("workers"));
    Instant base = Instant.parse("2026-12-07T00:00:00Z");
    String[] names = {"main_0001.log", "main_0002.log", "main_0002.log.1", "main_0003.log",
        "main_0004.log", "main_0005.log", "notes.txt"};
    for (int i = 0; i < names.length; i++) {
      Path file = Files.writeString(workers.resolve(names[i]), "line\n");
      Files.setLastModifiedTime(file, FileTime.from(base.plusSeconds(i)));
    }
    try (RunHome home = RunHome.claim(dir, List.of())) {
      WorkerLogs logs = new WorkerLogs(home, "workers", new LogCaps(1000, 1, 3, 1000));
      // main_0001 is the oldest but alive: kept; the next oldest go until three logs stand, the
      // one of main_0006 about to be created among them
      assertThat(logs.prune(Set.of("main_0001", "main_0005", "main_0006"), "main_0006"))
          .isEqualTo(4);
    }
    try (Stream<Path> left = Files.list(workers)) {
      assertThat(left.map(file -> file.getFileName().toString()))
          .containsExactlyInAnyOrder("main_0001.log", "main_0005.log", "notes.txt");
    }
  }

  @Test
  void logsOfWorkersAliveAreNeverRemovedEvenPastTheKeptCount(@TempDir Path dir) throws Exception {
    Path workers = Files.createDirectory(dir.resolve("workers"));
    for (String name : new String[] {"a.log", "b.log", "c.log"}) {
      Files.writeString(workers.resolve(name), "x\n");
    }
    try (RunHome home = RunHome.claim(dir, List.of())) {
      WorkerLogs logs = new WorkerLogs(home, "workers", new LogCaps(1000, 1, 1, 1000));
      assertThat(logs.prune(Set.of("a", "b", "c"), "c")).isZero();
    }
    try (Stream<Path> left = Files.list(workers)) {
      assertThat(left).hasSize(3);
    }
  }

  @Test
  void aLogPastItsSizeIsCopiedAsideAndEmptiedAndItsWriterGoesOnAtItsStart(@TempDir Path dir)
      throws Exception {
    Path workers = Files.createDirectory(dir.resolve("workers"));
    Path log = workers.resolve("main_0001.log");
    Files.writeString(workers.resolve("main_0001.log.1"), "an older cut\n");
    Files.writeString(workers.resolve("main_0002.log"), "small\n");
    try (var writer = Files.newOutputStream(log, StandardOpenOption.CREATE,
        StandardOpenOption.APPEND)) { // as a worker's redirected output is opened
      writer.write("a".repeat(150).getBytes());
      writer.flush();
      try (RunHome home = RunHome.claim(dir, List.of())) {
        WorkerLogs logs = new WorkerLogs(home, "workers", new LogCaps(1000, 1, 32, 100));
        assertThat(logs.cut(List.of("main_0001", "main_0002", "main_0003")))
            .containsExactly("main_0001");
      }
      assertThat(Files.readString(workers.resolve("main_0001.log.1"))).isEqualTo("a".repeat(150));
      assertThat(Files.size(log)).isZero();
      writer.write("after\n".getBytes());
    }
    assertThat(Files.readString(log)).isEqualTo("after\n"); // no hole before it
    assertThat(Files.readString(workers.resolve("main_0002.log"))).isEqualTo("small\n");
    assertThat(workers.resolve("main_0003.log")).doesNotExist();
  }
}
