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
}
