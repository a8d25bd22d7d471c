package dev.cryo.worker;

import static dev.cryo.worker.AppHostTest.http;
import static dev.cryo.worker.AppHostTest.json;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.cryo.app.CryoApplication;
import dev.cryo.app.Response;
import dev.cryo.app.Routes;
import dev.cryo.app.StateKey;
import dev.cryo.wire.protocol.Grant;
import dev.cryo.wire.protocol.HttpCall;
import dev.cryo.wire.protocol.RefusalReason;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The connection's credential on the worker: a login in a call carrying a successor makes it the
 * connection's credential and says so in the reply; from then on only a call proving it is served
 * (the credential before it is refused {@code cookie_rotated} within the grace, so the browser
 * keeps the new cookie, {@code stale_credential} after it), through a freeze and a wake on
 * another worker; a logout retires it and drops the connection once the call ends, the user
 * staying; a forget drops the user.
 */
class CookieRotationTest {

  /** Counts per user; logs in, out, and forgets. */
  public static final class Door implements CryoApplication {
    @StateKey("Count")
    public record Count(long n) {}

    public record Name(String user) {}

    @Override
    public void routes(Routes routes) {
      routes.post("/count", call -> call.user(Count.class).update(c -> new Count(c.n() + 1)));
      routes.post("/login", Name.class, (call, name) -> Map.of("result",
          call.login(name.user()).name()));
      routes.post("/login-then-fail", Name.class, (call, name) -> {
        call.login(name.user());
        throw new IllegalStateException("failed after the login");
      });
      routes.post("/logout", call -> {
        call.logout();
        return Map.of("user", call.user());
      });
      routes.post("/forget", call -> {
        call.forget();
        return Map.of("user", call.user());
      });
    }
  }

  @TempDir Path temp;
  Harness harness;

  @BeforeEach
  void setUp() throws Exception {
    harness = new Harness(temp);
  }

  @AfterEach
  void tearDown() {
    harness.close();
  }

  /** {@code call} proving {@code credential}, rotating to {@code successor}, under {@code grant}. */
  private static HttpCall proving(HttpCall call, Grant grant, String credential,
      String successor) {
    return new HttpCall(call.user(), call.connection(), grant, call.method(), call.path(),
        call.query(), call.headers(), call.body(), call.move(), call.socketless(), credential,
        successor);
  }

  private static Response serve(Worker worker, HttpCall call, Grant grant, String credential,
      String successor) {
    return AppHostTest.serve(worker, proving(call, grant, credential, successor));
  }

