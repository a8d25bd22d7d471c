package dev.cryo.wire.protocol;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

class RefusalReasonTest {

  /**
   * The codes the worker sent before the vocabulary was one enum, and whether the commander routed
   * each again within the hold: they stay the wire format.
   */
  private static final Map<String, Boolean> SPOKEN_BEFORE = Map.ofEntries(
      Map.entry("user_left_frozen", true), Map.entry("user_left_moving", true),
      Map.entry("no_parcel", true), Map.entry("unreadable_parcel", false),
      Map.entry("worker_finished", true), Map.entry("wake_failed", true),
      Map.entry("semaphore_timeout", true), Map.entry("locate_failed", true),
      Map.entry("row_busy", true), Map.entry("in_transition", true),
      Map.entry("stale_grant", true), Map.entry("user_mismatch", true),
      Map.entry("bad_request", false), Map.entry("internal", false));

  @Test
  void theCodesSpokenBeforeReadBackWithTheSameRetryDecision() {
    Map<String, Boolean> read = new TreeMap<>();
    SPOKEN_BEFORE.forEach((code, retried) -> {
      RefusalReason reason = RefusalReason.of(code);
      assertThat(reason.code()).as("spelling of " + code).isEqualTo(code);
      read.put(code, reason.isRetryable());
    });
    assertThat(read).isEqualTo(new TreeMap<>(SPOKEN_BEFORE));
  }

  @Test
  void everyReasonRoundTripsThroughItsCode() {
    for (RefusalReason reason : RefusalReason.values()) {
      assertThat(RefusalReason.of(reason.code())).isSameAs(reason);
      assertThat(reason.code()).matches("[a-z_]+");
    }
  }

  @Test
  void anUnknownCodeIsInternalAndADefect() {
    assertThat(RefusalReason.of("spoken_by_a_newer_worker")).isSameAs(RefusalReason.INTERNAL);
    assertThat(RefusalReason.of(null)).isSameAs(RefusalReason.INTERNAL);
    assertThat(RefusalReason.INTERNAL.isRetryable()).isFalse();
    assertThat(RefusalReason.INTERNAL.status()).isEqualTo(500);
  }

  @Test
  void whatIsRoutedAgainBecomesA503WhenTheHoldRunsOut() {
    assertThat(Arrays.stream(RefusalReason.values()).filter(RefusalReason::isRetryable))
        .allSatisfy(reason -> assertThat(reason.status()).as(reason.code()).isEqualTo(503));
    assertThat(RefusalReason.UNREADABLE_PARCEL.isRetryable()).isFalse();
    assertThat(RefusalReason.UNREADABLE_PARCEL.status()).isEqualTo(503);
    assertThat(RefusalReason.APPLICATION_FAILED.status()).isEqualTo(500);
  }
}
