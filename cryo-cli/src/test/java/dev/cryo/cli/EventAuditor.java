package dev.cryo.cli;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Predicate;

/**
 * An auditor of a run's event log ({@code events.jsonl}, documented in the commander's package),
 * independent of the commander's own code: it replays the folds and names every violation of
 * "a user lives in one worker at a time, and is adopted only after his freeze".
 */
final class EventAuditor {

  private final Map<String, String> liveOn = new HashMap<>();
  private final Set<String> frozen = new HashSet<>();
  private final Map<String, String> waking = new HashMap<>();
  private final List<String> violations = new ArrayList<>();
  private final Map<String, Integer> freezes = new HashMap<>();
  private final Map<String, Integer> adoptions = new HashMap<>();
  private int anomalies;
  private int lines;

  /** Audits the log at {@code file}, for the users {@code audited} picks. */
  static EventAuditor audit(Path file, Predicate<String> audited) throws IOException {
    return audit(List.of(file), audited);
  }

  /** Audits the log in {@code files} read one after the other, for the users it picks. */
  static EventAuditor audit(List<Path> files, Predicate<String> audited) throws IOException {
    EventAuditor auditor = new EventAuditor();
    for (Path file : files) {
      for (String line : Files.readAllLines(file)) {
        if (!line.isBlank()) {
          auditor.apply(DemoClient.JSON.readTree(line), audited);
        }
      }
    }
    return auditor;
  }

  /**
   * The files of the event log of the run in {@code home}, as the operations page names them and
   * read by name here (not through the commander's code): the rotated parts
   * {@code events.N.jsonl} from the highest N down, then {@code events.jsonl}.
   */
  static List<Path> runFiles(Path home) throws IOException {
    java.util.TreeMap<Integer, Path> parts = new java.util.TreeMap<>(
        java.util.Comparator.reverseOrder());
    java.util.regex.Pattern part = java.util.regex.Pattern.compile("events\\.([1-9][0-9]*)\\.jsonl");
    try (var entries = Files.newDirectoryStream(home)) {
      for (Path entry : entries) {
        java.util.regex.Matcher matcher = part.matcher(entry.getFileName().toString());
        if (matcher.matches()) {
          parts.put(Integer.parseInt(matcher.group(1)), entry);
        }
      }
    }
    List<Path> files = new ArrayList<>(parts.values());
    if (Files.exists(home.resolve("events.jsonl"))) {
      files.add(home.resolve("events.jsonl"));
    }
    return files;
  }

  private void apply(JsonNode event, Predicate<String> audited) {
    lines++;
    String type = event.path("event").asText();
    if (type.equals("anomaly")) {
      anomalies++;
      violations.add("anomaly: " + event);
      return;
    }
    if (type.equals("worker_died")) {
      event.path("lost").forEach(user -> liveOn.remove(user.asText()));
      return;
    }
    if (!type.equals("fold")) {
      return;
    }
    String user = event.path("user").asText(null);
    String worker = event.path("worker").asText();
    if (user == null || !audited.test(user)) {
      return;
    }
    String where = liveOn.get(user);
    String line = " (line " + event.path("n") + ")";
    switch (event.path("kind").asText()) {
      case "new_user" -> {
        if (frozen.contains(user)) { // a wake rebuilds his rows, then tells user_adopted
          String other = waking.putIfAbsent(user, worker);
          if (other != null && !other.equals(worker)) {
            violations.add(user + " woken on " + worker + " while waking on " + other + line);
          }
        } else if (where != null && !where.equals(worker)) {
          violations.add(user + " born on " + worker + " while alive on " + where + line);
        } else {
          liveOn.put(user, worker);
        }
      }
      case "login" -> {
        if (where != null && !where.equals(worker) || frozen.contains(user)) {
          return; // the identity lives elsewhere: the connection goes to him, nobody is born here
        }
        liveOn.put(user, worker);
      }
      case "user_adopted" -> {
        String wakingOn = waking.remove(user);
        if (!frozen.remove(user)) {
          violations.add(user + " adopted on " + worker + " without a freeze before" + line);
        }
        if (wakingOn != null && !wakingOn.equals(worker)) {
          violations.add(user + " adopted on " + worker + " while waking on " + wakingOn + line);
        }
        if (where != null) {
          violations.add(user + " adopted on " + worker + " while alive on " + where + line);
        }
        liveOn.put(user, worker);
        adoptions.merge(user, 1, Integer::sum);
      }
      case "user_frozen" -> {
        if (waking.containsKey(user)) {
          violations.add(user + " frozen by " + worker + " before his wake on "
              + waking.get(user) + " was told: a fresh user made while his state was frozen"
              + line);
        } else if (!worker.equals(where)) {
          violations.add(user + " frozen by " + worker + " while alive on " + where + line);
        }
        liveOn.remove(user);
        frozen.add(user);
        freezes.merge(user, 1, Integer::sum);
      }
      case "drop_user" -> liveOn.remove(user, worker);
      default -> { }
    }
  }

  /** What is wrong at the end of the log: wakes never told as adoptions. */
  List<String> violations() {
    List<String> all = new ArrayList<>(violations);
    waking.forEach((user, worker) -> all.add(user + " was rebuilt on " + worker
        + " while frozen and never told as adopted"));
    return all;
  }

  int anomalies() {
    return anomalies;
  }

  int lines() {
    return lines;
  }

  int freezes() {
    return freezes.values().stream().mapToInt(Integer::intValue).sum();
  }

  int adoptions() {
    return adoptions.values().stream().mapToInt(Integer::intValue).sum();
  }
}
