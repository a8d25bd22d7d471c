package dev.cryo.chaos.check;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.cryo.chaos.history.History;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;

/**
 * What the checker concluded about a run: its operations by function and outcome, its faults by
 * kind, what the event logs documented, and its anomalies — counted by kind and by register (user
 * or page), with the earliest five of each kind as examples. The run is
 * {@link #valid()} iff there is no anomaly. Readable as text ({@link #text()}) and as JSON
 * ({@link #json()}). Immutable.
 */
public final class Verdict {

  /**
   * The faults of one kind.
   *
   * @param count how many
   * @param seconds how long they lasted in all (an unended one lasts to the history's end)
   */
  public record FaultSummary(long count, double seconds) {}

  /**
   * The run's facts around the anomalies.
   *
   * @param historyLines lines of the history
   * @param runSeconds the history's last {@code t}, in seconds
   * @param operations counts per function, then per outcome ({@code ok}, {@code fail},
   *     {@code info}, {@code pending})
   * @param faults per fault kind
   * @param users users the replies named
   * @param pages pages the operations named
   * @param documentedLosses (user, time) losses the event logs documented
   * @param explainedDrops drops of real users that a login away from them explains
   * @param tornEventLines torn last lines of the event logs, skipped
   * @param grace how long after a fault failures are still explained
   */
  record Facts(int historyLines, double runSeconds, Map<String, Map<String, Long>> operations,
      Map<String, FaultSummary> faults, int users, int pages, int documentedLosses,
      int explainedDrops, int tornEventLines, Duration grace) {}

  private final Facts facts;
  private final Map<AnomalyKind, Long> counts;
  private final Map<AnomalyKind, List<Anomaly>> examples;
  private final Map<String, Map<AnomalyKind, Long>> byRegister;
  private final List<Anomaly> anomalies;

  Verdict(Facts facts, Findings findings) {
    this.facts = Objects.requireNonNull(facts, "facts");
    Map<AnomalyKind, Long> counts = new EnumMap<>(AnomalyKind.class);
    Map<AnomalyKind, List<Anomaly>> examples = new EnumMap<>(AnomalyKind.class);
    for (AnomalyKind kind : AnomalyKind.values()) {
      counts.put(kind, findings.counts.getOrDefault(kind, 0L));
      examples.put(kind, List.copyOf(findings.examples.getOrDefault(kind, List.of())));
    }
    this.counts = Collections.unmodifiableMap(counts);
    this.examples = Collections.unmodifiableMap(examples);
    Map<String, Map<AnomalyKind, Long>> registers = new LinkedHashMap<>();
    findings.byRegister.entrySet().stream()
        .sorted((a, b) -> {
          int order = Long.compare(total(b.getValue()), total(a.getValue()));
          return order != 0 ? order : a.getKey().compareTo(b.getKey());
        })
        .forEach(entry -> registers.put(entry.getKey(),
            Collections.unmodifiableMap(new EnumMap<>(entry.getValue()))));
    this.byRegister = Collections.unmodifiableMap(registers);
    this.anomalies = List.copyOf(findings.keptByTime());
  }

  private static long total(Map<AnomalyKind, Long> counts) {
    return counts.values().stream().mapToLong(Long::longValue).sum();
  }

  /** Whether the run shows no anomaly. */
  public boolean valid() {
    return anomalyCount() == 0;
  }

  /** How many anomalies, of every kind. */
  public long anomalyCount() {
    return total(counts);
  }

  /** How many anomalies of {@code kind}. */
  public long count(AnomalyKind kind) {
    return counts.get(kind);
  }

  /** The earliest anomalies of {@code kind} (at most five), by time. */
  public List<Anomaly> examples(AnomalyKind kind) {
    return examples.get(kind);
  }

  /** The kinds with at least one anomaly, in the enum's order. */
  public List<AnomalyKind> kinds() {
    List<AnomalyKind> kinds = new ArrayList<>();
    counts.forEach((kind, count) -> {
      if (count > 0) {
        kinds.add(kind);
      }
    });
    return kinds;
  }

  /** The anomalies, by time: all of them, or the first 10,000 found. */
  public List<Anomaly> anomalies() {
    return anomalies;
  }

  /** Per register (user name or {@code page:ID}) with anomalies, the counts by kind; most first. */
  public Map<String, Map<AnomalyKind, Long>> anomaliesByRegister() {
    return byRegister;
  }

  /** Per function, per outcome ({@code ok}, {@code fail}, {@code info}, {@code pending}). */
  public Map<String, Map<String, Long>> operations() {
    return facts.operations();
  }

  /** How many operations the history holds. */
  public long operationCount() {
    return facts.operations().values().stream()
        .flatMap(outcomes -> outcomes.values().stream()).mapToLong(Long::longValue).sum();
  }

  /** Per fault kind, how many and how long. */
  public Map<String, FaultSummary> faults() {
    return facts.faults();
  }

  /** How many users the replies named. */
  public int users() {
    return facts.users();
  }

  /** How many pages the operations named. */
  public int pages() {
    return facts.pages();
  }

  /** How many (user, time) losses the event logs documented. */
  public int documentedLosses() {
    return facts.documentedLosses();
  }

  /** How many drops of real users a login away from them explains (each ends an epoch). */
  public int explainedDrops() {
    return facts.explainedDrops();
  }

  /** The grace after a fault's end within which failures are explained. */
  public Duration grace() {
    return facts.grace();
  }

