package dev.cryo.commander;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.cryo.control.RunHome;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class EventLogRotationTest {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Clock CLOCK = Clock.fixed(Instant.parse("2026-12-07T03:00:00Z"),
      ZoneOffset.UTC);

  @Test
  void aLogPastItsSizeIsRotatedAndOnlyTheKeptPartsStay(@TempDir Path dir) throws Exception {
    try (RunHome home = RunHome.claim(dir, List.of());
        EventLog log = EventLog.open(home, CLOCK, new LogCaps(1000, 3, 32, 1000))) {
      for (int i = 0; i < 100; i++) {
        log.record("fold", Map.of("user", "u" + i, "pad", "x".repeat(100)));
      }
    }
    List<Path> files = EventLogFiles.run(dir);
    assertThat(files).extracting(file -> file.getFileName().toString())
        .containsExactly("events.3.jsonl", "events.2.jsonl", "events.1.jsonl", "events.jsonl");
    assertThat(dir.resolve("events.4.jsonl")).doesNotExist();
    for (Path part : files.subList(0, 3)) {
      // rotated once a line took it to 1000 bytes or past: never more than one line past it
      assertThat(Files.size(part)).isBetween(1000L, 1200L);
    }
    List<Long> numbers = numbers(files);
    // whole lines, in order, none missing between the first kept and the last
    assertThat(numbers.getLast()).isEqualTo(100);
    for (int i = 1; i < numbers.size(); i++) {
      assertThat(numbers.get(i)).isEqualTo(numbers.get(i - 1) + 1);
    }
    assertThat(numbers.size()).isGreaterThan(3 * 7);
  }

  @Test
  void linesWrittenByManyThreadsAreNeverTornAcrossARotation(@TempDir Path dir) throws Exception {
    int threads = 4;
    int each = 500;
    try (RunHome home = RunHome.claim(dir, List.of());
        EventLog log = EventLog.open(home, CLOCK, new LogCaps(4096, 1000, 32, 1000))) {
      CountDownLatch go = new CountDownLatch(1);
      List<Thread> writers = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        int thread = t;
        writers.add(Thread.ofPlatform().start(() -> {
          try {
            go.await();
          } catch (InterruptedException e) {
            return;
          }
          for (int i = 0; i < each; i++) {
            log.record("fold", Map.of("user", "t" + thread + "-" + i, "note", "é€𝄞"));
          }
        }));
      }
      go.countDown();
      for (Thread writer : writers) {
        writer.join();
      }
    }
    List<Path> files = EventLogFiles.run(dir);
    assertThat(files.size()).isGreaterThan(10);
    List<Long> numbers = numbers(files); // each line parses: none torn
    assertThat(numbers).hasSize(threads * each);
    for (int i = 0; i < numbers.size(); i++) {
      assertThat(numbers.get(i)).isEqualTo(i + 1);
    }
    for (Path file : files) {
      assertThat(Files.readString(file, StandardCharsets.UTF_8)).endsWith("\n");
    }
  }

  @Test
  void aRotationThatFailsKeepsEveryLineInTheLiveFile(@TempDir Path dir) throws Exception {
    try (RunHome home = RunHome.claim(dir, List.of());
        EventLog log = EventLog.open(home, CLOCK, new LogCaps(500, 2, 32, 1000))) {
      Files.createDirectory(dir.resolve("events.1.jsonl")); // the shift refuses it: not a file
      for (int i = 0; i < 50; i++) {
        log.record("fold", Map.of("user", "u" + i, "pad", "x".repeat(100)));
      }
    }
    List<String> lines = Files.readAllLines(dir.resolve("events.jsonl"));
    assertThat(lines).hasSize(50);
    assertThat(numbers(List.of(dir.resolve("events.jsonl"))).getLast()).isEqualTo(50);
    assertThat(dir.resolve("events.1.jsonl")).isDirectory();
    assertThat(dir.resolve("events.2.jsonl")).doesNotExist();
  }

  @Test
  void aStartMovesThePreviousRunsPartsAsideAndRemovesTheRunBeforeIt(@TempDir Path dir)
      throws Exception {
    LogCaps caps = new LogCaps(300, 2, 32, 1000);
    for (int run = 1; run <= 3; run++) {
      try (RunHome home = RunHome.claim(dir, List.of());
          EventLog log = EventLog.open(home, CLOCK, caps)) {
        for (int i = 0; i < 21; i++) { // the last one after a rotation: the live file not empty
          log.record("run" + run, Map.of("pad", "x".repeat(100)));
        }
      }
    }
    Files.writeString(dir.resolve("events.7.jsonl"), "{\"event\":\"beyond\"}\n"); // past keep
    try (RunHome home = RunHome.claim(dir, List.of());
        EventLog log = EventLog.open(home, CLOCK, caps)) {
      log.record("run4", Map.of());
    }
    assertThat(EventLogFiles.previousRun(dir)).extracting(file -> file.getFileName().toString())
        .containsExactly("events.previous.2.jsonl", "events.previous.1.jsonl",
            "events.previous.jsonl");
    for (Path file : EventLogFiles.previousRun(dir)) {
      assertThat(Files.readString(file)).contains("\"event\":\"run3\"")
          .doesNotContain("run2").doesNotContain("beyond");
    }
    assertThat(dir.resolve("events.7.jsonl")).doesNotExist();
    assertThat(EventLogFiles.run(dir)).extracting(file -> file.getFileName().toString())
        .containsExactly("events.jsonl");
    assertThat(Files.readString(dir.resolve("events.jsonl"))).contains("run4");
  }


  private static List<Long> numbers(List<Path> files) throws IOException {
    List<Long> numbers = new ArrayList<>();
    for (Path file : files) {
      for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
        JsonNode node = JSON.readTree(line);
        numbers.add(node.get("n").asLong());
      }
    }
    return numbers;
  }
}
