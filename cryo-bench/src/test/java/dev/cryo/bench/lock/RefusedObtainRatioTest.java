package dev.cryo.bench.lock;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The refused-try harness runs briefly, so that it cannot rot: every try of each lock is refused by
 * the holder in the child JVM (the harness stops otherwise), and it prints each figure beside its
 * anchors. No timing is asserted.
 */
class RefusedObtainRatioTest {

  @Test
  @Timeout(value = 3, unit = TimeUnit.MINUTES)
  void everyTryIsRefusedAndEachFigureIsPrintedBesideItsAnchors() throws Exception {
    PrintStream saved = System.out;
    ByteArrayOutputStream printed = new ByteArrayOutputStream();
    System.setOut(new PrintStream(printed, true, StandardCharsets.UTF_8));
    try {
      RefusedObtainRatio.main(new String[] {"4", "5"});
    } finally {
      System.setOut(saved);
    }
    String output = printed.toString(StandardCharsets.UTF_8);
    System.out.print(output);
    assertThat(output).contains("cryo ", "luceneNativeFS", "luceneSimpleFS",
        "cryo / luceneNativeFS", "cryo / luceneSimpleFS");
  }
}
