package dev.cryo.worker;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cryo.wire.protocol.AnnouncementKind;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/**
 * The announcer hands what was published together to the listener as one burst (one write on the
 * wire instead of one per announcement), in sequence order, and keeps every guarantee of one at a
 * time: order, the watermark, nothing skipped when the listener throws.
 */
class AnnouncerBurstTest {

  /** Records each call the announcer makes: a burst as its sequences, one announcement alone. */
  private static final class Recording implements AnnouncementListener {
    final List<List<Long>> calls = new CopyOnWriteArrayList<>();

    @Override
    public void announce(Announcement announcement) {
      calls.add(List.of(announcement.sequence()));
    }

    @Override
    public void announceAll(List<Announcement> burst) {
      calls.add(burst.stream().map(Announcement::sequence).toList());
    }
  }

  @Test
  void whatIsPublishedTogetherIsDeliveredAsOneBurstInOrder() {
    Recording listener = new Recording();
    Announcer announcer = new Announcer(listener, user -> 0L);
    announcer.publish(AnnouncementKind.NEW_USER, "u", "u");
    announcer.publish(AnnouncementKind.NEW_CONNECTION, "u", "c");
    announcer.publish(AnnouncementKind.NEW_PAGE, "u", List.of("p"), "c");
    announcer.publish(AnnouncementKind.USER_ADOPTED, "u", "u");
    announcer.deliver();
    announcer.publish(AnnouncementKind.USER_FROZEN, "u", "u");
    announcer.deliver();
    assertThat(listener.calls).containsExactly(List.of(1L, 2L, 3L, 4L), List.of(5L));
    assertThat(announcer.watermark()).isEqualTo(5);
  }

  @Test
  void aLongQueueGoesInBurstsOfAtMostTheBound() {
    Recording listener = new Recording();
    Announcer announcer = new Announcer(listener, user -> 0L);
    int count = Announcer.MAX_BURST + 6;
    for (int i = 0; i < count; i++) {
      announcer.publish(AnnouncementKind.DROP_PAGE, "u", "p" + i);
    }
    assertThat(announcer.flush()).isEqualTo(count);
    assertThat(listener.calls).hasSize(2);
    assertThat(listener.calls.get(0)).hasSize(Announcer.MAX_BURST).startsWith(1L);
    List<Long> all = new ArrayList<>();
    listener.calls.forEach(all::addAll);
    assertThat(all).isSorted().hasSize(count).doesNotHaveDuplicates();
  }

  @Test
  void aPlainListenerGetsEveryAnnouncementOfABurstEvenAfterOneThrew() {
    List<Long> seen = new CopyOnWriteArrayList<>();
    Announcer announcer = new Announcer(announcement -> {
      seen.add(announcement.sequence());
      if (announcement.sequence() == 2) {
        throw new IllegalStateException("refused on purpose");
      }
    }, user -> 0L);
    announcer.publish(AnnouncementKind.NEW_USER, "u", "u");
    announcer.publish(AnnouncementKind.NEW_CONNECTION, "u", "c");
    announcer.publish(AnnouncementKind.USER_ADOPTED, "u", "u");
    announcer.deliver();
    assertThat(seen).containsExactly(1L, 2L, 3L);
    assertThat(announcer.watermark()).isEqualTo(3);
    announcer.publish(AnnouncementKind.USER_FROZEN, "u", "u");
    assertThat(announcer.flush()).isEqualTo(4);
    assertThat(seen).containsExactly(1L, 2L, 3L, 4L);
  }
}
