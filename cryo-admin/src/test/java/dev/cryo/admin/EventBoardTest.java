package dev.cryo.admin;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Map;
import org.junit.jupiter.api.Test;

class EventBoardTest {

  private final EventBoard board = new EventBoard(3,
      Clock.fixed(Instant.parse("2026-12-01T10:00:00Z"), ZoneOffset.UTC));

  @Test
  void keepsTheLatestEventsWorthShowingNewestFirst() {
    board.event("fold", Map.of("worker", "w", "kind", "new_user", "user", "a"));
    board.event("fold", Map.of("worker", "w", "kind", "new_page", "user", "a"));
    board.event("worker_spawned", Map.of("worker", "w", "attempt", 1, "pid", 5));
    board.event("fold", Map.of("worker", "w", "kind", "user_frozen", "user", "a"));
    board.event("worker_died", Map.of("worker", "w", "reason", "killed"));

    assertThat(board.latest(10)).extracting(line -> line.get("label"))
        .containsExactly("death", "freeze", "worker"); // the birth fell off the ring of 3
    assertThat(board.latest(1).get(0)).containsEntry("at", "2026-12-01T10:00:00Z")
        .containsEntry("event", "worker_died").containsEntry("worker", "w");
    assertThat(board.latest(2).get(1)).containsEntry("label", "freeze")
        .containsEntry("kind", "user_frozen"); // the fold's own kind is kept beside the label
    assertThat(board.count()).isEqualTo(4); // the page's fold was never kept
  }

  @Test
  void anEndedQuitIsShownWithItsCountsAndItsBeginningIsNot() {
    board.event("quit_begun", Map.of("worker", "w", "held", 2, "grace_ms", 5000));
    board.event("fold", Map.of("worker", "w", "kind", "user_frozen", "user", "a"));
    board.event("quit_ended", Map.of("worker", "w", "frozen", 1, "dropped", 0, "failed", 0,
        "cut", 0));

    assertThat(board.latest(10)).extracting(line -> line.get("label"))
        .containsExactly("quit", "freeze");
    assertThat(board.latest(1).get(0)).containsEntry("event", "quit_ended")
        .containsEntry("frozen", 1);
  }

  @Test
  void aBoardStartsWithTheLogsLastLinesAndSkipsTornOnes(@org.junit.jupiter.api.io.TempDir
      java.nio.file.Path scratch) throws Exception {
    java.nio.file.Path log = scratch.resolve("events.jsonl");
    java.nio.file.Files.writeString(log, String.join("\n",
        "{\"n\":1,\"at\":\"2026-12-01T09:00:00Z\",\"event\":\"worker_spawned\",\"worker\":\"w1\"}",
        "not json",
        "{\"n\":2,\"at\":\"2026-12-01T09:00:01Z\",\"event\":\"worker_presented\",\"worker\":\"w1\"}",
        "{\"n\":3,\"at\":\"2026-12-01T09:00:02Z\",\"event\":\"fold\",\"kind\":\"new_user\","
            + "\"user\":\"anna\"}",
        "{\"n\":4,\"at\":\"2026-12-01T09:00:03Z\",\"event\":\"worker_died\"")); // torn, no newline
    board.seed(EventLogTail.read(log, EventLogTail.MAX_BYTES));
    assertThat(board.latest(10)).extracting(line -> line.get("label"))
        .containsExactly("birth", "worker", "worker");
    assertThat(board.latest(1).get(0)).containsEntry("at", "2026-12-01T09:00:02Z")
        .containsEntry("user", "anna").doesNotContainKey("n");
    // a window that begins inside a line drops that line
    assertThat(EventLogTail.read(log, 60)).isEmpty();
  }

  @Test
  void theTailReadsTheRotatedPartsOldestFirst(@org.junit.jupiter.api.io.TempDir
      java.nio.file.Path scratch) throws Exception {
    java.nio.file.Files.writeString(scratch.resolve("events.2.jsonl"), line(1) + line(2));
    java.nio.file.Files.writeString(scratch.resolve("events.1.jsonl"), line(3));
    java.nio.file.Files.writeString(scratch.resolve("events.jsonl"), line(4));
    java.nio.file.Files.writeString(scratch.resolve("events.previous.jsonl"), line(99));
    java.nio.file.Path live = scratch.resolve("events.jsonl");
    assertThat(EventLogTail.read(EventLogTail.files(live), EventLogTail.MAX_BYTES))
        .containsExactly(line(1).strip(), line(2).strip(), line(3).strip(), line(4).strip());
    // a window that ends inside an older part drops the line it cut
    int three = line(3).length() + line(4).length();
    assertThat(EventLogTail.read(EventLogTail.files(live), three + 5))
        .containsExactly(line(3).strip(), line(4).strip());
    assertThat(EventLogTail.read(EventLogTail.files(live), three + line(2).length()))
        .containsExactly(line(2).strip(), line(3).strip(), line(4).strip());
  }

  private static String line(int n) {
    return "{\"n\":" + n + ",\"event\":\"worker_spawned\",\"worker\":\"w" + n + "\"}\n";
  }
}
