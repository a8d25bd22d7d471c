package dev.cryo.commander;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cryo.control.RunHome;
import dev.cryo.wire.protocol.AnnouncementKind;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * No interrupt closes the journal (issue 22): NIO closes an interruptible channel when the thread
 * writing through it is interrupted, so a caller interrupted while it flushes, or a close that
 * interrupts the journal's own thread, would leave the journal unwritten from then on ("the journal
 * … could not be written (ClosedByInterruptException)"). Here the caller flushes with its interrupt
 * set, and the journal goes on recording every later change; its interrupt is left set for it.
 */
class JournalInterruptTest {

  @TempDir
  Path directory;

  @RegisterExtension
  final ClaimedHomes homes = new ClaimedHomes();

  private final AtomicLong sequence = new AtomicLong();

  private void fold(Routing routing, AnnouncementKind kind, String user, String... keys) {
    routing.fold("w1", new Announcement(sequence.incrementAndGet(), kind, user, List.of(keys),
        null));
  }

  private RunHome home() throws IOException {
    return homes.claim(directory);
  }

  @Test
  void aFlushByAnInterruptedCallerWritesAndTheJournalGoesOn() throws Exception {
    Routing routing = new Routing(new RecordingSink());
    Journal journal = Journal.start(home(), routing, Journal.Barrier.NONE);
    try {
      fold(routing, AnnouncementKind.NEW_CONNECTION, "anna", "c1");
      fold(routing, AnnouncementKind.USER_FROZEN, "anna");

      Thread.currentThread().interrupt();
      journal.flush();
      assertThat(Thread.interrupted()).as("the caller's interrupt is kept for it").isTrue();

      assertThat(JournalReplay.read(journal.file()).frozen()).containsExactly("anna");
      fold(routing, AnnouncementKind.NEW_CONNECTION, "bob", "c2");
      fold(routing, AnnouncementKind.USER_FROZEN, "bob");
      journal.flush();
      assertThat(JournalReplay.read(journal.file()).frozen()).containsExactly("anna", "bob");
    } finally {
      Thread.interrupted();
      journal.close(false);
    }
  }

  @Test
  void aCloseByAnInterruptedCallerWritesWhatWasBuffered() throws Exception {
    Routing routing = new Routing(new RecordingSink());
    Journal journal = Journal.start(home(), routing, Journal.Barrier.NONE);
    fold(routing, AnnouncementKind.NEW_CONNECTION, "carla", "c3");
    fold(routing, AnnouncementKind.USER_FROZEN, "carla");

    Thread.currentThread().interrupt();
    try {
      journal.close(false);
    } finally {
      assertThat(Thread.interrupted()).isTrue();
    }

    assertThat(JournalReplay.read(journal.file()).frozen()).containsExactly("carla");
  }
}