  /** The history's last {@code t}, in seconds since the run began. */
  public double runSeconds() {
    return facts.runSeconds();
  }

  /** The verdict for people: a headline, the operations, the faults, the anomalies. */
  public String text() {
    StringBuilder out = new StringBuilder();
    if (valid()) {
      out.append(format("VALID: no anomaly in %,d operations of %,d users and %,d pages"
          + " (%.1f s of run)%n", operationCount(), users(), pages(), runSeconds()));
    } else {
      out.append(format("INVALID: %,d anomalies in %,d operations of %,d users and %,d pages"
          + " (%.1f s of run)%n", anomalyCount(), operationCount(), users(), pages(),
          runSeconds()));
    }
    out.append(format("%n%-12s %12s %10s %10s %10s%n", "operations", "ok", "fail", "info",
        "pending"));
    facts.operations().forEach((function, outcomes) -> out.append(format(
        "  %-10s %12d %10d %10d %10d%n", function, outcomes.getOrDefault("ok", 0L),
        outcomes.getOrDefault("fail", 0L), outcomes.getOrDefault("info", 0L),
        outcomes.getOrDefault(Operation.PENDING, 0L))));
    out.append(format("%nfaults%s%n", facts.faults().isEmpty() ? ": none" : ""));
    facts.faults().forEach((kind, summary) -> out.append(format("  %-20s %4d, %.1f s in all%n",
        kind, summary.count(), summary.seconds())));
    out.append(format("%ndocumented: %d losses of users, %d drops after a login away;"
        + " grace after a fault %s s", documentedLosses(), facts.explainedDrops(),
        seconds(grace())));
    if (facts.tornEventLines() > 0) {
      out.append(format("; %d torn last event lines skipped", facts.tornEventLines()));
    }
    out.append(format("%n%nanomalies%s%n", valid() ? ": none" : ""));
    for (AnomalyKind kind : kinds()) {
      out.append(format("  %-22s %d%n", kind, count(kind)));
      for (Anomaly anomaly : examples(kind)) {
        out.append(format("    - [%s] %.3f s, ops %s: %s%n", anomaly.register(), anomaly.at(),
            anomaly.operations(), anomaly.explanation()));
      }
    }
    if (!byRegister.isEmpty()) {
      out.append(format("%nby register (%d with anomalies; the first 20)%n", byRegister.size()));
      byRegister.entrySet().stream().limit(20).forEach(entry -> out.append(
          format("  %-30s %s%n", entry.getKey(), entry.getValue())));
    }
    return out.toString();
  }

  /** The verdict as one JSON object (see {@link #writeJson} for its fields). */
  public String json() {
    try {
      return History.JSON.writerWithDefaultPrettyPrinter().writeValueAsString(toJson());
    } catch (JsonProcessingException e) {
      throw new UncheckedIOException("the verdict did not write as JSON", e);
    }
  }

  /**
   * Writes {@link #json()} to {@code file}: {@code valid}, {@code anomalyCount},
   * {@code historyLines}, {@code runSeconds}, {@code users}, {@code pages},
   * {@code documentedLosses}, {@code explainedDrops}, {@code tornEventLines},
   * {@code graceSeconds}, {@code operations} (function → outcome → count), {@code faults} (kind →
   * {@code count}, {@code seconds}), {@code anomalies} (kind → {@code count} and
   * {@code examples}: {@code register}, {@code operations}, {@code seconds}, {@code explanation}),
   * {@code byRegister} (register → kind → count).
   */
  public void writeJson(Path file) throws IOException {
    Files.writeString(file, json() + System.lineSeparator(), StandardCharsets.UTF_8);
  }

  private ObjectNode toJson() {
    ObjectNode root = History.JSON.createObjectNode();
    root.put("valid", valid());
    root.put("anomalyCount", anomalyCount());
    root.put("historyLines", facts.historyLines());
    root.put("runSeconds", runSeconds());
    root.put("users", users());
    root.put("pages", pages());
    root.put("documentedLosses", documentedLosses());
    root.put("explainedDrops", facts.explainedDrops());
    root.put("tornEventLines", facts.tornEventLines());
    root.put("graceSeconds", grace().toMillis() / 1000.0);
    root.set("operations", History.JSON.valueToTree(facts.operations()));
    ObjectNode faults = root.putObject("faults");
    facts.faults().forEach((kind, summary) -> faults.putObject(kind)
        .put("count", summary.count()).put("seconds", summary.seconds()));
    ObjectNode kinds = root.putObject("anomalies");
    for (AnomalyKind kind : AnomalyKind.values()) {
      ObjectNode node = kinds.putObject(kind.name());
      node.put("count", count(kind));
      ArrayNode list = node.putArray("examples");
      for (Anomaly anomaly : examples(kind)) {
        ObjectNode example = list.addObject();
        example.put("register", anomaly.register());
        example.set("operations", History.JSON.valueToTree(anomaly.operations()));
        example.set("seconds", History.JSON.valueToTree(anomaly.seconds()));
        example.put("explanation", anomaly.explanation());
      }
    }
    root.set("byRegister", History.JSON.valueToTree(byRegister));
    return root;
  }

  private static String seconds(Duration duration) {
    return format("%s", duration.toMillis() / 1000.0);
  }

  private static String format(String pattern, Object... arguments) {
    return String.format(Locale.ROOT, pattern, arguments);
  }
}
