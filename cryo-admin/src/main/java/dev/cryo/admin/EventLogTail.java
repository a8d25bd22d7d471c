package dev.cryo.admin;

import dev.cryo.commander.EventLogFiles;
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
 * bounded in bytes, across the live file and the parts it was rotated into
 * ({@link EventLogFiles#run}), oldest first: the first, partial line of the window is dropped, so
 * every line returned is whole. A rotation while they are read may leave a gap (a part moved one
 * number up before it was opened); the board is a view, not a record. Stateless.
 */
final class EventLogTail {

  /** How much of the log's end is read: far more than the board keeps. */
  static final int MAX_BYTES = 256 * 1024;

  private static final System.Logger LOG = System.getLogger(EventLogTail.class.getName());

  private EventLogTail() {}

  /**
   * The files of the log whose live file is {@code live}, oldest first: its rotated parts too when
   * it has the run's name ({@value EventLogFiles#LIVE}), else {@code live} alone.
   */
  static List<Path> files(Path live) {
    Path directory = live.toAbsolutePath().getParent();
    if (!live.getFileName().toString().equals(EventLogFiles.LIVE) || directory == null) {
      return List.of(live);
    }
    try {
      return EventLogFiles.run(directory);
    } catch (IOException e) {
      LOG.log(Level.WARNING, "the event log's parts beside " + live + " could not be listed ("
          + e + "); the status page's events start with the live file's only");
      return List.of(live);
    }
  }

  /** The whole lines in the last {@code maxBytes} of {@code file}, oldest first; none if unread. */
  static List<String> read(Path file, int maxBytes) {
    return read(List.of(file), maxBytes);
  }

  /**
   * The whole lines in the last {@code maxBytes} of {@code files} read one after the other (oldest
   * first), oldest first; a file that cannot be read ends the window there.
   */
  static List<String> read(List<Path> files, int maxBytes) {
    List<byte[]> tails = new ArrayList<>();
    long remaining = maxBytes;
    boolean cut = false;
    for (int i = files.size() - 1; i >= 0 && remaining > 0; i--) {
      Path file = files.get(i);
      try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ,
          LinkOption.NOFOLLOW_LINKS)) {
        long size = channel.size();
        // one byte before the window: a newline there means the window begins with a whole line
        long start = Math.max(0, size - remaining - 1);
        ByteBuffer buffer = ByteBuffer.allocate((int) (size - start));
        while (buffer.hasRemaining() && channel.read(buffer, start + buffer.position()) > 0) {
          // read on until the window is full or the file ends
        }
        tails.addFirst(Arrays.copyOf(buffer.array(), buffer.position()));
        remaining -= buffer.position();
        cut = start > 0 || remaining < 0;
      } catch (IOException e) {
        LOG.log(Level.WARNING, "the event log " + file + " could not be read (" + e + "); the"
            + " status page's events start " + (tails.isEmpty() ? "empty" : "after it"));
        cut = false;
        break;
      }
    }
    StringBuilder text = new StringBuilder();
    for (byte[] tail : tails) {
      text.append(new String(tail, StandardCharsets.UTF_8));
    }
    List<String> lines = new ArrayList<>(Arrays.asList(text.toString().split("\n", -1)));
    if (cut && !lines.isEmpty()) {
      lines.remove(0); // the window began inside a line
    }
    if (!lines.isEmpty()) {
      lines.remove(lines.size() - 1); // after the last newline: empty, or a line being written
    }
    return lines;
  }
}
