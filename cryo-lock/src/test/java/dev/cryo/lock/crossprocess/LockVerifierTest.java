package dev.cryo.lock.crossprocess;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The verifier itself: it must see overlaps, foreign leaves, and forgive only dead holders. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class LockVerifierTest {

  private static final Duration SHORT = Duration.ofSeconds(10);

  @Test
  void takingTurnsIsNoViolation() throws Exception {
    try (LockVerifier verifier = LockVerifier.open()) {
      verifier.start();
      try (LockVerifier.Client a = LockVerifier.Client.connect(verifier.port(), 1);
          LockVerifier.Client b = LockVerifier.Client.connect(verifier.port(), 2)) {
        for (int i = 0; i < 10; i++) {
          a.enter(0);
          a.leave(0);
          b.enter(0);
          b.enter(1);
          b.leave(1);
          b.leave(0);
        }
        a.done();
        b.done();
        assertThat(verifier.awaitDone(2, SHORT)).isTrue();
      }
      verifier.assertNoViolations();
      assertThat(verifier.enters()).isEqualTo(30);
      assertThat(verifier.entersOf(2)).isEqualTo(20);
    }
  }

  @Test
  void anOverlapIsCaught() throws Exception {
    try (LockVerifier verifier = LockVerifier.open();
        LockVerifier.Client a = connectStarted(verifier, 1);
        LockVerifier.Client b = LockVerifier.Client.connect(verifier.port(), 2)) {
      a.enter(3);
      b.enter(3);
      assertThat(verifier.violations()).singleElement().asString()
          .contains("overlap on lock 3").contains("client 2").contains("client 1");
      assertThatThrownBy(verifier::assertNoViolations).isInstanceOf(AssertionError.class)
          .hasMessageContaining("1 mutual-exclusion violation");
    }
  }

  @Test
  void leavingWithoutEnteringIsCaught() throws Exception {
    try (LockVerifier verifier = LockVerifier.open();
        LockVerifier.Client a = connectStarted(verifier, 1);
        LockVerifier.Client b = LockVerifier.Client.connect(verifier.port(), 2)) {
      a.enter(0);
      b.leave(0);
      assertThat(verifier.violations()).singleElement().asString()
          .contains("client 2").contains("left lock 0 without having entered it");
    }
  }

  @Test
  void aHolderWhoseConnectionEndedIsDeadAndItsLockFree() throws Exception {
    try (LockVerifier verifier = LockVerifier.open();
        LockVerifier.Client b = connectStarted(verifier, 2)) {
      LockVerifier.Client a = LockVerifier.Client.connect(verifier.port(), 1);
      a.enter(0);
      a.close(); // as a SIGKILL would: no LEAVE
      b.enter(0); // may be processed before or after the end of a's stream: never an overlap
      b.leave(0);
      verifier.assertNoViolations();
      assertThat(verifier.diedInside()).isEqualTo(1);
    }
  }

  @Test
  void clientsWaitForTheStartingGun() throws Exception {
    try (LockVerifier verifier = LockVerifier.open()) {
      CompletableFuture<LockVerifier.Client> early = CompletableFuture.supplyAsync(() -> {
        try {
          return LockVerifier.Client.connect(verifier.port(), 7);
        } catch (java.io.IOException e) {
          throw new java.io.UncheckedIOException(e);
        }
      });
      verifier.awaitConnected(1, SHORT);
      Thread.sleep(100);
      assertThat(early).isNotDone();
      verifier.start();
      try (LockVerifier.Client client = early.get(10, TimeUnit.SECONDS)) {
        client.enter(0);
        client.leave(0);
      }
      verifier.assertNoViolations();
    }
  }

  private static LockVerifier.Client connectStarted(LockVerifier verifier, int id)
      throws Exception {
    verifier.start();
    return LockVerifier.Client.connect(verifier.port(), id);
  }
}
