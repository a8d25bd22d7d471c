package dev.cryo.chaos.check;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The anomalies found so far: every one counted (per kind and per register), the earliest
 * {@value #EXAMPLES} of each kind kept as examples, and the first {@value #KEPT} kept for the
 * timeline. The rules add to it in any order.
 */
final class Findings {

  /** Examples kept per kind. */
  static final int EXAMPLES = 5;
  /** Anomalies kept in all (the counts go on past it). */
  static final int KEPT = 10_000;

  private static final Comparator<Anomaly> BY_TIME =
      Comparator.comparingDouble(Anomaly::at).thenComparing(Anomaly::register);

  final Map<AnomalyKind, Long> counts = new EnumMap<>(AnomalyKind.class);
  final Map<String, Map<AnomalyKind, Long>> byRegister = new HashMap<>();
  final Map<AnomalyKind, List<Anomaly>> examples = new EnumMap<>(AnomalyKind.class);
  final List<Anomaly> kept = new ArrayList<>();

  /** Records one anomaly involving {@code operations}. */
  void add(AnomalyKind kind, String register, String explanation, Operation... operations) {
    List<Long> ids = new ArrayList<>(operations.length);
    List<Double> seconds = new ArrayList<>(operations.length);
    for (Operation operation : operations) {
      ids.add(operation.id());
      seconds.add(operation.seconds());
    }
    add(new Anomaly(kind, register, ids, seconds, explanation));
  }

  /** Records one anomaly. */
  void add(Anomaly anomaly) {
    counts.merge(anomaly.kind(), 1L, Long::sum);
    byRegister.computeIfAbsent(anomaly.register(), r -> new EnumMap<>(AnomalyKind.class))
        .merge(anomaly.kind(), 1L, Long::sum);
    List<Anomaly> earliest = examples.computeIfAbsent(anomaly.kind(), k -> new ArrayList<>());
    earliest.add(anomaly);
    earliest.sort(BY_TIME);
    if (earliest.size() > EXAMPLES) {
      earliest.remove(EXAMPLES);
    }
    if (kept.size() < KEPT) {
      kept.add(anomaly);
    }
  }

  /** The kept anomalies, by time. */
  List<Anomaly> keptByTime() {
    List<Anomaly> sorted = new ArrayList<>(kept);
    sorted.sort(BY_TIME);
    return sorted;
  }
}
