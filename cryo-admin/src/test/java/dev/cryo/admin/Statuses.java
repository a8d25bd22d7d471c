package dev.cryo.admin;

import dev.cryo.commander.Status;
import dev.cryo.commander.WorkerState;
import dev.cryo.freezer.FreezerUsage;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/** Statuses made by hand for the tests of this module. */
final class Statuses {

  private Statuses() {}

  /** A running status with workers named and peopled as {@code nameUsers}: "a", 3, "b", 1, … */
  static Status running(Object... nameUsers) {
    List<Status.WorkerStatus> workers = new ArrayList<>();
    int users = 0;
    for (int i = 0; i < nameUsers.length; i += 2) {
      int count = (Integer) nameUsers[i + 1];
      users += count;
      workers.add(new Status.WorkerStatus((String) nameUsers[i], 1000 + i, WorkerState.RUNNING,
          count, 20L << 20, 256L << 20, Duration.ofSeconds(42), i == 0));
    }
    return new Status("running", Instant.parse("2026-12-01T10:00:00Z"),
        "0123456789abcdef0123456789abcdef", 4242, Instant.parse("2026-12-01T09:00:00Z"),
        "/srv/run", workers, users, 2, 0, 1, users + 1, users + 3, 0,
        new FreezerUsage(12345, 4, 2, 1L << 30, 4L << 30));
  }
}
