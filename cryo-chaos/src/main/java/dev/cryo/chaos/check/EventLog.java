package dev.cryo.chaos.check;

import java.io.BufferedReader;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The events of a run that bear on the check, in order: every line that names users lost (a
 * {@code lost} array, whatever its type), every {@code user_expired}, and every {@code fold} of a
 * {@code drop_user}. A run has one {@code events.jsonl} per {@code cryo serve}; they are read in
 * the order given.
 *
 * <p>Reading is lenient where a run is expected to be torn and strict elsewhere: a commander killed
 * with {@code kill -9} may leave its last line half written, so a last line that does not parse is
 * skipped and counted ({@link #tornLines}); a line that does not parse before the end of its file
 * is refused with its file and number. Lines that cannot bear on the check are not parsed at all
 * (a soak writes millions of {@code fold} lines).
 */
public final class EventLog {

  private final List<Event> events;
  private final int tornLines;

  private EventLog(List<Event> events, int tornLines) {
    this.events = List.copyOf(events);
    this.tornLines = tornLines;
  }

  /** A log of the given events, already parsed (they are kept whatever their type). */
  public static EventLog of(List<Event> events) {
    return new EventLog(events, 0);
  }

  /** A run without event logs: nothing documented. */
  public static EventLog empty() {
    return new EventLog(List.of(), 0);
  }

  /**
   * Reads the files, in order.
   *
   * @throws IOException when a file cannot be read, or a line bearing on the check does not parse
   *     before the last line of its file
   */
  public static EventLog read(List<Path> files) throws IOException {
    List<Event> events = new ArrayList<>();
    int torn = 0;
    for (Path file : files) {
      torn += readOne(file, events);
    }
    return new EventLog(events, torn);
  }

  private static int readOne(Path file, List<Event> events) throws IOException {
    IOException pending = null;
    try (BufferedReader reader = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
      String line;
      int number = 0;
      while ((line = reader.readLine()) != null) {
        number++;
        if (line.isBlank()) {
          continue;
        }
        if (pending != null) {
          throw pending; // a line follows the one that did not parse: it was not a torn end
        }
        if (!mayBearOnCheck(line)) {
          continue;
        }
        try {
          events.add(Event.parse(line));
        } catch (IOException e) {
          pending = new IOException(file + " line " + number + " is not an event: "
              + e.getMessage(), e);
        }
      }
    }
    return pending == null ? 0 : 1;
  }

  /** Whether a raw line may be one of the events kept: a cheap test before parsing. */
  static boolean mayBearOnCheck(String line) {
    return line.contains("\"lost\"") || line.contains("user_expired")
        || line.contains("drop_user");
  }

  /** The events, in the order of the files and of their lines. */
  public List<Event> events() {
    return events;
  }

  /** How many torn last lines were skipped (at most one per file). */
  public int tornLines() {
    return tornLines;
  }
}
