package dev.cryo.chaos.check;

import dev.cryo.chaos.history.Entry;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;

/**
 * One placement, one worker: the completions that name a user, a {@code generation} and a
 * {@code servedBy} must name one worker per (user, generation); two is a
 * {@link AnomalyKind#PLACEMENT_SERVED_TWICE}, reported once per placement. Completions without a
 * generation (a runtime that does not report it yet) are not checked.
 */
final class PlacementCheck {

  private PlacementCheck() {}

  /** Checks every completion. */
  static void check(Operations operations, Findings findings) {
    Map<String, Operation> firstServed = new HashMap<>();
    Set<String> reported = new HashSet<>();
    for (Operation operation : operations.all) {
      Entry completion = operation.completion();
      if (completion == null || completion.user() == null || completion.generation() == null
          || completion.servedBy() == null) {
        continue;
      }
      String placement = completion.user() + '\u0000' + completion.generation();
      Operation first = firstServed.putIfAbsent(placement, operation);
      if (first != null && !first.completion().servedBy().equals(completion.servedBy())
          && reported.add(placement)) {
        findings.add(AnomalyKind.PLACEMENT_SERVED_TWICE, completion.user(), "placement "
            + completion.generation() + " of " + completion.user() + " was served by "
            + first.completion().servedBy() + " (" + first.describe() + ") and by "
            + completion.servedBy() + " (" + operation.describe() + ")", first, operation);
      }
    }
  }
}
