package dev.cryo.worker;

import static dev.cryo.worker.Harness.number;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.cryo.register.ConnectionRow;
import dev.cryo.wire.protocol.RefusalReason;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Issue 9, fix 8: a call from a connection without a page (an HTML shell, a login POST). */
class PagelessCallTest {

  @TempDir Path temp;
  Harness harness;
  Worker worker;

  @BeforeEach
  void setUp() throws Exception {
    harness = new Harness(temp);
    worker = harness.worker("w1");
  }

  @AfterEach
  void tearDown() {
    harness.close();
  }

  private static Call shell(String user, String connection, String operation,
      Map<String, Object> arguments) {
    return Call.userEvent(user, connection, null, operation).withArguments(arguments);
  }

  @Test
  void aPagelessCallBringsOnlyTheUserAndTheConnectionIntoBeing() {
    Object counted = worker.call(shell(null, "c1", "increment", Map.of("scope", "user", "key", "n")));

    assertThat(number(counted)).isEqualTo(1L);
    assertThat(harness.told("w1")).containsExactly("new_user:guest_c1", "new_connection:c1");
    assertThat(worker.photo().users().get("guest_c1").connections()).isEqualTo(Map.of("c1", 0));
    assertThat(worker.registry().pageItems().size()).isZero();
  }

  @Test
  void aPagelessCallStampsTheConnectionAndTheUser() {
    worker.call(shell("anna", "c1", "get", Map.of("scope", "connection")));
    harness.schedule.advance(Duration.ofSeconds(30));
    Instant now = harness.schedule.clock().instant();

    worker.call(shell("anna", "c1", "get", Map.of("scope", "connection")));

    ConnectionRow connection = worker.registry().connectionItems().get("c1").orElseThrow();
    assertThat(connection.get(Parcels.LAST_USER_TS, Instant.class)).isEqualTo(now);
    assertThat(worker.photo().users().get("anna").lastUser()).isEqualTo(now);
    assertThat(worker.photo().users().get("anna").lastRpc()).isEqualTo(now);
  }

  @Test
  void aPagelessCallHasNoPageStoreOfItsOwn() {
    assertThatThrownBy(() -> worker.call(shell("anna", "c1", "increment", Map.of())))
        .isInstanceOfSatisfying(WorkerException.class,
            e -> assertThat(e.reason()).isEqualTo(RefusalReason.UNKNOWN_PAGE))
        .hasMessageContaining("is for no page");
    // The refusal left the connection served: its stores are reachable.
    assertThat(number(worker.call(shell("anna", "c1", "increment",
        Map.of("scope", "connection"))))).isEqualTo(1L);
  }

  @Test
  void aPagelessCallOpensAPageAndReachesItByIdLater() {
    worker.call(shell("anna", "c1", "open", Map.of("page", "p1")));
    assertThat(harness.told("w1")).containsExactly("new_user:anna", "new_connection:c1",
        "new_page:p1");

    worker.call(shell("anna", "c1", "increment", Map.of("page", "p1", "key", "n")));
    Object twice = worker.call(shell("anna", "c1", "increment", Map.of("page", "p1", "key", "n")));
    assertThat(number(twice)).isEqualTo(2L);
    // The same store the page's own calls see.
    assertThat(number(worker.call(Harness.get("anna", "c1", "p1", "page")))).isEqualTo(2L);
  }

  @Test
  void aPageOfAnotherConnectionIsRefusedAndLeftAlone() {
    worker.call(Harness.increment("bob", "c2", "p2", "page"));
    worker.call(Harness.increment("anna", "c3", "p3", "page")); // anna's own other connection

    for (String foreign : new String[] {"p2", "p3", "nowhere"}) {
      assertThatThrownBy(() -> worker.call(shell("anna", "c1", "increment",
          Map.of("page", foreign))))
          .isInstanceOfSatisfying(WorkerException.class,
              e -> assertThat(e.reason()).isEqualTo(RefusalReason.UNKNOWN_PAGE))
          .hasMessageContaining("page '" + foreign + "'")
          .hasMessageContaining("nothing was read or written");
    }
    assertThat(number(worker.call(Harness.get("bob", "c2", "p2", "page")))).isEqualTo(1L);
    assertThat(number(worker.call(Harness.get("anna", "c3", "p3", "page")))).isEqualTo(1L);
  }

  @Test
  void openingAnIdOfAnotherConnectionsPageIsRefused() {
    worker.call(Harness.increment("bob", "c2", "p2", "page"));
    assertThatThrownBy(() -> worker.call(shell("anna", "c1", "open", Map.of("page", "p2"))))
        .isInstanceOfSatisfying(WorkerException.class,
            e -> assertThat(e.reason()).isEqualTo(RefusalReason.USER_MISMATCH));
    assertThat(worker.registry().pageItems().get("p2").orElseThrow().connectionId())
        .isEqualTo("c2");
  }

  @Test
  void aPagelessConnectionIsFrozenAndWokenWithItsStores() {
    Worker other = harness.worker("w2");
    worker.call(shell("anna", "c1", "increment", Map.of("scope", "connection")));
    worker.call(shell("anna", "c1", "increment", Map.of("scope", "user")));
    assertThat(worker.freezeUser("anna").join()).isEqualTo(FreezeOutcome.FROZEN);

    Object connection = other.call(shell("anna", "c1", "increment", Map.of("scope", "connection"))
        .withUserFrozen());
    assertThat(number(connection)).isEqualTo(2L);
    assertThat(number(other.call(shell("anna", "c1", "get", Map.of("scope", "user")))))
        .isEqualTo(1L);
    assertThat(harness.told("w2")).startsWith("new_user:anna", "new_connection:c1",
        "user_adopted:anna");
  }

  @Test
  void aPagelessPingStampsOnlyRefreshAndCreatesNobody() {
    worker.call(Call.ping(null, "c9", null));
    assertThat(worker.registry().userItems().size()).isZero();

    worker.call(shell("anna", "c1", "get", Map.of("scope", "user")));
    Instant served = harness.schedule.clock().instant();
    harness.schedule.advance(Duration.ofSeconds(5));
    worker.call(Call.ping("anna", "c1", null));
    assertThat(worker.photo().users().get("anna").lastRefresh())
        .isEqualTo(harness.schedule.clock().instant());
    assertThat(worker.photo().users().get("anna").lastUser()).isEqualTo(served);
  }

  @Test
  void aLoginPostWithoutAPageRelabelsTheConnection() {
    worker.call(shell(null, "c1", "increment", Map.of("scope", "user")));
    worker.call(shell(null, "c1", "login", Map.of("user", "anna")));
    assertThat(worker.registry().connectionItems().get("c1").orElseThrow().user())
        .isEqualTo("anna");
    assertThat(number(worker.call(shell("anna", "c1", "get", Map.of("scope", "user")))))
        .isEqualTo(1L);
  }
}
