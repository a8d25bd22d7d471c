package dev.cryo.chaos.history;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.BufferedReader;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * A history file: {@link Entry} lines, JSON, in the order they were recorded. {@link #open} appends
 * lines from any thread ({@link #append} is synchronized; lines are flushed at {@link #flush} and
 * {@link #close}); {@link #read} reads a whole file back, refusing a line that does not parse with
 * its number.
 */
public final class History implements AutoCloseable {

  /** One mapper for the module's JSON lines: unknown fields are ignored (later fields may come). */
  public static final ObjectMapper JSON = new ObjectMapper()
      .configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, false);

  private final BufferedWriter writer;
  private boolean closed;

  private History(BufferedWriter writer) {
    this.writer = writer;
  }

  /** Creates {@code file} (refused when it exists) and appends to it. */
  public static History open(Path file) throws IOException {
    return new History(Files.newBufferedWriter(file, StandardCharsets.UTF_8,
        java.nio.file.StandardOpenOption.CREATE_NEW, java.nio.file.StandardOpenOption.WRITE));
  }

  /** Appends one line; after {@link #close}, does nothing. */
  public synchronized void append(Entry entry) {
    if (closed) {
      return;
    }
    try {
      writer.write(JSON.writeValueAsString(entry));
      writer.newLine();
    } catch (IOException e) {
      throw new UncheckedIOException("the history could not be written", e);
    }
  }

  /** Writes what is buffered to the file. */
  public synchronized void flush() throws IOException {
    if (!closed) {
      writer.flush();
    }
  }

  @Override
  public synchronized void close() throws IOException {
    if (!closed) {
      closed = true;
      writer.close();
    }
  }

  /** Reads every line of {@code file}; blank lines are skipped. */
  public static List<Entry> read(Path file) throws IOException {
    List<Entry> entries = new ArrayList<>();
    try (BufferedReader reader = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
      String line;
      int number = 0;
      while ((line = reader.readLine()) != null) {
        number++;
        if (line.isBlank()) {
          continue;
        }
        try {
          entries.add(JSON.readValue(line, Entry.class));
        } catch (IOException e) {
          throw new IOException(file + " line " + number + " is not a history entry: "
              + e.getMessage(), e);
        }
      }
    }
    return entries;
  }
}
