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
 * (the credential before it is refused {@code stale_credential}), through a freeze and a wake on
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

    assertThatThrownBy(() -> serve(w1, count, Grant.ALONE, null, "s2"))
        .as("the cookie before the login")
        .isInstanceOfSatisfying(WorkerException.class,
            e -> assertThat(e.reason()).isEqualTo(RefusalReason.STALE_CREDENTIAL));
    assertThatThrownBy(() -> serve(w1, count, Grant.ALONE, "forged", "s2"))
        .isInstanceOf(WorkerException.class);
    assertThat(json(serve(w1, count, Grant.ALONE, "s1", "s2")).get("n").asLong()).isEqualTo(3);

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
