package dev.cryo.chaos.check;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cryo.chaos.check.SimulatedRun.Call;
import dev.cryo.chaos.history.Function;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The checker stays linear: a history of 300,000 operations, half of them on one identity shared
 * by a hundred virtual users and all of them concurrent with others, is checked within a bound a
 * quadratic rule could not meet (about 2 s here on a quiet machine; the bound is generous, for a
 * loaded one: this is no benchmark).
 */
class CheckerScaleTest {

  @Test
  @Timeout(value = 120, unit = TimeUnit.SECONDS)
  void aLargeHistoryIsCheckedInLinearTime() {
    SimulatedRun run = new SimulatedRun();
    int vusers = 200;
    List<String> pages = new ArrayList<>();
    for (int v = 0; v < vusers; v++) {
      pages.add(run.openPage("v" + v, "p" + v));
      if (v % 2 == 0) {
        run.run("v" + v, "p" + v, Function.LOGIN, pages.get(v), "anna");
      }
    }
    Call[] inFlight = new Call[vusers];
    for (int round = 0; round < 1500; round++) {
      for (int v = 0; v < vusers; v++) {
        Function function = (round + v) % 3 == 0 ? Function.READ : Function.INC;
        inFlight[v] = run.invoke("v" + v, "p" + v, function, pages.get(v), null);
        run.advance(0.001);
      }
      for (int v = vusers - 1; v >= 0; v--) {
        run.apply(inFlight[v]);
        run.advance(0.001);
      }
      for (int v = 0; v < vusers; v++) {
        run.complete(inFlight[v]);
      }
    }
    Verdict verdict = run.check();
    assertThat(verdict.operationCount()).isGreaterThan(300_000);
    assertThat(verdict.valid()).as(verdict.text()).isTrue();
  }
}