  @Test
  void aLoginRotatesTheCredentialAndOnlyTheNewOneIsServedWhereverTheConnectionGoes() {
    Worker w1 = harness.worker("w1", Door.class);
    HttpCall count = http(null, "c1", "POST", "/count", null);
    assertThat(json(serve(w1, count, Grant.ALONE, null, "s0")).get("n").asLong()).isEqualTo(1);
    assertThat(serve(w1, count, Grant.ALONE, null, "s0").header(HttpCall.ROTATED_HEADER))
        .as("a call without a login rotates nothing").isNull();

    Response login = serve(w1, http(null, "c1", "POST", "/login", Map.of("user", "anna")),
        Grant.ALONE, null, "s1");
    assertThat(json(login).get("result").asText()).isEqualTo("HERE");
    assertThat(login.header(HttpCall.ROTATED_HEADER)).isEqualTo(HttpCall.ROTATED_LOGIN);
    Response again = serve(w1, http(null, "c1", "POST", "/login", Map.of("user", "anna")),
        Grant.ALONE, null, "s1");
    assertThat(again.header(HttpCall.ROTATED_HEADER))
        .as("the same request sent again (its reply was lost): served, its reply gives the cookie")
        .isEqualTo(HttpCall.ROTATED_LOGIN);

    assertThatThrownBy(() -> serve(w1, count, Grant.ALONE, null, "s2"))
        .as("the cookie before the login, within the grace: refused, no new guest")
        .isInstanceOfSatisfying(WorkerException.class,
            e -> assertThat(e.reason()).isEqualTo(RefusalReason.COOKIE_ROTATED));
    assertThatThrownBy(() -> serve(w1, count, Grant.ALONE, "forged", "s2"))
        .isInstanceOf(WorkerException.class);
    assertThat(json(serve(w1, count, Grant.ALONE, "s1", "s2")).get("n").asLong()).isEqualTo(3);
    harness.schedule.skip(ConnectionCredentials.RETIRED_COOKIE_GRACE.plusSeconds(1));
    assertThatThrownBy(() -> serve(w1, count, Grant.ALONE, null, "s2"))
        .as("the cookie before the login, after the grace: a connection the run does not know")
        .isInstanceOfSatisfying(WorkerException.class,
            e -> assertThat(e.reason()).isEqualTo(RefusalReason.STALE_CREDENTIAL));

    w1.freezeUser("anna").join();
    Worker w2 = harness.worker("w2", Door.class);
    HttpCall annas = http("anna", "c1", "POST", "/count", null);
    assertThatThrownBy(() -> serve(w2, annas, Grant.wake(0, 0), null, "s3"))
        .as("after a freeze and a wake elsewhere")
        .isInstanceOfSatisfying(WorkerException.class,
            e -> assertThat(e.reason()).isEqualTo(RefusalReason.STALE_CREDENTIAL));
    assertThat(json(serve(w2, annas, Grant.wake(0, 0), "s1", "s3")).get("n").asLong())
        .isEqualTo(4);

    Response logout = serve(w2, http("anna", "c1", "POST", "/logout", null), Grant.ALONE, "s1",
        "s4");
    assertThat(json(logout).get("user").asText()).isEqualTo("anna");
    assertThat(logout.header(HttpCall.ROTATED_HEADER)).isEqualTo(HttpCall.ROTATED_ENDED);
    assertThat(w2.registry().connectionItems().contains("c1")).as("the connection ended")
        .isFalse();
    assertThat(w2.registry().userItems().contains("anna")).as("the user stays").isTrue();
  }

  /**
   * A handler that fails after its login: the login stands, so the failed reply still gives the
   * new cookie (the one before is refused from then on) — a client must never be left holding a
   * cookie its connection no longer accepts because the reply that rotated it was an error.
   */
  @Test
  void aHandlerThatFailsAfterItsLoginStillGivesTheNewCookie() {
    Worker w1 = harness.worker("w1", Door.class);
    HttpCall count = http(null, "c1", "POST", "/count", null);
    serve(w1, count, Grant.ALONE, null, "s0");
    Response failed = serve(w1, http(null, "c1", "POST", "/login-then-fail",
        Map.of("user", "anna")), Grant.ALONE, null, "s1");
    assertThat(failed.status()).isEqualTo(500);
    assertThat(failed.header(HttpCall.ROTATED_HEADER)).as("the failed reply gives the cookie")
        .isEqualTo(HttpCall.ROTATED_LOGIN);
    assertThat(json(serve(w1, count, Grant.ALONE, "s1", "s2")).get("n").asLong()).isEqualTo(2);
    assertThatThrownBy(() -> serve(w1, count, Grant.ALONE, null, "s2"))
        .isInstanceOfSatisfying(WorkerException.class,
            e -> assertThat(e.reason()).isEqualTo(RefusalReason.COOKIE_ROTATED));
  }

  @Test
  void aForgetDropsTheUserWithEveryConnection() {
    Worker w1 = harness.worker("w1", Door.class);
    serve(w1, http(null, "c1", "POST", "/login", Map.of("user", "anna")), Grant.ALONE, null,
        "s1");
    serve(w1, http(null, "c2", "POST", "/login", Map.of("user", "anna")), Grant.ALONE, null,
        "t1");
    serve(w1, http(null, "c1", "POST", "/count", null), Grant.ALONE, "s1", "s2");
    Response forget = serve(w1, http(null, "c2", "POST", "/forget", null), Grant.ALONE, "t1",
        "t2");
    assertThat(forget.header(HttpCall.ROTATED_HEADER)).isEqualTo(HttpCall.ROTATED_ENDED);
    assertThat(w1.registry().userItems().contains("anna")).isFalse();
    assertThat(w1.registry().connectionItems().contains("c1")).isFalse();
    assertThat(w1.registry().connectionItems().contains("c2")).isFalse();
  }
}
