package dev.cryo.commander;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.cryo.control.RunHome;
import java.io.IOException;
import java.lang.System.Logger.Level;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The run's event log: one JSON object per line in {@value #FILE_NAME} of the run directory, in the
 * order the events happened (the routing maps write under their lock), each line flushed as it is
 * written. The log is created 0600 (it names users), through the run's home ({@link RunHome}),
 * never over anything that stands at its name. The shape of the lines is documented in the package
 * description.
 *
 * <p><b>Rotation.</b> Once a line takes the live file past {@link LogCaps#eventsMaxSize}, the file
 * is rotated before the next line: {@code events.N.jsonl} become {@code events.N+1.jsonl} (the one
 * past {@link LogCaps#eventsKeep} removed), the live file becomes {@code events.1.jsonl}, and a new
 * live file is begun ({@link EventLogFiles} names them). A line is never split between two files,
 * and line numbers ({@code n}) go on across them. A rotation that fails (a rename refused, a file
 * that cannot be created) is logged and undone as far as it went: the lines go on into the file
 * they were going to, and the next try comes after another {@code eventsMaxSize} bytes.
 *
 * <p><b>A write refused</b> (a full disk) tears no line and loses none while memory holds them:
 * the file is cut back to its last whole line, and the line waits, with those after it, in a
 * backlog of at most {@value #BACKLOG_BYTES} bytes that each later event (and the close) tries to
 * write first, in order. Past that bound the oldest waiting lines are dropped, counted, and an
 * {@code events_dropped} event, after the lines that waited, says how many once the log writes
 * again (their numbers {@code n} are missing). Both the refusal and the recovery are logged.
 *
 * <p><b>At a start</b> the previous run's files are moved aside ({@link #open}): its live file to
 * {@value #PREVIOUS_FILE_NAME}, its parts to {@code events.previous.N.jsonl} (those past the kept
 * count removed), after the files of the run before it were removed. Thread-safe: every method
 * runs under this object's lock.
 */
final class EventLog implements EventSink, AutoCloseable {

  /** The log's file name in the run directory. */
  static final String FILE_NAME = EventLogFiles.LIVE;
  /** Where the previous run's live log goes. */
  static final String PREVIOUS_FILE_NAME = EventLogFiles.PREVIOUS;

  private static final System.Logger LOG = System.getLogger(EventLog.class.getName());
  private static final ObjectMapper JSON = new ObjectMapper();

  private final RunHome home;
  private final Path file;
  private final Clock clock;
  private final long maxSize;
  private final int keep;
  /** The most bytes of lines kept waiting while the disk refuses them. */
  static final int BACKLOG_BYTES = 16 << 20;

  private FileChannel channel;
  /** Lines not written yet (the disk refused them), oldest first. */
  private final ArrayDeque<byte[]> backlog = new ArrayDeque<>();
  private long backlogBytes;
  /** Lines dropped from a full backlog since the log last wrote. */
  private long dropped;
  /** Bytes in the live file. */
  private long size;
  /** The size at which the live file is next rotated. */
  private long rotateAt;
  /** The highest part number this run may have written (a start moves every part aside). */
  private int parts;
  /** The line being written, reused (under this object's lock). */
  private final StringBuilder line = new StringBuilder(256);
  private final ClockText clockText = new ClockText();
  private long number;
  private boolean failed;
  private boolean closed;

  /** A log writing through {@code channel} (a test gives one that refuses writes on demand). */
  EventLog(RunHome home, Clock clock, LogCaps caps, FileChannel channel) {
    this.home = home;
    this.file = home.shown(FILE_NAME);
    this.clock = clock;
    this.maxSize = caps.eventsMaxSize();
    this.keep = caps.eventsKeep();
    this.channel = channel;
    this.rotateAt = maxSize;
  }

  /**
   * Opens a new log in {@code home}, moving the previous run's files aside: the files of the run
   * before it ({@value #PREVIOUS_FILE_NAME}, {@code events.previous.N.jsonl}) removed, the previous
   * run's parts renamed {@code events.previous.N.jsonl} (those numbered past
   * {@link LogCaps#eventsKeep} removed), its live file renamed {@value #PREVIOUS_FILE_NAME}.
   *
   * @throws IOException when a file cannot be moved or removed (as the home's rule refuses it) or
   *     the new log cannot be created; what was moved before stays moved
   */
  static EventLog open(RunHome home, Clock clock, LogCaps caps) throws IOException {
    List<String> names = home.names(".");
    for (String name : names) {
      if (EventLogFiles.previousPartNumber(name) > 0) {
        home.require(name, RunHome.Kind.FILE);
        home.remove(name);
      }
    }
    List<Integer> parts = new ArrayList<>();
    for (String name : names) {
      int number = EventLogFiles.partNumber(name);
      if (number > 0) {
        parts.add(number);
      }
    }
    parts.sort(null);
    for (int number : parts) {
      String part = EventLogFiles.part(number);
      if (number <= caps.eventsKeep()) {
        home.rename(part, EventLogFiles.previousPart(number));
      } else {
        home.require(part, RunHome.Kind.FILE);
        home.remove(part);
      }
    }
    home.rename(FILE_NAME, PREVIOUS_FILE_NAME);
    return new EventLog(home, clock, caps, home.createNew(FILE_NAME));
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
      wait(line.toString().getBytes(StandardCharsets.UTF_8));
      if (line.capacity() > 1 << 16) { // one long message: do not keep its room for good
        line.setLength(0);
        line.trimToSize();
      }
      drain();
    } catch (JsonProcessingException e) {
      LOG.log(Level.WARNING, "an event did not write as JSON: " + e.getMessage());
    }
  }

  /** Puts {@code bytes} behind the waiting lines, dropping the oldest past the bound. */
  private void wait(byte[] bytes) {
    backlog.addLast(bytes);
    backlogBytes += bytes.length;
    while (backlogBytes > BACKLOG_BYTES && backlog.size() > 1) {
      backlogBytes -= backlog.removeFirst().length;
      dropped++;
    }
  }

  /**
   * Writes the waiting lines in order, each whole or not at all: a refused write cuts the file
   * back to its last whole line and leaves the line waiting.
   */
  private void drain() {
    while (!backlog.isEmpty()) {
      byte[] next = backlog.peekFirst();
      try {
        writeWhole(next);
      } catch (IOException e) {
        if (!failed) {
          failed = true;
          LOG.log(Level.ERROR, "the event log " + file + " refused a write (" + e.getMessage()
              + "); its lines wait in memory (" + BACKLOG_BYTES + " bytes at most, the oldest"
              + " dropped past that) and are written once it takes them again");
        }
        return;
      }
      backlog.removeFirst();
      backlogBytes -= next.length;
      size += next.length;
      if (failed) {
        failed = false;
        long lost = dropped;
        dropped = 0;
        LOG.log(Level.WARNING, "the event log " + file + " takes writes again; " + (lost == 0
            ? "no line was lost" : lost + " lines were dropped while it refused them"));
        if (lost > 0) {
          Map<String, Object> gap = new LinkedHashMap<>();
          gap.put("dropped", lost);
          backlog.addLast(lineOf(++number, "events_dropped", gap)); // after those that waited
          backlogBytes += backlog.peekLast().length;
        }
      }
      if (size >= rotateAt) {
        rotate();
      }
    }
  }

  /** One whole line of its own, outside {@link #record}'s reused builder. */
  private byte[] lineOf(long n, String event, Map<String, Object> fields) {
    StringBuilder text = new StringBuilder(96);
    if (!EventLine.line(text, n, clockText.format(clock.instant()), event, fields)) {
      text.setLength(0);
      text.append("{\"n\":").append(n).append(",\"event\":\"").append(event).append("\"}");
    }
    return text.append('\n').toString().getBytes(StandardCharsets.UTF_8);
  }

  /** Writes {@code bytes} at the end of the live file, or cuts the file back and throws. */
  private void writeWhole(byte[] bytes) throws IOException {
    ByteBuffer buffer = ByteBuffer.wrap(bytes);
    try {
      while (buffer.hasRemaining()) {
        channel.write(buffer, size + buffer.position());
      }
    } catch (IOException e) {
      try {
        channel.truncate(size); // no torn line: the file ends with its last whole one
      } catch (IOException cut) {
        e.addSuppressed(cut);
      }
      throw e;
    }
  }

  /**
   * Rotates the live file, between two lines; on a failure the lines go on where they went and
   * the next try is {@link #maxSize} bytes later.
   */
  private void rotate() {
    String step = "the shift of the older parts";
    try {
      if (parts >= keep) {
        home.remove(EventLogFiles.part(keep)); // when it is not a file, the rename below refuses
      }
      for (int number = Math.min(parts, keep - 1); number >= 1; number--) {
        home.rename(EventLogFiles.part(number), EventLogFiles.part(number + 1));
      }
      step = "the rename of " + FILE_NAME + " to " + EventLogFiles.part(1);
      if (!home.rename(FILE_NAME, EventLogFiles.part(1))) {
        throw new NoSuchFileException(file.toString(), null, "the live log is gone");
      }
      step = "the creation of a new " + FILE_NAME;
      FileChannel next;
      try {
        next = home.createNew(FILE_NAME);
      } catch (IOException | RuntimeException e) {
        undoRename(e);
        throw e;
      }
      FileChannel old = channel;
      channel = next;
      parts = Math.min(parts + 1, keep);
      size = 0;
      rotateAt = maxSize;
      try {
        old.close();
      } catch (IOException e) {
        LOG.log(Level.WARNING, "the rotated event log " + home.shown(EventLogFiles.part(1))
            + " did not close: " + e.getMessage());
      }
    } catch (IOException | RuntimeException e) {
      rotateAt = size + maxSize;
      LOG.log(Level.ERROR, "the event log " + file + " was not rotated (" + step + " failed: "
          + e.getMessage() + "); events go on into the same file, and the rotation is tried again"
          + " after another " + maxSize + " bytes");
    }
  }

  /** Puts the live file back at its name after a new one could not be created. */
  private void undoRename(Exception cause) {
    try {
      home.rename(EventLogFiles.part(1), FILE_NAME);
    } catch (IOException | RuntimeException e) {
      cause.addSuppressed(e); // the lines go on into events.1.jsonl, read before the live file
    }
  }

  @Override
  public synchronized void close() {
    if (closed) {
      return;
    }
    drain(); // a last try for the lines still waiting
    if (!backlog.isEmpty()) {
      LOG.log(Level.ERROR, "the event log " + file + " closes with " + backlog.size()
          + " lines it could not write");
    }
    closed = true;
    try {
      channel.close();
    } catch (IOException e) {
      LOG.log(Level.WARNING, "the event log " + file + " did not close: " + e.getMessage());
    }
  }
}
