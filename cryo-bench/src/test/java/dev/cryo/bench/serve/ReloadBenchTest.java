package dev.cryo.bench.serve;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The reload benchmark run small, so that it cannot rot: 200 users over 2 workers, 6 virtual
 * users, a reload to the second version; no request fails, no state breaks, and it prints its
 * figures. Its speed is not judged here (that is the benchmark's, on a quiet machine).
 */
@Timeout(600)
class ReloadBenchTest {

  /** The users of one worker's line, {@code NAME N users, heap …}. */
  private static int users(String worker) {
    String[] words = worker.split(" ");
    return Integer.parseInt(words[1]);
  }

  @Test
  void aSmallReloadBenchFailsNoRequestAndPrintsItsFigures() throws Exception {
    ByteArrayOutputStream printed = new ByteArrayOutputStream();
    ReloadBench.Figures figures;
    try (PrintStream out = new PrintStream(printed, true, StandardCharsets.UTF_8)) {
      figures = ReloadBench.run(200, 6, Duration.ofSeconds(1), out);
    }
    String text = printed.toString(StandardCharsets.UTF_8);
    System.out.print(text);

    assertThat(figures.reload().done()).as(text).isTrue();
    assertThat(figures.reload().replaced()).as(text).hasSize(2);
    assertThat(figures.reload().lost()).as(text).isEmpty();
    assertThat(figures.placed()).as("two workers hold the users: %s", text).hasSize(2);
    assertThat(figures.placed().stream().mapToInt(ReloadBenchTest::users).sum()).as(text)
        .isEqualTo(200);
    assertThat(figures.placed()).as(text)
        .allMatch(worker -> users(worker) <= ReloadBench.cap(200));
    LoadGenerator.Result before = figures.load().before();
    LoadGenerator.Result during = figures.load().during();
    assertThat(before.errors() + during.errors()).as(text).isZero();
    assertThat(before.stateBreaks() + during.stateBreaks()).as(text).isZero();
    assertThat(before.requests()).as(text).isPositive();
    assertThat(during.requests()).as(text).isPositive();
    assertThat(figures.held().notReleased()).as(text).isZero();
    assertThat(text).contains("before the reload (", "during the reload (", "p50", "p99", "max",
        "0 failed, 0 state breaks", "no request failed, no state broke", "reload: ",
        "held requests during the reload", "the longest", "quit_begun");
  }
}
