package dev.cryo.commander;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cryo.control.RunHome;
import dev.cryo.wire.protocol.AnnouncementKind;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The journal's barrier: a batch that records a user as frozen is written only after his parcels
 * were forced (the barrier ran, and nothing of him was on disk yet when it did); a user frozen and
 * woken within one batch is not forced; a barrier that fails keeps the batch, in order, until it
 * passes. The barrier here records what it is asked and reads the journal back when it runs.
 */
class JournalBarrierTest {

  @TempDir
  Path directory;

  @RegisterExtension
  final ClaimedHomes homes = new ClaimedHomes();

  /** The test's directory claimed as a run's home, released after the test. */
  private RunHome home() throws IOException {
    return homes.claim(directory);
  }

  private final AtomicLong sequence = new AtomicLong();

  private void fold(Routing routing, AnnouncementKind kind, String user, String... keys) {
    routing.fold("w1", new Announcement(sequence.incrementAndGet(), kind, user, List.of(keys),
        null));
  }

  private JournalReplay replay(Journal journal) throws IOException {
    return JournalReplay.read(journal.file());
  }

  @Test
  void aFrozenUserIsWrittenOnlyOnceHisParcelsAreForced() throws Exception {
    Routing routing = new Routing(new RecordingSink());
    List<Set<String>> asked = new CopyOnWriteArrayList<>();
    List<Set<String>> onDiskWhenAsked = new CopyOnWriteArrayList<>();
    Journal[] journal = new Journal[1];
    journal[0] = Journal.start(home(), routing, frozen -> {
      asked.add(Set.copyOf(frozen));
      onDiskWhenAsked.add(Set.copyOf(replay(journal[0]).frozen()));
    });
    try {
      fold(routing, AnnouncementKind.NEW_CONNECTION, "anna", "c1");
      fold(routing, AnnouncementKind.NEW_CONNECTION, "bob", "c2");
      journal[0].flush();
      assertThat(asked).as("nobody frozen yet: nothing to force").isEmpty();

      fold(routing, AnnouncementKind.USER_FROZEN, "anna");
      journal[0].flush();

      assertThat(asked).containsExactly(Set.of("anna"));
      assertThat(onDiskWhenAsked).containsExactly(Set.of());
      assertThat(replay(journal[0]).frozen()).containsExactly("anna");
    } finally {
      journal[0].close(false);
    }
  }

  @Test
  void aUserFrozenAndWokenAgainWithinABatchIsNotForced() throws Exception {
    Routing routing = new Routing(new RecordingSink());
    List<Set<String>> asked = new CopyOnWriteArrayList<>();
    CountDownLatch entered = new CountDownLatch(1);
    CountDownLatch proceed = new CountDownLatch(1);
    Journal journal = Journal.start(home(), routing, frozen -> {
      asked.add(Set.copyOf(frozen));
      if (frozen.contains("bob")) { // holds the journal's writing: the next batch fills meanwhile
        entered.countDown();
        try {
          proceed.await(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }
    });
    try {
      fold(routing, AnnouncementKind.NEW_CONNECTION, "anna", "c1");
      fold(routing, AnnouncementKind.NEW_CONNECTION, "bob", "c2");
      journal.flush();
      fold(routing, AnnouncementKind.USER_FROZEN, "bob");
      Thread flusher = Thread.ofPlatform().start(journal::flush);
      assertThat(entered.await(30, TimeUnit.SECONDS)).isTrue();
      fold(routing, AnnouncementKind.USER_FROZEN, "anna"); // a move: frozen, then woken on B
      fold(routing, AnnouncementKind.USER_ADOPTED, "anna");
      proceed.countDown();
      flusher.join();
      journal.flush();

      assertThat(asked).containsExactly(Set.of("bob"));
      assertThat(replay(journal).awake()).containsExactly("anna");
      assertThat(replay(journal).frozen()).containsExactly("bob");
    } finally {
      proceed.countDown();
      journal.close(false);
    }
  }

  @Test
  void aFailingBarrierKeepsTheBatchInOrderUntilItPasses() throws Exception {
    Routing routing = new Routing(new RecordingSink());
    AtomicBoolean failing = new AtomicBoolean(true);
    List<Set<String>> asked = new CopyOnWriteArrayList<>();
    Journal journal = Journal.start(home(), routing, frozen -> {
      asked.add(Set.copyOf(frozen));
      if (failing.get()) {
        throw new IOException("the disk refused the force");
      }
    });
    try {
      fold(routing, AnnouncementKind.NEW_CONNECTION, "anna", "c1");
      fold(routing, AnnouncementKind.NEW_CONNECTION, "bob", "c2");
      journal.flush();
      fold(routing, AnnouncementKind.USER_FROZEN, "anna");
      journal.flush();
      fold(routing, AnnouncementKind.NEW_CONNECTION, "carl", "c3"); // after the refused batch
      journal.flush();

      assertThat(asked).isNotEmpty().allSatisfy(set -> assertThat(set).isEqualTo(Set.of("anna")));
      JournalReplay held = replay(journal);
      assertThat(held.frozen()).as("anna's freeze is not on disk while the barrier fails")
          .isEmpty();
      assertThat(held.awake()).containsExactlyInAnyOrder("anna", "bob");

      failing.set(false);
      journal.flush();

      JournalReplay passed = replay(journal);
      assertThat(passed.corruption()).isEmpty();
      assertThat(passed.frozen()).containsExactly("anna");
      assertThat(passed.awake()).containsExactlyInAnyOrder("bob", "carl");
    } finally {
      journal.close(false);
    }
  }
}
