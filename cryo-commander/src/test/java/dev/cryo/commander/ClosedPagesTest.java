package dev.cryo.commander;

import static dev.cryo.wire.protocol.AnnouncementKind.DROP_PAGE;
import static dev.cryo.wire.protocol.AnnouncementKind.DROP_PAGES;
import static dev.cryo.wire.protocol.AnnouncementKind.NEW_CONNECTION;
import static dev.cryo.wire.protocol.AnnouncementKind.NEW_PAGE;
import static dev.cryo.wire.protocol.AnnouncementKind.NEW_USER;
import static dev.cryo.wire.protocol.AnnouncementKind.USER_FROZEN;
import static org.assertj.core.api.Assertions.assertThat;

import dev.cryo.wire.protocol.AnnouncementKind;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/**
 * The maps tell who listens ({@link Routing#tellClosedPages}) of a page closed for good — a
 * {@code drop_page} — with its connection, and of nothing a freeze drops.
 */
class ClosedPagesTest {

  private final Routing routing = new Routing(new RecordingSink());
  private final List<String> closed = new CopyOnWriteArrayList<>();
  private long sequence;

  private void tell(AnnouncementKind kind, String user, String key) {
    routing.fold("w1", new Announcement(++sequence, kind, user, List.of(key), null));
  }

  @Test
  void aDroppedPageIsToldWithItsConnectionAFrozenOneIsNot() {
    routing.tellClosedPages((connection, page) -> closed.add(connection + "/" + page));
    tell(NEW_USER, "anna", "anna");
    tell(NEW_CONNECTION, "anna", "c1");
    tell(NEW_PAGE, "anna", "p1");
    tell(NEW_PAGE, "anna", "p2");

    tell(DROP_PAGE, "anna", "p1");
    assertThat(closed).containsExactly("c1/p1");
    assertThat(routing.connectionOfPage("p1")).isEmpty();

    tell(USER_FROZEN, "anna", "anna");
    tell(DROP_PAGES, "anna", "p2"); // a freeze's: the page stays, its socket too
    assertThat(closed).containsExactly("c1/p1");
    assertThat(routing.connectionOfPage("p2")).contains("c1");
  }
}
