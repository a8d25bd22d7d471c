package dev.cryo.worker;

import static dev.cryo.worker.Harness.increment;
import static org.assertj.core.api.Assertions.assertThat;

import dev.cryo.wire.protocol.AnnouncementKind;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The announcer hands a listener that takes runs ({@link AnnouncementListener.Batches}) what is
 * queued in one call, in order, with the watermark after the whole run; a refused run is handed
 * over again one announcement at a time, so only the refused one is skipped; a plain listener still
 * gets one at a time. A freeze's {@code user_frozen} and {@code drop_pages} leave in one run (one
 * write of the wire).
 */
class AnnouncementRunsTest {

  @TempDir Path temp;

  /** Records each call: a run as its announcements' "seq:kind", a single one alone. */
  static final class Recorder implements AnnouncementListener.Batches {
    final List<List<String>> calls = new CopyOnWriteArrayList<>();
    volatile boolean refuseRuns;
    volatile long refuse = -1;

    @Override
    public void announce(Announcement announcement) {
      if (announcement.sequence() == refuse) {
        throw new IllegalStateException("refused " + refuse);
      }
      calls.add(List.of(name(announcement)));
    }

    @Override
    public void announceAll(List<Announcement> run) {
      if (refuseRuns) {
        throw new IllegalStateException("no runs");
      }
      List<String> names = new ArrayList<>();
      run.forEach(announcement -> names.add(name(announcement)));
      calls.add(names);
    }

    private static String name(Announcement announcement) {
      return announcement.sequence() + ":" + announcement.kind().code();
    }
  }

  private static void publishThree(Announcer announcer) {
    announcer.publish(AnnouncementKind.NEW_USER, "anna", "anna");
    announcer.publish(AnnouncementKind.NEW_CONNECTION, "anna", "c1");
    announcer.publish(AnnouncementKind.NEW_PAGE, "anna", "p1");
  }

  @Test
  void whatIsQueuedGoesToARunListenerInOneCallInOrder() {
    Recorder recorder = new Recorder();
    Announcer announcer = new Announcer(recorder);
    publishThree(announcer);
    announcer.deliver();
    assertThat(recorder.calls).containsExactly(
        List.of("1:new_user", "2:new_connection", "3:new_page"));
    assertThat(announcer.watermark()).isEqualTo(3);
    announcer.publish(AnnouncementKind.DROP_PAGE, "anna", "p1");
    assertThat(announcer.flush()).isEqualTo(4);
    assertThat(recorder.calls).last().isEqualTo(List.of("4:drop_page")); // one alone: announce
  }

  @Test
  void aRefusedRunIsHandedOverOneAtATimeAndOnlyTheRefusedOneIsSkipped() {
    Recorder recorder = new Recorder();
    recorder.refuseRuns = true;
    recorder.refuse = 2;
    Announcer announcer = new Announcer(recorder);
    publishThree(announcer);
    announcer.deliver();
    assertThat(recorder.calls).containsExactly(List.of("1:new_user"), List.of("3:new_page"));
    assertThat(announcer.watermark()).isEqualTo(3);
  }

  @Test
  void aPlainListenerStillGetsOneAtATime() {
    List<String> heard = new CopyOnWriteArrayList<>();
    Announcer announcer = new Announcer(announcement -> heard.add(announcement.kind().code()));
    publishThree(announcer);
    announcer.deliver();
    assertThat(heard).containsExactly("new_user", "new_connection", "new_page");
    assertThat(announcer.watermark()).isEqualTo(3);
  }

  @Test
  void aFreezesTwoAnnouncementsLeaveInOneRun() throws Exception {
    Recorder recorder = new Recorder();
    try (Harness harness = new Harness(temp)) {
      Worker worker = harness.builder("w1").listener(recorder).build();
      harness.workers.add(worker);
      Harness.call(worker, increment("anna", "c1", "p1", "page"));
      assertThat(worker.freezeUser("anna").join()).isEqualTo(FreezeOutcome.FROZEN);
      List<String> run = recorder.calls.stream()
          .filter(call -> call.stream().anyMatch(name -> name.endsWith(":user_frozen")))
          .findFirst().orElseThrow();
      assertThat(run).hasSize(2);
      assertThat(run.get(0)).endsWith(":user_frozen");
      assertThat(run.get(1)).endsWith(":drop_pages");
    }
  }
}
