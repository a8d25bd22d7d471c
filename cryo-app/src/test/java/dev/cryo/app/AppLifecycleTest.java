package dev.cryo.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/**
 * {@link CryoApplication#onStart} and {@link CryoApplication#onStop} in the test kit: once per
 * instance (per worker the runtime would run), onStart before the instance's first call with the
 * kit's configuration, onStop at {@link CryoTestKit#close}; an onStart that throws fails the kit.
 */
class AppLifecycleTest {

  static final List<String> EVENTS = new CopyOnWriteArrayList<>();

  record Seen(long calls) {}

  /** Reads its greeting in onStart, and tells every hook. */
  public static final class Greeter implements CryoApplication {
    private volatile String greeting;

    @Override
    public void routes(Routes routes) {
      routes.get("/hello", call -> {
        EVENTS.add("call " + call.worker());
        call.user(Seen.class).update(s -> new Seen(s.calls() + 1));
        return Map.of("greeting", greeting, "worker", call.worker());
      });
    }

    @Override
    public void onStart(AppContext context) {
      EVENTS.add("start " + context.worker() + " " + context.config());
      greeting = context.require("greeting");
    }

    @Override
    public void onStop() {
      EVENTS.add("stop " + greeting);
    }
  }

  @Test
  void onStartRunsOncePerInstanceBeforeItsFirstCallAndOnStopAtClose() {
    EVENTS.clear();
    CryoTestKit kit = CryoTestKit.of(Greeter::new, Map.of("greeting", "hello"))
        .freezeBetweenCalls(true);
    CryoTestKit.Connection browser = kit.connect();

    Response first = browser.get("/hello");
    Response second = browser.get("/hello"); // woken in a new instance: started first

    assertThat(CryoTestKit.json(first).get("greeting").asText()).isEqualTo("hello");
    assertThat(CryoTestKit.json(second).get("greeting").asText()).isEqualTo("hello");
    assertThat(EVENTS).containsExactly("start kit-1 {greeting=hello}", "call kit-1",
        "start kit-2 {greeting=hello}", "call kit-2");
    kit.close();
    assertThat(EVENTS).endsWith("stop hello", "stop hello");
  }

  @Test
  void anOnStartThatThrowsFailsTheKitWithItsCause() {
    assertThatThrownBy(() -> CryoTestKit.of(Greeter::new, Map.of()))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("failed to start in kit-1")
        .hasMessageContaining("no 'greeting'")
        .hasCauseInstanceOf(NoSuchElementException.class);
  }

  @Test
  void aContextIsImmutableAndSaysWhatIsMissing() {
    AppContext context = AppContext.of("w1", Map.of("b", "2", "a", "1"));
    assertThat(context.config()).containsExactly(Map.entry("a", "1"), Map.entry("b", "2"));
    assertThat(context.config("a")).hasValue("1");
    assertThat(context.config("c")).isEmpty();
    assertThatThrownBy(() -> context.config().put("c", "3"))
        .isInstanceOf(UnsupportedOperationException.class);
    assertThatThrownBy(() -> context.require("c")).hasMessageContaining("--app-config");
  }
}
