package dev.cryo.commander;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cryo.wire.protocol.AnnouncementKind;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The journal on a full disk (issue 22): a 20-minute soak's start found "a record whose checksum
 * fails … before its last record" and adopted no user at all. A batch written while the disk was
 * full had left part of itself in the file, and the batches after it, once space returned, were
 * appended behind that torn record. The journal now cuts a refused write back to its last whole
 * record and writes the batch again with the next one.
 */
class JournalFullDiskTest {

  @TempDir
  Path directory;

  @RegisterExtension
  final ClaimedHomes homes = new ClaimedHomes();

  private final AtomicLong sequence = new AtomicLong();

  private void fold(Routing routing, AnnouncementKind kind, String user, String... keys) {
    routing.fold("w1", new Announcement(sequence.incrementAndGet(), kind, user, List.of(keys),
        null));
  }

  @Test
  void aBatchRefusedByAFullDiskLeavesNoTornRecordAndIsWrittenOnceSpaceReturns() throws Exception {
    Path home = directory.resolve("home");
    Files.createDirectories(home);
    try (TmpfsHome disk = TmpfsHome.mount(home, 2)) {
      Routing routing = new Routing(new RecordingSink());
      Journal journal = Journal.start(homes.claim(home), routing, Journal.Barrier.NONE);
      try {
        fold(routing, AnnouncementKind.NEW_CONNECTION, "anna", "c-anna");
        fold(routing, AnnouncementKind.USER_FROZEN, "anna");
        journal.flush();

        disk.keepFull();
        List<String> refused = new ArrayList<>();
        for (int i = 0; i < 200; i++) { // several KiB: part of it fits the file's last page
          String user = "user-" + i + "-" + "x".repeat(40);
          fold(routing, AnnouncementKind.NEW_CONNECTION, user, "c" + i + "-" + "y".repeat(40));
          fold(routing, AnnouncementKind.USER_FROZEN, user);
          refused.add(user);
        }
        journal.flush(); // refused by the full disk: logged, kept
        assertThat(JournalReplay.read(journal.file()).corruption()).isEmpty();

        disk.empty();
        fold(routing, AnnouncementKind.NEW_CONNECTION, "bob", "c-bob");
        fold(routing, AnnouncementKind.USER_FROZEN, "bob");
        journal.flush();

        JournalReplay replay = JournalReplay.read(journal.file());
        assertThat(replay.corruption()).as("no torn record before a whole one").isEmpty();
        assertThat(replay.frozen()).contains("anna", "bob").containsAll(refused);
      } finally {
        journal.close(false);
      }
    }
  }
}
