package dev.cryo.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A {@link Call}, a {@link Stay} and the {@link State}s they gave are valid while their handler
 * runs: kept past its return, every method throws {@link IllegalStateException} naming the route
 * (or the hook), and nothing reaches the user's state.
 */
class CallLifetimeTest {

  record Visits(long count) {}

  static final AtomicReference<Call> KEPT = new AtomicReference<>();
  static final AtomicReference<State<Visits>> KEPT_STATE = new AtomicReference<>();
  static final AtomicReference<Stay> KEPT_STAY = new AtomicReference<>();
  /** Released by the test: the handler's own thread then writes, after the handler returned. */
  static volatile CountDownLatch later = new CountDownLatch(1);
  static final CompletableFuture<Throwable> LATE_WRITE = new CompletableFuture<>();
  static final CompletableFuture<Throwable> AT_ONCE = new CompletableFuture<>();

  /** Keeps what it was given, as a developer might by mistake. */
  static final class Keeper implements CryoApplication {
    @Override
    public void routes(Routes routes) {
      routes.post("/keep/{id}", call -> {
        KEPT.set(call);
        KEPT_STATE.set(call.user(Visits.class));
        return Map.of("page", call.openPage());
      });
      routes.post("/visit", call -> call.user(Visits.class)
          .update(v -> new Visits(v.count() + 1)));
      routes.post("/at-once", call -> {
        CompletableFuture.runAsync(() -> call.user(Visits.class).set(new Visits(1000)))
            .whenComplete((done, failure) -> AT_ONCE.complete(failure));
        return null;
      });
      routes.post("/later", call -> {
        Thread.ofVirtual().start(() -> {
          try {
            later.await();
            call.user(Visits.class).set(new Visits(1000));
            LATE_WRITE.complete(null);
          } catch (Throwable e) {
            LATE_WRITE.complete(e);
          }
        });
        return null;
      });
    }

    @Override
    public void onWake(Stay stay) {
      KEPT_STAY.set(stay);
    }
  }

  @BeforeEach
  void setUp() {
    KEPT.set(null);
    KEPT_STATE.set(null);
    KEPT_STAY.set(null);
    later = new CountDownLatch(1);
  }

  @Test
  void everyMethodOfACallKeptPastItsHandlerThrowsNamingTheRoute() {
    CryoTestKit kit = CryoTestKit.of(Keeper::new);
    CryoTestKit.Connection browser = kit.connect();
    String page = CryoTestKit.json(browser.post("/keep/7")).get("page").asText();
    Call call = KEPT.get();

    List<ThrowingCallable> uses = List.of(call::request, () -> call.pathParameter("id"),
        () -> call.query("q"), call::user, call::isGuest, call::worker,
        () -> call.user(Visits.class), () -> call.connection(Visits.class),
        () -> call.page(page, Visits.class), () -> call.hasPage(page), call::openPage,
        () -> call.pushToPage(page, "hi"), () -> call.pushToConnection("hi"),
        () -> call.pushToUser("hi"), () -> call.login("anna"),
        () -> KEPT_STATE.get().get(), () -> KEPT_STATE.get().set(new Visits(99)),
        () -> KEPT_STATE.get().update(v -> new Visits(99)), () -> KEPT_STATE.get().isPresent(),
        () -> KEPT_STATE.get().clear());
    for (ThrowingCallable use : uses) {
      assertThatThrownBy(use).isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("POST /keep/{id}").hasMessageContaining("nothing was read");
    }
    assertThat(kit.pushes()).isEmpty();
    assertThat(CryoTestKit.json(browser.post("/visit")).get("count").asLong())
        .as("nothing a kept call tried reached the user's state").isEqualTo(1);
    assertThat(browser.user()).startsWith(CryoTestKit.GUEST_PREFIX);
  }

  @Test
  void aWriteFromTheHandlersOwnThreadAfterItReturnedIsRefusedNotRacedWithTheNextCall()
      throws Exception {
    CryoTestKit kit = CryoTestKit.of(Keeper::new);
    CryoTestKit.Connection browser = kit.connect();
    browser.post("/later");
    later.countDown();

    Throwable refused = LATE_WRITE.get(10, TimeUnit.SECONDS);
    assertThat(refused).isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("POST /later");
    assertThat(CryoTestKit.json(browser.post("/visit")).get("count").asLong()).isEqualTo(1);
  }

  /**
   * A write from another thread started while the handler runs is refused, whether it comes
   * before the handler returned (the kit serves the handler's thread only) or after (the call
   * ended); it never waits for the call's end, nor holds it up.
   */
  @Test
  void aWriteFromAnotherThreadStartedWhileTheHandlerRunsIsRefusedWithoutHangingTheKit()
      throws Exception {
    CryoTestKit kit = CryoTestKit.of(Keeper::new);
    CryoTestKit.Connection browser = kit.connect();
    browser.post("/at-once");

    Throwable refused = AT_ONCE.get(30, TimeUnit.SECONDS);
    assertThat(refused).isNotNull();
    Throwable cause = refused instanceof java.util.concurrent.CompletionException
        ? refused.getCause() : refused;
    assertThat(cause).isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("nothing was read");
    assertThat(CryoTestKit.json(browser.post("/visit")).get("count").asLong()).isEqualTo(1);
  }

  @Test
  void aStayKeptPastItsHookThrowsNamingTheHook() {
    CryoTestKit kit = CryoTestKit.of(Keeper::new);
    kit.connect().post("/visit");
    Stay stay = KEPT_STAY.get();

    Consumer<ThrowingCallable> refused = use -> assertThatThrownBy(use)
        .isInstanceOf(IllegalStateException.class).hasMessageContaining("onWake");
    refused.accept(stay::user);
    refused.accept(() -> stay.user(Visits.class));
  }
}
