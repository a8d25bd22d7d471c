package dev.cryo.commander;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.cryo.commander.Lifecycle.Change;
import dev.cryo.commander.Lifecycle.Phase;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The run's phase: one change of workers at a time, each refused with a sentence naming what runs;
 * a drain asked during a change stops admitting, says it follows, waits for the change and then
 * drains; a stop ends every phase.
 */
@Timeout(30)
class LifecycleTest {

  private static Lifecycle serving() {
    Lifecycle lifecycle = new Lifecycle();
    lifecycle.served();
    return lifecycle;
  }

  @Test
  void noChangeBeginsBeforeTheRunServesNorBesideAnother() {
    Lifecycle lifecycle = new Lifecycle();
    assertThat(lifecycle.beginChange(Change.RELOAD)).hasValueSatisfying(refusal ->
        assertThat(refusal).startsWith("The run is starting: a reload does not begin"));
    assertThat(lifecycle.admits()).isFalse();

    lifecycle.served();
    assertThat(lifecycle.beginChange(Change.RELOAD)).isEmpty();
    assertThat(lifecycle.phase()).isEqualTo(Phase.RELOADING);
    assertThat(lifecycle.admits()).isTrue();
    assertThat(lifecycle.beginChange(Change.QUIT)).hasValueSatisfying(refusal ->
        assertThat(refusal).isEqualTo("A reload is running: the quit of a worker does not begin;"
            + " nothing was changed: ask again once it ended"));

    lifecycle.endChange(Change.RELOAD);
    assertThat(lifecycle.phase()).isEqualTo(Phase.SERVING);
    assertThat(lifecycle.beginChange(Change.SHRINK)).isEmpty();
    assertThat(lifecycle.phase()).isEqualTo(Phase.SHRINKING);
  }

  @Test
  void aDrainDuringAReloadSaysItFollowsWaitsForItAndThenDrains() throws Exception {
    Lifecycle lifecycle = serving();
    assertThat(lifecycle.beginChange(Change.RELOAD)).isEmpty();
    List<String> said = new CopyOnWriteArrayList<>();
    CountDownLatch asked = new CountDownLatch(1);
    CompletableFuture<Void> drain = CompletableFuture.runAsync(() -> {
      try {
        lifecycle.beginDrain(line -> {
          said.add(line);
          asked.countDown();
        });
      } catch (InterruptedException e) {
        throw new IllegalStateException(e);
      }
    }, command -> Thread.ofVirtual().start(command));
    assertThat(asked.await(10, TimeUnit.SECONDS)).isTrue();

    assertThat(said).containsExactly("cryo: a reload is running: the drain will follow it");
    assertThat(lifecycle.admits()).as("nothing new is admitted while the drain waits").isFalse();
    assertThat(lifecycle.drainWaiting()).as("the reload stops before its next worker").isTrue();
    assertThat(lifecycle.beginChange(Change.QUIT)).hasValueSatisfying(refusal ->
        assertThat(refusal).startsWith("The run drains: the quit of a worker does not begin"));
    assertThat(drain).isNotDone();
    assertThat(lifecycle.phase()).isEqualTo(Phase.RELOADING);

    lifecycle.endChange(Change.RELOAD);
    drain.get(10, TimeUnit.SECONDS);
    assertThat(lifecycle.phase()).isEqualTo(Phase.DRAINING);
    assertThatThrownBy(() -> lifecycle.beginDrain(line -> { }))
        .isInstanceOf(IllegalStateException.class).hasMessageContaining("draining already");
  }

  @Test
  void aStopEndsAnyPhaseOnceAndAWaitingDrainWithIt() throws Exception {
    Lifecycle lifecycle = serving();
    assertThat(lifecycle.beginChange(Change.REPLACE)).isEmpty();
    CountDownLatch asked = new CountDownLatch(1);
    CompletableFuture<Void> drain = CompletableFuture.runAsync(() -> {
      try {
        lifecycle.beginDrain(line -> asked.countDown());
      } catch (InterruptedException e) {
        throw new IllegalStateException(e);
      }
    }, command -> Thread.ofVirtual().start(command));
    assertThat(asked.await(10, TimeUnit.SECONDS)).isTrue();

    assertThat(lifecycle.beginStop()).contains(Phase.RELOADING);
    assertThat(lifecycle.beginStop()).isEmpty();
    assertThatThrownBy(() -> drain.get(10, TimeUnit.SECONDS))
        .hasCauseInstanceOf(IllegalStateException.class)
        .hasMessageContaining("stopped at once while the drain waited");
    lifecycle.closed();
    assertThat(lifecycle.stopped()).isTrue();
    assertThat(lifecycle.beginChange(Change.RELOAD)).hasValueSatisfying(refusal ->
        assertThat(refusal).isEqualTo("The run is closed: a reload does not begin; nothing was"
            + " changed"));
  }

  @Test
  void aRefusedDrainHandsTheRunBackToServingAndANewDrainMayBegin() throws Exception {
    Lifecycle lifecycle = serving();
    lifecycle.beginDrain(line -> { });
    assertThat(lifecycle.admits()).isFalse();
    assertThat(lifecycle.beginChange(Change.RELOAD)).isPresent();

    assertThat(lifecycle.drainRefused()).isTrue();

    assertThat(lifecycle.phase()).isEqualTo(Lifecycle.Phase.SERVING);
    assertThat(lifecycle.admits()).isTrue();
    assertThat(lifecycle.beginChange(Change.RELOAD)).isEmpty();
    lifecycle.endChange(Change.RELOAD);
    lifecycle.beginDrain(line -> { });
    assertThat(lifecycle.phase()).isEqualTo(Lifecycle.Phase.DRAINING);
    assertThat(lifecycle.beginStop()).contains(Lifecycle.Phase.DRAINING);
    assertThat(lifecycle.drainRefused()).as("a stop now owns the phase").isFalse();
    assertThat(lifecycle.phase()).isEqualTo(Lifecycle.Phase.STOPPING);
  }
}
