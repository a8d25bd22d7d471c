package dev.cryo.admin;

import java.io.IOException;
import java.lang.System.Logger.Level;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The last whole lines of a run's event log, read once without following a symbolic link and
 * bounded in bytes: the first, partial line of the window is dropped, so every line returned is
 * whole. Stateless.
 */
final class EventLogTail {

  /** How much of the log's end is read: far more than the board keeps. */
  static final int MAX_BYTES = 256 * 1024;

  private static final System.Logger LOG = System.getLogger(EventLogTail.class.getName());

  private EventLogTail() {}

  /** The whole lines in the last {@code maxBytes} of {@code file}, oldest first; none if unread. */
  static List<String> read(Path file, int maxBytes) {
    try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ,
        LinkOption.NOFOLLOW_LINKS)) {
      long size = channel.size();
      long start = Math.max(0, size - maxBytes);
      ByteBuffer buffer = ByteBuffer.allocate((int) (size - start));
      while (buffer.hasRemaining() && channel.read(buffer, start + buffer.position()) > 0) {
        // read on until the window is full or the file ends
      }
      String text = new String(buffer.array(), 0, buffer.position(), StandardCharsets.UTF_8);
      List<String> lines = new ArrayList<>(Arrays.asList(text.split("\n", -1)));
      if (start > 0 && !lines.isEmpty()) {
        lines.remove(0); // the window began inside a line
      }
      if (!lines.isEmpty()) {
        lines.remove(lines.size() - 1); // after the last newline: empty, or a line being written
      }
      return lines;
    } catch (IOException e) {
      LOG.log(Level.WARNING, "the event log " + file + " could not be read (" + e + "); the"
          + " status page's events start empty");
      return List.of();
    }
  }
}
