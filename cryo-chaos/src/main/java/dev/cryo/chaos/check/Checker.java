package dev.cryo.chaos.check;

import dev.cryo.chaos.check.CounterCheck.Reading;
import dev.cryo.chaos.history.Entry;
import dev.cryo.chaos.history.Function;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;

/**
 * Checks a run: its history (the lines of {@link dev.cryo.chaos.history.History}) against the
 * rules of the demo's registers, with what the run's event logs document. The rules, each in its
 * class: {@link CounterCheck} (a counter per user and per page: lost writes, two live copies,
 * time travel), {@link PageCheck} (notes, unknown pages), {@link VanishCheck} (forgotten
 * identities), {@link FailureCheck} (failures outside the fault windows), {@link PlacementCheck}
 * (a placement served by two workers). Stateless; safe from any thread.
 */
public final class Checker {

  /** How long after a fault's end failures are still explained, unless told otherwise. */
  public static final Duration DEFAULT_GRACE = Duration.ofSeconds(10);

  private Checker() {}

  /**
   * Checks a history with the run's event logs.
   *
   * @param history the history's lines, as {@link dev.cryo.chaos.history.History#read} gives them
   * @param eventLogs the run's {@code events.jsonl} files, in the order of the serves that wrote
   *     them (none: nothing is documented)
   * @param grace how long after a fault's end a failure is still explained
   * @throws IOException when an event log cannot be read or holds a line that does not parse
   *     before its end
   * @throws IllegalArgumentException when the history does not pair up (see {@link #check(List,
   *     EventLog, Duration)})
   */
  public static Verdict check(List<Entry> history, List<Path> eventLogs, Duration grace)
      throws IOException {
    return check(history, EventLog.read(eventLogs), grace);
  }

  /**
   * Checks a history with events already read.
   *
   * @param history the history's lines
   * @param events the run's events (only those naming lost users, expiries and user drops matter)
   * @param grace how long after a fault's end a failure is still explained (not negative)
   * @throws IllegalArgumentException when the history is not one: an operation invoked twice, a
   *     completion with no invocation pending, a line without {@code op}; or a negative grace
   */
  public static Verdict check(List<Entry> history, EventLog events, Duration grace) {
    Objects.requireNonNull(history, "history");
    Objects.requireNonNull(events, "events");
    Objects.requireNonNull(grace, "grace");
    if (grace.isNegative()) {
      throw new IllegalArgumentException("the grace after a fault is negative: " + grace);
    }
    Operations operations = Operations.of(history);
    Losses losses = Losses.of(events, operations);
    Registers registers = Registers.of(operations);
    Findings findings = new Findings();
    registers.userCounters.forEach((user, readings) ->
        CounterCheck.check(user, "counter", readings, losses.endsOf(user), findings));
    Set<Long> explained = new HashSet<>();
    long[] unattributed = losses.unattributed(operations);
    long[] unattributedHard = losses.unattributedHard(operations);
    for (String page : registers.pages) {
      String register = "page:" + page;
      long[] ends = Epochs.merge(List.of(losses.lossesOfAny(registers.ownersOf(page)),
          unattributed));
      List<Reading> readings = registers.pageCounters.get(page);
      if (readings != null) {
        CounterCheck.check(register, "pageCounter", readings, ends, findings);
      }
      List<Operation> observed = registers.notesObserved.get(page);
      if (observed != null) { // notes are durable: a restore from a checkpoint keeps them
        PageCheck.notes(register, registers.notesWritten.getOrDefault(page, List.of()),
            observed, Epochs.merge(List.of(losses.hardLossesOfAny(registers.ownersOf(page)),
                unattributedHard)), findings);
      }
      List<Operation> refusals = registers.unknownPages.get(page);
      if (refusals != null) {
        long[] answered = registers.pageAnsweredInvocations(page);
        PageCheck.unknownPage(register, registers.pageWrites.getOrDefault(page, List.of()),
            refusals, ends, registers.pageFirstNamedWall.get(page),
            refusal -> operations.afterUnansweredLogin(refusal,
                registers.pageFirstNamedWall.get(page)),
            refusal -> operations.duringLogin(refusal)
                || Epochs.countAtMost(answered, refusal.completeT()) < answered.length,
            explained, findings);
      }
    }
    VanishCheck.check(operations, losses, registers.firstAckedIncrement, findings);
    FailureCheck.check(operations, grace, explained, findings);
    PlacementCheck.check(operations, findings);
    return new Verdict(new Verdict.Facts(operations.lines, operations.endT / 1e9,
        operationCounts(operations), faultSummaries(operations), registers.users.size(),
        registers.pages.size(), losses.lossCount, losses.dropCount, events.tornLines(), grace),
        findings);
  }

  private static Map<String, Map<String, Long>> operationCounts(Operations operations) {
    Map<String, Map<String, Long>> counts = new LinkedHashMap<>();
    for (Function function : Function.values()) {
      counts.put(function.wireName(), new LinkedHashMap<>());
    }
    for (Operation operation : operations.all) {
      String function = operation.invoke().f() == null ? "?" : operation.invoke().f();
      counts.computeIfAbsent(function, f -> new LinkedHashMap<>())
          .merge(operation.outcome(), 1L, Long::sum);
    }
    counts.values().removeIf(Map::isEmpty);
    counts.replaceAll((function, outcomes) -> {
      Map<String, Long> ordered = new LinkedHashMap<>();
      for (String outcome : List.of(Entry.OK, Entry.FAIL, Entry.INFO, Operation.PENDING)) {
        ordered.put(outcome, outcomes.getOrDefault(outcome, 0L));
      }
      outcomes.forEach(ordered::putIfAbsent);
      return ordered;
    });
    return counts;
  }

  private static Map<String, Verdict.FaultSummary> faultSummaries(Operations operations) {
    Map<String, long[]> counts = new TreeMap<>();
    Map<String, Double> seconds = new TreeMap<>();
    for (FaultWindow fault : operations.faults) {
      counts.computeIfAbsent(fault.kind(), k -> new long[1])[0]++;
      seconds.merge(fault.kind(), fault.seconds(operations.endT), Double::sum);
    }
    Map<String, Verdict.FaultSummary> summaries = new LinkedHashMap<>();
    counts.forEach((kind, count) ->
        summaries.put(kind, new Verdict.FaultSummary(count[0], seconds.get(kind))));
    return summaries;
  }
}
