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

  private static TestCall shell(String user, String connection, String operation,
      Map<String, Object> arguments) {
    return TestCall.userEvent(user, connection, null, operation).withArguments(arguments);
  }

  @Test
  void aPagelessCallBringsOnlyTheUserAndTheConnectionIntoBeing() {
    Object counted = Harness.call(worker, shell(null, "c1", "increment", Map.of("scope", "user", "key", "n")));

    assertThat(number(counted)).isEqualTo(1L);
    assertThat(harness.told("w1")).containsExactly("new_user:guest_c1", "new_connection:c1");
    assertThat(worker.photo().users().get("guest_c1").connections()).isEqualTo(Map.of("c1", 0));
    assertThat(worker.registry().pageItems().size()).isZero();
  }

  @Test
  void aPagelessCallStampsTheConnectionAndTheUser() {
    Harness.call(worker, shell("anna", "c1", "get", Map.of("scope", "connection")));
    harness.schedule.advance(Duration.ofSeconds(30));
    Instant now = harness.schedule.clock().instant();

    Harness.call(worker, shell("anna", "c1", "get", Map.of("scope", "connection")));

    ConnectionRow connection = worker.registry().connectionItems().get("c1").orElseThrow();
    assertThat(connection.get(Parcels.LAST_USER_TS, Instant.class)).isEqualTo(now);
    assertThat(worker.photo().users().get("anna").lastUser()).isEqualTo(now);
    assertThat(worker.photo().users().get("anna").lastRpc()).isEqualTo(now);
  }

  @Test
  void aPagelessCallHasNoPageStoreOfItsOwn() {
    assertThatThrownBy(() -> Harness.call(worker, shell("anna", "c1", "increment", Map.of())))
        .isInstanceOfSatisfying(Harness.Refused.class, e -> assertThat(e.status).isEqualTo(404))
        .hasMessageContaining("unknown_page")
        .hasMessageContaining("is not one of this connection's pages");
    // The refusal left the connection served: its stores are reachable.
    assertThat(number(Harness.call(worker, shell("anna", "c1", "increment",
        Map.of("scope", "connection"))))).isEqualTo(1L);
  }

  @Test
  void aPagelessCallOpensAPageAndReachesItByIdLater() {
    String page = (String) Harness.call(worker, shell("anna", "c1", "open", Map.of()));
    assertThat(harness.told("w1")).containsExactly("new_user:anna", "new_connection:c1",
        "new_page:" + page);

    Harness.call(worker, shell("anna", "c1", "increment", Map.of("page", page, "key", "n")));
    Object twice = Harness.call(worker, shell("anna", "c1", "increment", Map.of("page", page, "key", "n")));
    assertThat(number(twice)).isEqualTo(2L);
    // The same store the page's own calls see.
    assertThat(number(Harness.call(worker, Harness.get("anna", "c1", page, "page")))).isEqualTo(2L);
  }

  @Test
  void aPageOfAnotherConnectionIsRefusedAndLeftAlone() {
    Harness.call(worker, Harness.increment("bob", "c2", "p2", "page"));
    Harness.call(worker, Harness.increment("anna", "c3", "p3", "page")); // anna's own other connection

    for (String foreign : new String[] {"p2", "p3", "nowhere"}) {
      assertThatThrownBy(() -> Harness.call(worker, shell("anna", "c1", "increment",
          Map.of("page", foreign))))
          .isInstanceOfSatisfying(Harness.Refused.class, e -> assertThat(e.status).isEqualTo(404))
          .hasMessageContaining("unknown_page")
          .hasMessageContaining("is not one of this connection's pages")
          .hasMessageContaining("nothing was read or written");
    }
    assertThat(number(Harness.call(worker, Harness.get("bob", "c2", "p2", "page")))).isEqualTo(1L);
    assertThat(number(Harness.call(worker, Harness.get("anna", "c3", "p3", "page")))).isEqualTo(1L);
  }

  @Test
  void openingAnIdOfAnotherConnectionsPageIsRefused() {
    Harness.call(worker, Harness.increment("bob", "c2", "p2", "page"));
    // An application opens pages under fresh ids; the worker's own reach names one.
    assertThatThrownBy(() -> Harness.inCall(worker, shell("anna", "c1", "open", Map.of()), host -> {
      host.newPage("p2", Map.of());
      return null;
    }))
        .isInstanceOfSatisfying(WorkerException.class,
            e -> assertThat(e.reason()).isEqualTo(RefusalReason.USER_MISMATCH));
    assertThat(worker.registry().pageItems().get("p2").orElseThrow().connectionId())
        .isEqualTo("c2");
  }

  @Test
  void aPagelessConnectionIsFrozenAndWokenWithItsStores() {
    Worker other = harness.worker("w2");
    Harness.call(worker, shell("anna", "c1", "increment", Map.of("scope", "connection")));
    Harness.call(worker, shell("anna", "c1", "increment", Map.of("scope", "user")));
    assertThat(worker.freezeUser("anna").join()).isEqualTo(FreezeOutcome.FROZEN);

    Object connection = Harness.call(other, shell("anna", "c1", "increment", Map.of("scope", "connection"))
        .withUserFrozen());
    assertThat(number(connection)).isEqualTo(2L);
    assertThat(number(Harness.call(other, shell("anna", "c1", "get", Map.of("scope", "user")))))
        .isEqualTo(1L);
    assertThat(harness.told("w2")).startsWith("new_user:anna", "new_connection:c1",
        "user_adopted:anna");
  }

  @Test
  void aPagelessPingStampsOnlyRefreshAndCreatesNobody() {
    Harness.call(worker, TestCall.ping(null, "c9", null));
    assertThat(worker.registry().userItems().size()).isZero();

    Harness.call(worker, shell("anna", "c1", "get", Map.of("scope", "user")));
    Instant served = harness.schedule.clock().instant();
    harness.schedule.advance(Duration.ofSeconds(5));
    Harness.call(worker, TestCall.ping("anna", "c1", null));
    assertThat(worker.photo().users().get("anna").lastRefresh())
        .isEqualTo(harness.schedule.clock().instant());
    assertThat(worker.photo().users().get("anna").lastUser()).isEqualTo(served);
  }

  @Test
  void aLoginPostWithoutAPageRelabelsTheConnection() {
    Harness.call(worker, shell(null, "c1", "increment", Map.of("scope", "user")));
    Harness.call(worker, shell(null, "c1", "login", Map.of("user", "anna")));
    assertThat(worker.registry().connectionItems().get("c1").orElseThrow().user())
        .isEqualTo("anna");
    assertThat(number(Harness.call(worker, shell("anna", "c1", "get", Map.of("scope", "user")))))
        .isEqualTo(1L);
  }
}
