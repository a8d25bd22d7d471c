package dev.cryo.commander;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.cryo.control.RunHome;
import java.io.BufferedWriter;
import java.io.IOException;
import java.lang.System.Logger.Level;
import java.nio.channels.Channels;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The run's event log: one JSON object per line in {@value #FILE_NAME} of the run directory, in the
 * order the events happened (the routing maps write under their lock), each line flushed as it is
 * written. A start moves the previous run's log to {@value #PREVIOUS_FILE_NAME}. The log is created
 * 0600 (it names users), through the run's home ({@link RunHome}), never over anything that stands
 * at its name. The shape of the lines is documented in the package description. Thread-safe.
 */
final class EventLog implements EventSink, AutoCloseable {

  /** The log's file name in the run directory. */
  static final String FILE_NAME = "events.jsonl";
  /** Where the previous run's log goes. */
  static final String PREVIOUS_FILE_NAME = "events.previous.jsonl";

  private static final System.Logger LOG = System.getLogger(EventLog.class.getName());
  private static final ObjectMapper JSON = new ObjectMapper();

  private final Path file;
  private final Clock clock;
  private final BufferedWriter writer;
  /** The line being written, reused (under this object's lock). */
  private final StringBuilder line = new StringBuilder(256);
  private final ClockText clockText = new ClockText();
  private long number;
  private boolean failed;
  private boolean closed;

  private EventLog(Path file, Clock clock, BufferedWriter writer) {
    this.file = file;
    this.clock = clock;
    this.writer = writer;
  }

  /** Opens a new log in {@code home}, moving the previous one aside. */
  static EventLog open(RunHome home, Clock clock) throws IOException {
    home.rename(FILE_NAME, PREVIOUS_FILE_NAME);
    BufferedWriter writer = new BufferedWriter(Channels.newWriter(home.createNew(FILE_NAME),
        StandardCharsets.UTF_8));
    return new EventLog(home.shown(FILE_NAME), clock, writer);
  }

  /** The log's path. */
  Path file() {
    return file;
  }

  @Override
  public synchronized void record(String event, Map<String, Object> fields) {
    if (closed) {
      return;
    }
    long n = ++number;
    String at = clockText.format(clock.instant());
    try {
      line.setLength(0);
      if (!EventLine.line(line, n, at, event, fields)) {
        Map<String, Object> all = new LinkedHashMap<>();
        all.put("n", n);
        all.put("at", at);
        all.put("event", event);
        all.putAll(fields);
        line.setLength(0);
        line.append(JSON.writeValueAsString(all));
      }
      line.append('\n');
      writer.append(line);
      writer.flush();
      if (line.capacity() > 1 << 16) { // one long message: do not keep its room for good
        line.setLength(0);
        line.trimToSize();
      }
    } catch (JsonProcessingException e) {
      LOG.log(Level.WARNING, "an event did not write as JSON: " + e.getMessage());
    } catch (IOException e) {
      if (!failed) {
        failed = true;
        LOG.log(Level.ERROR, "the event log " + file + " refused a write (" + e.getMessage()
            + "); later events may be missing from it");
      }
    }
  }

  @Override
  public synchronized void close() {
    if (closed) {
      return;
    }
    closed = true;
    try {
      writer.close();
    } catch (IOException e) {
      LOG.log(Level.WARNING, "the event log " + file + " did not close: " + e.getMessage());
    }
  }
}
