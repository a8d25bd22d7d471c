package dev.cryo.chaos.check;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cryo.chaos.history.Entry;
import dev.cryo.chaos.history.Function;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.statistics.Statistics;
import net.jqwik.api.statistics.StatisticsReport;

/**
 * Properties of the checker on random correct runs ({@link RandomRun}): they always pass, and a
 * decrease planted into an acked increment — down to no more than a value of its register seen in
 * its epoch before it was invoked, or to another increment's value in its epoch — is always
 * reported as two live copies or a lost write. The epochs of the planting are computed here
 * straight from their definition, pair by pair, as an oracle for the checker's sweep.
 */
class CheckerPropertiesTest {

  @Property(tries = 150)
  void correctRunsPass(@ForAll long seed, @ForAll @IntRange(min = 1, max = 6) int vusers,
      @ForAll @IntRange(min = 20, max = 400) int steps) {
    SimulatedRun run = RandomRun.generate(seed, vusers, steps);
    Verdict verdict = run.check();
    assertThat(verdict.valid()).as(verdict.text()).isTrue();
  }

  @Property(tries = 150)
  @StatisticsReport(StatisticsReport.StatisticsReportMode.OFF)
  void theGeneratorCoversWhatTheCheckerMustAccept(@ForAll long seed,
      @ForAll @IntRange(min = 3, max = 6) int vusers,
      @ForAll @IntRange(min = 200, max = 400) int steps) {
    SimulatedRun run = RandomRun.generate(seed, vusers, steps);
    Verdict verdict = run.check();
    long unknownPages = run.history().stream()
        .filter(entry -> "unknown_page".equals(entry.error())).count();
    long failures = run.history().stream()
        .filter(entry -> Entry.FAIL.equals(entry.type()) || Entry.INFO.equals(entry.type()))
        .count();
    Statistics.label("failures").collect(failures > 0);
    Statistics.label("losses").collect(verdict.documentedLosses() > 0);
    Statistics.label("drops").collect(verdict.explainedDrops() > 0);
    Statistics.label("unknown pages").collect(unknownPages > 0);
    Statistics.label("failures").coverage(coverage -> coverage.check(true)
        .percentage(p -> p > 50));
    Statistics.label("losses").coverage(coverage -> coverage.check(true)
        .percentage(p -> p > 20));
    Statistics.label("drops").coverage(coverage -> coverage.check(true)
        .percentage(p -> p > 20));
    Statistics.label("unknown pages").coverage(coverage -> coverage.check(true)
        .percentage(p -> p > 5));
  }

  @Property(tries = 100)
  void aDecreasePlantedIntoAnIncrementIsFound(@ForAll long seed,
      @ForAll @IntRange(min = 1, max = 6) int vusers,
      @ForAll @IntRange(min = 40, max = 400) int steps) {
    SimulatedRun run = RandomRun.generate(seed, vusers, steps);
    List<Entry> history = run.history();
    Random random = new Random(seed ^ 0x5DEECE66DL);
    List<Pairing> increments = new ArrayList<>();
    List<Pairing> observations = new ArrayList<>();
    pair(history, increments, observations);
    java.util.Map<String, long[]> ends = ends(run);
    increments.removeIf(increment -> !noEnd(ends.getOrDefault(increment.user(), new long[0]),
        increment, increment)); // an increment whose own span holds an end is compared with nothing
    if (increments.isEmpty()) {
      return;
    }
    Pairing target = increments.get(random.nextInt(increments.size()));
    long[] targetEnds = ends.getOrDefault(target.user(), new long[0]);
    Set<Long> lower = new TreeSet<>();
    long seen = 0; // a counter starts at zero or more: an increment returns at least one
    for (Pairing other : observations) {
      if (other != target && other.user().equals(target.user())
          && other.completeT() < target.invokeT() && noEnd(targetEnds, other, target)) {
        seen = Math.max(seen, other.value());
      }
    }
    for (long value = 0; value <= seen; value++) {
      lower.add(value);
    }
    for (Pairing other : increments) {
      if (other != target && other.user().equals(target.user())
          && noEnd(targetEnds, other, target)
          && other.value() < target.value()) {
        lower.add(other.value());
      }
    }
    long planted = new ArrayList<>(lower).get(random.nextInt(lower.size()));
    assertThat(planted).isLessThan(target.value());
    Verdict verdict = Checker.check(Entries.withCompletion(history, target.op(), "counter",
        planted), run.eventLog(), Checker.DEFAULT_GRACE);
    assertThat(verdict.kinds()).as("%s: %d planted for %d%n%s", target, planted,
        target.value(), verdict.text())
        .containsAnyOf(AnomalyKind.TWO_LIVE_COPIES, AnomalyKind.LOST_WRITE);
  }

