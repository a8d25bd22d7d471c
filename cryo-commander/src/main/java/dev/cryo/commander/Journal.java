package dev.cryo.commander;

import dev.cryo.commander.JournalRecord.Kind;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.lang.System.Logger.Level;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * The commander's journal, {@code DIR/journal}: every change of its maps ({@link MapChanges}) as an
 * append-only sequence of checksummed {@link JournalRecord}s, so that a commander killed with
 * SIGKILL leaves what the next start needs to bring back the users that were frozen
 * ({@link JournalReplay}).
 *
 * <p>Records are buffered in memory as the maps change and written in batches every
 * {@link #BATCH} (one write and one {@code fsync} per batch): a change is on disk at most a batch
 * after it happened; a crash inside that window loses only the newest changes (a user frozen in it
 * reads as awake: lost, never invented). When the file holds more than {@link #COMPACT_FACTOR}
 * times the records its maps need (and at least {@link #COMPACT_MIN}), it is compacted: the maps
 * are written afresh into {@code journal.new}, which replaces the journal in one atomic rename; the
 * copy of the maps and the switch of the buffer happen under the maps' lock, so no change falls
 * between them.
 *
 * <p>Threads: {@link MapChanges} calls come under the maps' lock and only append to the buffer; the
 * writes run on a daemon thread of the journal's own; {@link #flush} and {@link #close} may be
 * called from any thread.
 */
final class Journal implements MapChanges, AutoCloseable {

  /** The journal's name in the run directory. */
  static final String FILE_NAME = "journal";
  /** How often the buffered records are written. */
  static final Duration BATCH = Duration.ofMillis(50);
  /** The journal is compacted when it holds this many times the records its maps need... */
  static final int COMPACT_FACTOR = 4;
  /** ...and at least this many records. */
  static final int COMPACT_MIN = 10_000;

  private static final System.Logger LOG = System.getLogger(Journal.class.getName());

  private final Path file;
  private final Routing routing;
  private final ScheduledExecutorService writer;
  private final Object bufferLock = new Object();
  private ByteArrayOutputStream buffer = new ByteArrayOutputStream(); // guarded by bufferLock
  private int buffered; // guarded by bufferLock
  private final Object fileLock = new Object();
  private FileChannel channel; // guarded by fileLock
  private long recordsOnDisk; // guarded by fileLock
  private long liveRecords; // guarded by fileLock: the records of the last compaction
  private boolean closed; // guarded by fileLock

  private Journal(Path file, Routing routing) {
    this.file = file;
    this.routing = routing;
    this.writer = Executors.newSingleThreadScheduledExecutor(runnable -> {
      Thread thread = new Thread(runnable, "cryo-journal");
      thread.setDaemon(true);
      return thread;
    });
  }

  /**
   * Starts the journal of {@code routing} in {@code home}: writes its maps as they are now (a new
   * journal replaces whatever was there, in one rename), then follows every change.
   */
  static Journal start(Path home, Routing routing) throws IOException {
    Journal journal = new Journal(home.resolve(FILE_NAME), routing);
    journal.compact();
    long batch = BATCH.toMillis();
    journal.writer.scheduleWithFixedDelay(journal::writeBatch, batch, batch,
        TimeUnit.MILLISECONDS);
    return journal;
  }

  // ------------------------------------------------------------------------------- the changes

  @Override
  public void linked(String connection, String user) {
    append(new JournalRecord(Kind.LINK, connection, user));
  }

  @Override
  public void unlinked(String connection) {
    append(new JournalRecord(Kind.UNLINK, connection, null));
  }

  @Override
  public void paged(String page, String connection) {
    append(new JournalRecord(Kind.PAGE, page, connection));
  }

  @Override
  public void unpaged(String page) {
    append(new JournalRecord(Kind.UNPAGE, page, null));
  }

  @Override
  public void located(String user, boolean frozen) {
    append(new JournalRecord(frozen ? Kind.FROZEN : Kind.AWAKE, user, null));
  }

  @Override
  public void forgotten(String user) {
    append(new JournalRecord(Kind.GONE, user, null));
  }

  private void append(JournalRecord record) {
    byte[] frame = record.frame();
    synchronized (bufferLock) {
      buffer.write(frame, 0, frame.length);
      buffered++;
    }
  }

  // ------------------------------------------------------------------------------- writing

  /** Writes what is buffered now, and compacts when due; blocks until it is on disk. */
  void flush() {
    writeBatch();
  }

  private void writeBatch() {
    synchronized (fileLock) {
      if (closed) {
        return;
      }
      try {
        byte[] bytes;
        int count;
        synchronized (bufferLock) {
          if (buffered == 0) {
            return;
          }
          bytes = buffer.toByteArray();
          count = buffered;
          buffer = new ByteArrayOutputStream();
          buffered = 0;
        }
        write(channel, bytes);
        channel.force(false);
        recordsOnDisk += count;
        if (recordsOnDisk > Math.max(COMPACT_MIN, COMPACT_FACTOR * liveRecords)) {
          compact();
        }
      } catch (IOException | RuntimeException e) {
        LOG.log(Level.ERROR, "the journal " + file + " could not be written (" + e + "); a crash"
            + " now would lose the users frozen since its last write");
      }
    }
  }

  /** Writes the maps afresh into a new file that replaces the journal; under the maps' lock. */
  private void compact() throws IOException {
    synchronized (fileLock) {
      Path fresh = file.resolveSibling(FILE_NAME + ".new");
      List<byte[]> frames = new ArrayList<>();
      routing.withSnapshot(maps -> {
        maps.users().forEach((user, location) -> frames.add(new JournalRecord(
            location instanceof Location.Frozen ? Kind.FROZEN : Kind.AWAKE, user, null).frame()));
        maps.connectionUser().forEach((connection, user) -> frames.add(
            new JournalRecord(Kind.LINK, connection, user).frame()));
        maps.pageConnection().forEach((page, connection) -> frames.add(
            new JournalRecord(Kind.PAGE, page, connection).frame()));
        synchronized (bufferLock) { // what changed before this copy is in it: drop it
          buffer = new ByteArrayOutputStream();
          buffered = 0;
        }
        routing.tell(this);
      });
      ByteArrayOutputStream all = new ByteArrayOutputStream();
      for (byte[] frame : frames) {
        all.write(frame, 0, frame.length);
      }
      try (FileChannel out = FileChannel.open(fresh, StandardOpenOption.CREATE,
          StandardOpenOption.TRUNCATE_EXISTING, StandardOpenOption.WRITE)) {
        write(out, all.toByteArray());
        out.force(true);
      }
      Files.move(fresh, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
      if (channel != null) {
        channel.close();
      }
      channel = FileChannel.open(file, StandardOpenOption.WRITE, StandardOpenOption.APPEND);
      recordsOnDisk = frames.size();
      liveRecords = frames.size();
    }
  }

  private static void write(FileChannel channel, byte[] bytes) throws IOException {
    ByteBuffer buffer = ByteBuffer.wrap(bytes);
    while (buffer.hasRemaining()) {
      channel.write(buffer);
    }
  }

  /** The journal's file. */
  Path file() {
    return file;
  }

  /**
   * Writes what is buffered and stops. With {@code remove}, the journal is deleted: the run ended
   * with its reboot data committed, or was stopped at once (its next start wipes the freezer).
   * Idempotent.
   */
  void close(boolean remove) {
    writer.shutdownNow();
    routing.tell(MapChanges.NONE);
    synchronized (fileLock) {
      if (closed) {
        return;
      }
      if (!remove) {
        writeBatch();
      }
      closed = true;
      try {
        if (channel != null) {
          channel.close();
        }
        if (remove) {
          Files.deleteIfExists(file);
        }
      } catch (IOException e) {
        LOG.log(Level.WARNING, "the journal " + file + " could not be closed: " + e);
      }
    }
  }

  @Override
  public void close() {
    close(false);
  }
}
