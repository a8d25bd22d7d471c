package dev.cryo.commander;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.cryo.control.RunHome;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.ReadableByteChannel;
import java.nio.channels.WritableByteChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The event log on a full disk. A 6-minute soak with the home on a tmpfs filled four times found
 * {@code events.jsonl} torn mid-line (the checker stopped on it) and the lines of each full window
 * gone, among them the events that named losses. Now a refused write tears nothing: the file is
 * cut back to its last whole line, and the lines wait in memory until the disk takes them.
 */
class EventLogFullDiskTest {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Clock CLOCK = Clock.fixed(Instant.parse("2026-12-07T04:00:00Z"),
      ZoneOffset.UTC);

  @Test
  void linesRefusedByAFullDiskWaitAndAreWrittenWholeAndInOrderOnceItTakesThem(@TempDir Path dir)
      throws Exception {
    FullDisk disk;
    try (RunHome home = RunHome.claim(dir, List.of())) {
      disk = new FullDisk(FileChannel.open(dir.resolve("events.jsonl"),
          StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE, StandardOpenOption.READ));
      try (EventLog log = new EventLog(home, CLOCK, LogCaps.DEFAULTS, disk)) {
        log.record("fold", Map.of("user", "a"));
        log.record("fold", Map.of("user", "b"));
        disk.full = true; // the next writes take half a line, then ENOSPC
        for (int i = 0; i < 5; i++) {
          log.record("worker_died", Map.of("lost", List.of("u" + i)));
        }
        assertThat(lines(dir)).extracting(line -> line.get("n").asLong()).containsExactly(1L, 2L);
        disk.full = false;
        log.record("fold", Map.of("user", "c"));
      }
    }
    List<JsonNode> lines = lines(dir);
    assertThat(lines).extracting(line -> line.get("n").asLong())
        .containsExactly(1L, 2L, 3L, 4L, 5L, 6L, 7L, 8L);
    assertThat(lines.get(2).get("event").asText()).isEqualTo("worker_died");
    assertThat(lines.get(6).get("lost").get(0).asText()).isEqualTo("u4");
    assertThat(disk.refused).isGreaterThan(0);
  }

  @Test
  void pastTheBacklogTheOldestWaitingLinesAreDroppedAndCounted(@TempDir Path dir)
      throws Exception {
    String pad = "x".repeat(64 * 1024);
    int events = EventLog.BACKLOG_BYTES / pad.length() + 50;
    try (RunHome home = RunHome.claim(dir, List.of())) {
      FullDisk disk = new FullDisk(FileChannel.open(dir.resolve("events.jsonl"),
          StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE, StandardOpenOption.READ));
      try (EventLog log = new EventLog(home, CLOCK, LogCaps.DEFAULTS, disk)) {
        disk.full = true;
        for (int i = 0; i < events; i++) {
          log.record("note", Map.of("pad", pad));
        }
        disk.full = false;
        log.record("fold", Map.of("user", "after"));
      }
    }
    List<JsonNode> lines = lines(dir);
    JsonNode gap = lines.getLast(); // after the lines that waited, "after" among them
    assertThat(gap.get("event").asText()).isEqualTo("events_dropped");
    long dropped = gap.get("dropped").asLong();
    assertThat(dropped).isPositive();
    assertThat(lines.get(lines.size() - 2).get("user").asText()).isEqualTo("after");
    assertThat(lines.size() - 2 + dropped).isEqualTo(events); // every other one written
    for (int i = 1; i < lines.size(); i++) { // in order, the dropped ones missing at the start
      assertThat(lines.get(i).get("n").asLong()).isGreaterThan(lines.get(i - 1).get("n").asLong());
    }
    assertThat(lines.get(0).get("n").asLong()).isEqualTo(dropped + 1);
  }

  private static List<JsonNode> lines(Path dir) throws IOException {
    List<JsonNode> lines = new ArrayList<>();
    for (String line : Files.readAllLines(dir.resolve("events.jsonl"), StandardCharsets.UTF_8)) {
      lines.add(JSON.readTree(line)); // a torn line would not read
    }
    return lines;
  }

  /** A file channel whose positional writes, while {@link #full}, take half, then fail. */
  static final class FullDisk extends FileChannel {
    private final FileChannel file;
    volatile boolean full;
    int refused;

    FullDisk(FileChannel file) {
      this.file = file;
    }

    @Override
    public int write(ByteBuffer source, long position) throws IOException {
      if (full) {
        refused++;
        ByteBuffer half = source.slice(source.position(), Math.max(1, source.remaining() / 2));
        file.write(half, position);
        throw new IOException("No space left on device");
      }
      return file.write(source, position);
    }

    @Override
    public int read(ByteBuffer dst) throws IOException {
      return file.read(dst);
    }

    @Override
    public long read(ByteBuffer[] dsts, int offset, int length) throws IOException {
      return file.read(dsts, offset, length);
    }

    @Override
    public int write(ByteBuffer src) throws IOException {
      return write(src, file.position());
    }

    @Override
    public long write(ByteBuffer[] srcs, int offset, int length) throws IOException {
      throw new UnsupportedOperationException();
    }

    @Override
    public long position() throws IOException {
      return file.position();
    }

    @Override
    public FileChannel position(long newPosition) throws IOException {
      file.position(newPosition);
      return this;
    }

    @Override
    public long size() throws IOException {
      return file.size();
    }

    @Override
    public FileChannel truncate(long size) throws IOException {
      file.truncate(size);
      return this;
    }

    @Override
    public void force(boolean metaData) throws IOException {
      file.force(metaData);
    }

    @Override
    public long transferTo(long position, long count, WritableByteChannel target) {
      throw new UnsupportedOperationException();
    }

    @Override
    public long transferFrom(ReadableByteChannel src, long position, long count) {
      throw new UnsupportedOperationException();
    }

    @Override
    public int read(ByteBuffer dst, long position) throws IOException {
      return file.read(dst, position);
    }

    @Override
    public MappedByteBuffer map(MapMode mode, long position, long size) {
      throw new UnsupportedOperationException();
    }

    @Override
    public FileLock lock(long position, long size, boolean shared) {
      throw new UnsupportedOperationException();
    }

    @Override
    public FileLock tryLock(long position, long size, boolean shared) {
      throw new UnsupportedOperationException();
    }

    @Override
    protected void implCloseChannel() throws IOException {
      file.close();
    }
  }
}