  /** An acked operation reporting a user's counter. */
  private record Pairing(long op, String user, long value, long invokeT, long completeT,
      long invokeWall, long completeWall) {}

  private static void pair(List<Entry> history, List<Pairing> increments,
      List<Pairing> observations) {
    java.util.Map<Long, Entry> invokes = new java.util.HashMap<>();
    for (Entry entry : history) {
      if (Entry.INVOKE.equals(entry.type())) {
        invokes.put(entry.op(), entry);
      } else if (Entry.OK.equals(entry.type()) && entry.counter() != null) {
        Entry invoke = invokes.get(entry.op());
        Pairing pairing = new Pairing(entry.op(), entry.user(), entry.counter(), invoke.t(),
            entry.t(), invoke.wall(), entry.wall());
        observations.add(pairing);
        if (Function.INC.wireName().equals(entry.f())) {
          increments.add(pairing);
        }
      }
    }
  }

  /**
   * The ends of the users' epochs: from the events, losses and drops (all explained here); for a
   * guest, the invocation and completion of every login (not refused) to another name by a
   * virtual user who was at some time that guest.
   */
  private static java.util.Map<String, long[]> ends(SimulatedRun run) {
    java.util.Map<String, List<Long>> ends = new java.util.HashMap<>();
    for (Event event : run.eventLog().events()) {
      List<String> users = new ArrayList<>();
      if (event.names("lost") != null) {
        users.addAll(event.names("lost"));
      }
      if ("drop_user".equals(event.text("kind"))) {
        users.add(event.text("user"));
      }
      users.forEach(user -> ends.computeIfAbsent(user, u -> new ArrayList<>())
          .add(event.atMillis()));
    }
    java.util.Map<String, Set<String>> identities = new java.util.HashMap<>();
    java.util.Map<Long, Entry> invokes = new java.util.HashMap<>();
    java.util.Map<Long, Entry> completions = new java.util.HashMap<>();
    for (Entry entry : run.history()) {
      if (entry.vuser() != null) {
        Set<String> known = identities.computeIfAbsent(entry.vuser(), v -> new TreeSet<>());
        if (entry.user() != null) {
          known.add(entry.user());
        }
        if (Function.LOGIN.wireName().equals(entry.f()) && entry.arg() != null) {
          known.add(entry.arg());
        }
      }
      if (Entry.INVOKE.equals(entry.type())) {
        invokes.put(entry.op(), entry);
      } else if (entry.isCompletion()) {
        completions.put(entry.op(), entry);
      }
    }
    for (Entry invoke : invokes.values()) {
      Entry completion = completions.get(invoke.op());
      if (!Function.LOGIN.wireName().equals(invoke.f())
          || (completion != null && Entry.FAIL.equals(completion.type()))) {
        continue;
      }
      for (String guest : identities.get(invoke.vuser())) {
        if (guest.startsWith("guest_") && !guest.equals(invoke.arg())) {
          List<Long> list = ends.computeIfAbsent(guest, g -> new ArrayList<>());
          list.add(invoke.wall());
          if (completion != null) {
            list.add(completion.wall());
          }
        }
      }
    }
    java.util.Map<String, long[]> sorted = new java.util.HashMap<>();
    ends.forEach((user, list) ->
        sorted.put(user, list.stream().mapToLong(Long::longValue).sorted().toArray()));
    return sorted;
  }

  /** The definition: no end within the two operations' span, widened by the slack. */
  private static boolean noEnd(long[] ends, Pairing a, Pairing b) {
    long from = Math.min(a.invokeWall(), b.invokeWall()) - Epochs.SLACK_MILLIS;
    long to = Math.max(a.completeWall(), b.completeWall()) + Epochs.SLACK_MILLIS;
    for (long end : ends) {
      if (end >= from && end <= to) {
        return false;
      }
    }
    return true;
  }
}
