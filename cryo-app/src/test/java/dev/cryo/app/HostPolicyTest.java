package dev.cryo.app;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class HostPolicyTest {

  /** What the hooks saw; onWake fails while {@link #failWakes} is positive. */
  static final List<String> HOOKS = new ArrayList<>();
  static int failWakes;

  static final class Hooked implements CryoApplication {
    @Override
    public void routes(Routes routes) {
      routes.get("/", call -> null);
    }

    @Override
    public void onWake(Stay stay) {
      HOOKS.add("wake");
      if (failWakes > 0) {
        failWakes--;
        throw new IllegalStateException("not ready");
      }
    }

    @Override
    public void onFreeze(Stay stay, FreezeReason reason) {
      HOOKS.add("freeze:" + reason);
    }
  }

  /** A user's state in a map. */
  record MapHost(Map<String, Object> state) implements StateHost {
    @Override
    public String user() {
      return "anna";
    }

    @Override
    public String worker() {
      return "w1";
    }

    @Override
    public Object read(Scope scope, String pageId, String key) {
      return state.get(key);
    }

    @Override
    public void write(Scope scope, String pageId, String key, Object plain) {
      state.put(key, plain);
    }
  }

  @Test
  void onWakeRunsOncePerStayAgainAfterAFailureAndAfterAFreeze() {
    HOOKS.clear();
    failWakes = 1;
    HostPolicy policy = HostPolicy.of(Dispatcher.of(new Hooked()));
    Object stay = new Object();
    MapHost host = new MapHost(new HashMap<>());

    Dispatcher.Served refused = policy.welcome(stay, host);
    assertThat(refused).isNotNull();
    assertThat(refused.response().status()).isEqualTo(500);
    assertThat(refused.failure()).hasMessage("not ready");
    assertThat(policy.isWelcomed(stay)).isFalse();

    assertThat(policy.welcome(stay, host)).isNull();
    assertThat(policy.welcome(stay, host)).isNull();
    assertThat(HOOKS).containsExactly("wake", "wake");

    assertThat(policy.freeze(stay, host, FreezeReason.TRANSFER)).isNull();
    assertThat(policy.isWelcomed(stay)).as("a freeze ends the welcome").isFalse();
    assertThat(policy.welcome(stay, host)).isNull();
    assertThat(HOOKS).containsExactly("wake", "wake", "freeze:TRANSFER", "wake");
    assertThat(policy.welcome(new Object(), host)).as("another stay is welcomed anew").isNull();
    assertThat(HOOKS).hasSize(5);
  }

  @Test
  void theReplyToUnreadableStateSaysOnceThatItIsKeptAndNamesNothingOfTheApplication() {
    Response reply = HostPolicy.unreadableParcel("written by state version 3");

    assertThat(reply.status()).isEqualTo(503);
    assertThat(reply.header("Cryo-Reason")).isEqualTo("unreadable_parcel");
    assertThat(reply.header("Retry-After")).isEqualTo("60");
    assertThat(CryoTestKit.json(reply).get("error").asText()).isEqualTo("unreadable_parcel");
    assertThat(reply.header("Content-Type")).startsWith("application/json");
    String message = CryoTestKit.json(reply).get("message").asText();
    assertThat(message).contains("kept as it was", "nothing was lost", "try again")
        .doesNotContain("state version 3"); // the log's, not the client's
    assertThat(message.split("try again", -1)).as("the advice, once").hasSize(2);
  }
}
