package dev.cryo.commander;

import dev.cryo.commander.JournalRecord.Kind;
import dev.cryo.control.RunHome;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.lang.System.Logger.Level;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * The commander's journal, {@code DIR/journal}: every change of its maps ({@link MapChanges}) as an
 * append-only sequence of checksummed {@link JournalRecord}s, so that a commander killed with
 * SIGKILL leaves what the next start needs to bring back the users that were frozen
 * ({@link JournalReplay}).
 *
 * <p>Records are buffered in memory as the maps change and written in batches every
 * {@link #BATCH} (one write and one {@code fsync} per batch): a change is on disk at most a batch
 * after it happened (plus at most {@link #WAKE_WAIT} when the batch waits for a moving user's wake,
 * below); a crash inside that window loses only the newest changes (a user frozen in it reads as
 * awake: lost, never invented).
 *
 * <p><b>The barrier.</b> A worker's freeze forces nothing: its parcels are in the page cache, where
 * every process reads them, but a power loss can lose them. So a batch that records a user as
 * frozen is written only once his parcels are on disk: before each write, the {@link Barrier} is
 * passed the users whose newest record in the batch is {@code FROZEN} (a user frozen and woken
 * again within one batch, as a move usually is, is not forced at all; a batch taken while a user
 * it records as frozen has his wake on its way waits for that wake first, at most {@link
 * #WAKE_WAIT}, so that a move is not forced either), and the batch waits for it
 * ({@link dev.cryo.freezer.Freezer#forceUsers}, on this journal's thread, never on a request's
 * path). A barrier that fails keeps the batch in memory, in order, and the next tick tries again:
 * the journal then lags, and a crash meanwhile reads those users as awake (lost, never a frozen
 * user without his parcel on disk). A compaction passes the same barrier for what it drops from
 * the buffer. The users of the journal's first compaction (adopted at the start) are not forced
 * again: they were forced by the run that recorded them (its own barrier, or its drain's commit). When the file holds more than {@link #COMPACT_FACTOR}
 * times the records its maps need (and at least {@link #COMPACT_MIN}), it is compacted: the maps
 * are written afresh into {@code journal.new}, which replaces the journal in one atomic rename; the
 * copy of the maps and the switch of the buffer happen under the maps' lock, so no change falls
 * between them.
 *
 * <p>Files: both are created 0600 and reached through the run's home ({@link RunHome}), judged by
 * its rule each time, never through a link. {@code journal.new} is opened read-write (a FIFO never
 * blocks the open) and emptied; after its rename its descriptor goes on as the journal's: nothing
 * is opened again by name.
 *
 * <p><b>No interrupt closes it.</b> NIO closes an interruptible channel when the thread in one of
 * its operations is interrupted, and a closed journal writes nothing more. So every operation on
 * the files runs on the journal's own thread, which nothing interrupts (it is shut down, never
 * interrupted); {@link #flush}, {@link #close} and the start hand their work to it and wait for it,
 * an interrupt of theirs kept for later (set again when they return).
 *
 * <p>Threads: {@link MapChanges} calls come under the maps' lock and only append to the buffer; the
 * writes run on a daemon thread of the journal's own; {@link #flush} and {@link #close} may be
 * called from any thread that holds no lock of the maps.
 */
final class Journal implements MapChanges, AutoCloseable {

  /**
   * What must be on disk before a batch recording these users as frozen is written: their parcels
   * ({@link dev.cryo.freezer.Freezer#forceUsers}). Called on the journal's thread.
   */
  @FunctionalInterface
  interface Barrier {
    /** Forces what {@code frozen} hold; returns once it is on disk, or throws. */
    void force(Set<String> frozen) throws IOException;

    /** No barrier: for tests of the journal's records alone. */
    Barrier NONE = frozen -> { };
  }

  /** The journal's name in the run directory. */
  static final String FILE_NAME = "journal";
  /** The name a compaction writes the journal under before its rename. */
  static final String NEW_FILE_NAME = FILE_NAME + ".new";
  /** How often the buffered records are written. */
  static final Duration BATCH = Duration.ofMillis(50);
  /**
   * How long a batch waits, at most, for the wakes on their way of the users it records as frozen
   * (see {@link #awaitWakesOnTheirWay}).
   */
  static final Duration WAKE_WAIT = Duration.ofMillis(20);
  /** A batch waits for wakes only when it records at most this many users as frozen. */
  static final int WAKE_WAIT_MAX_USERS = 16;
  /** How often a batch waiting for wakes looks at the maps again. */
  private static final long WAKE_POLL_NANOS = TimeUnit.MILLISECONDS.toNanos(1);
  /** The journal is compacted when it holds this many times the records its maps need... */
  static final int COMPACT_FACTOR = 4;
  /** ...and at least this many records. */
  static final int COMPACT_MIN = 10_000;

  private static final System.Logger LOG = System.getLogger(Journal.class.getName());

  private final RunHome home;
  private final Path file;
  private final Routing routing;
  private final Barrier barrier;
  private final ScheduledExecutorService writer;
  private final long wakeWaitNanos;
  private final long firstGeneration;
  private final Object bufferLock = new Object();
  private ByteArrayOutputStream buffer = new ByteArrayOutputStream(); // guarded by bufferLock
  private int buffered; // guarded by bufferLock
  /** Per user touched by the buffer, whether his newest record there is FROZEN. */
  private Map<String, Boolean> frozenInBuffer = new HashMap<>(); // guarded by bufferLock
  private boolean barrierFailing; // guarded by fileLock
  private boolean writeFailing; // guarded by fileLock
  private final Object fileLock = new Object();
  private FileChannel channel; // guarded by fileLock
  private long recordsOnDisk; // guarded by fileLock
  private long liveRecords; // guarded by fileLock: the records of the last compaction
  private boolean closed; // guarded by fileLock

  private Journal(RunHome home, Routing routing, Barrier barrier, Duration wakeWait,
      long firstGeneration) {
    this.firstGeneration = firstGeneration;
    this.home = home;
    this.file = home.shown(FILE_NAME);
    this.routing = routing;
    this.barrier = barrier;
    this.wakeWaitNanos = wakeWait.toNanos();
    this.writer = Executors.newSingleThreadScheduledExecutor(runnable -> {
      Thread thread = new Thread(runnable, "cryo-journal");
      thread.setDaemon(true);
      return thread;
    });
  }

  /**
   * Starts the journal of {@code routing} in {@code home}: writes its maps as they are now (a new
   * journal replaces whatever was there, in one rename), then follows every change, each batch
   * behind {@code barrier}.
   */
  static Journal start(RunHome home, Routing routing, Barrier barrier) throws IOException {
    return start(home, routing, barrier, WAKE_WAIT);
  }

  /**
   * As {@link #start(RunHome, Routing, Barrier)}, a batch waiting at most {@code wakeWait} for
   * wakes.
   */
  static Journal start(RunHome home, Routing routing, Barrier barrier, Duration wakeWait)
      throws IOException {
    return start(home, routing, barrier, wakeWait, 0);
  }

  /**
   * As {@link #start(RunHome, Routing, Barrier)}, the run handing out generations from
   * {@code firstGeneration} on ({@link Generations#first}; 0 when not known): each compaction
   * records it first ({@link JournalRecord.Kind#RUN}), so that the next start knows which parcels
   * this run's stays wrote.
   */
  static Journal start(RunHome home, Routing routing, Barrier barrier, long firstGeneration)
      throws IOException {
    return start(home, routing, barrier, WAKE_WAIT, firstGeneration);
  }

  private static Journal start(RunHome home, Routing routing, Barrier barrier, Duration wakeWait,
      long firstGeneration) throws IOException {
    Journal journal = new Journal(home, routing, barrier, wakeWait, firstGeneration);
    try {
      journal.onWriter(() -> {
        journal.compact();
        return null;
      });
    } catch (IOException | RuntimeException e) {
      journal.writer.shutdown();
      throw e;
    }
    long batch = BATCH.toMillis();
    journal.writer.scheduleWithFixedDelay(journal::tick, batch, batch, TimeUnit.MILLISECONDS);
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
  public void located(String user, boolean frozen, long generation) {
    append(frozen ? JournalRecord.frozen(user, generation)
        : JournalRecord.awake(user, generation), user, frozen);
  }

  @Override
  public void forgotten(String user) {
    append(new JournalRecord(Kind.GONE, user, null), user, false);
  }

  private void append(JournalRecord record) {
    append(record, null, false);
  }

  /** Appends {@code record}; {@code user}, when it locates one, with whether he is now frozen. */
  private void append(JournalRecord record, String user, boolean frozen) {
    byte[] frame = record.frame();
    synchronized (bufferLock) {
      buffer.write(frame, 0, frame.length);
      buffered++;
      if (user != null) {
        frozenInBuffer.put(user, frozen);
      }
    }
  }

  /** What the buffer held, taken out of it whole: its bytes, its count, its users' newest states. */
  private record Taken(byte[] bytes, int count, Map<String, Boolean> users) {
    Set<String> frozen() {
      Set<String> frozen = new TreeSet<>();
      users.forEach((user, isFrozen) -> {
        if (isFrozen) {
          frozen.add(user);
        }
      });
      return frozen;
    }
  }

  /** Empties the buffer into what it held; under bufferLock. */
  private Taken takeBuffer() {
    Taken taken = new Taken(buffer.toByteArray(), buffered, frozenInBuffer);
    buffer = new ByteArrayOutputStream();
    buffered = 0;
    frozenInBuffer = new HashMap<>();
    return taken;
  }

  /** Puts {@code taken} back in front of what was buffered since, in order. */
  private void putBack(Taken taken) {
    synchronized (bufferLock) {
      ByteArrayOutputStream merged = new ByteArrayOutputStream();
      merged.write(taken.bytes(), 0, taken.bytes().length);
      byte[] since = buffer.toByteArray();
      merged.write(since, 0, since.length);
      buffer = merged;
      buffered += taken.count();
      Map<String, Boolean> users = new HashMap<>(taken.users());
      users.putAll(frozenInBuffer); // what came since is newer
      frozenInBuffer = users;
    }
  }

  /**
   * Passes the barrier for the users {@code taken} records as frozen; on a failure, puts it back
   * and says so (once per run of failures).
   *
   * @return whether the batch may be written
   */
  private boolean passBarrier(Taken taken) {
    Set<String> frozen = taken.frozen();
    if (frozen.isEmpty()) {
      return true;
    }
    try {
      barrier.force(frozen);
      if (barrierFailing) {
        barrierFailing = false;
        LOG.log(Level.INFO, "the journal " + file + " could force the parcels of its frozen users"
            + " again; it caught up");
      }
      return true;
    } catch (IOException | RuntimeException e) {
      putBack(taken);
      if (!barrierFailing) {
        barrierFailing = true;
        LOG.log(Level.ERROR, "the parcels of " + frozen.size() + " users frozen since the last"
            + " batch could not be forced to disk (" + e + "); the journal " + file + " keeps"
            + " their batch in memory and tries again every " + BATCH + ": a crash meanwhile"
            + " loses them as awake users");
      }
      return false;
    }
  }

  // ------------------------------------------------------------------------------- writing

  /**
   * Writes what is buffered now, and compacts when due; blocks until it is on disk (or the write
   * failed, which is logged). Runs on the journal's thread: an interrupt of the caller does not
   * touch the file, and is set again when this returns.
   */
  void flush() {
    try {
      onWriter(() -> {
        writeBatch();
        return null;
      });
    } catch (IOException e) { // writeBatch logs its own failures
      LOG.log(Level.ERROR, "the journal " + file + " could not be flushed: " + e);
    }
  }

  /**
   * Runs {@code work} on the journal's thread and waits for it, uninterruptibly: an interrupt of
   * the caller is kept and set again on return. After a close, does nothing.
   */
  private <T> T onWriter(java.util.concurrent.Callable<T> work) throws IOException {
    java.util.concurrent.Future<T> done;
    try {
      done = writer.submit(work);
    } catch (java.util.concurrent.RejectedExecutionException e) {
      return null; // closed: nothing more is written
    }
    boolean interrupted = false;
    try {
      while (true) {
        try {
          return done.get();
        } catch (InterruptedException e) {
          interrupted = true; // the file's operation is not the caller's to cut short
        } catch (java.util.concurrent.ExecutionException e) {
          Throwable cause = e.getCause();
          if (cause instanceof IOException io) {
            throw io;
          }
          if (cause instanceof RuntimeException runtime) {
            throw runtime;
          }
          if (cause instanceof Error error) {
            throw error;
          }
          throw new IllegalStateException(cause);
        }
      }
    } finally {
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
  }

  /** The batch of the journal's clock: as {@link #flush}, after the wakes on their way. */
  private void tick() {
    awaitWakesOnTheirWay();
    writeBatch();
  }

  /**
   * Waits, at most {@link #wakeWaitNanos}, while a user the buffer records as frozen has a wake on
   * its way: the maps say he is frozen with a destination (a move, or a request placed to wake
   * him), so his next record, a few milliseconds away, says he is awake again. Without the wait
   * the barrier would force the parcels the wake is reading and removing, for nothing, and the
   * forces compete with that wake for the file system (measured: the move's tail, docs/benchmarks.md).
   * A batch that records more than {@link #WAKE_WAIT_MAX_USERS} users as frozen (a quit, a drain)
   * does not wait. Called on the journal's thread with no lock held (it asks the maps, whose lock
   * comes before the buffer's); it only delays a batch: a change is on disk at most a
   * {@link #BATCH} plus this wait after it happened, and the barrier still forces whoever the batch
   * records as frozen.
   */
  private void awaitWakesOnTheirWay() {
    long deadline = System.nanoTime() + wakeWaitNanos;
    while (!Thread.currentThread().isInterrupted()) {
      List<String> frozen = new ArrayList<>();
      synchronized (bufferLock) {
        for (Map.Entry<String, Boolean> user : frozenInBuffer.entrySet()) {
          if (user.getValue()) {
            frozen.add(user.getKey());
          }
        }
      }
      if (frozen.isEmpty() || frozen.size() > WAKE_WAIT_MAX_USERS || !anyWakeOnItsWay(frozen)) {
        return;
      }
      long left = deadline - System.nanoTime();
      if (left <= 0) {
        return;
      }
      LockSupport.parkNanos(this, Math.min(left, WAKE_POLL_NANOS));
    }
  }

  private boolean anyWakeOnItsWay(List<String> users) {
    for (String user : users) {
      if (routing.locate(user) instanceof Location.Frozen frozen && frozen.destination() != null) {
        return true;
      }
    }
    return false;
  }

  private void writeBatch() {
    synchronized (fileLock) {
      if (closed) {
        return;
      }
      try {
        Taken taken;
        synchronized (bufferLock) {
          if (buffered == 0) {
            return;
          }
          taken = takeBuffer();
        }
        if (!passBarrier(taken)) {
          return;
        }
        if (!append(taken)) {
          return;
        }
        recordsOnDisk += taken.count();
        if (recordsOnDisk > Math.max(COMPACT_MIN, COMPACT_FACTOR * liveRecords)) {
          compact();
        }
      } catch (IOException | RuntimeException e) {
        LOG.log(Level.ERROR, "the journal " + file + " could not be written (" + e + "); a crash"
            + " now would lose the users frozen since its last write");
      }
    }
  }

  /**
   * Appends {@code taken} and forces it; under the file lock. A write the file system refuses
   * midway (a full disk) leaves no part of the batch in the file: it is cut back to where it
   * ended before, so that no torn record ever lies before a later whole one (a replay refuses such
   * a journal as corrupt, and every user with it), and the batch goes back in front of the buffer,
   * written with the next one. A failure is logged once per run of failures.
   *
   * @return whether the batch is on disk
   * @throws IOException when the journal could not even be cut back: a torn tail stays, which a
   *     replay drops as the last record's, as long as nothing is written after it
   */
  private boolean append(Taken taken) throws IOException {
    long end = channel.size();
    try {
      write(channel, taken.bytes());
      channel.force(false);
    } catch (IOException e) {
      channel.truncate(end); // never a torn record before a later whole one
      channel.position(end);
      putBack(taken);
      if (!writeFailing) {
        writeFailing = true;
        LOG.log(Level.ERROR, "the journal " + file + " could not be written (" + e + "); it was"
            + " cut back to its last whole record, and keeps the batch of " + taken.count()
            + " records in memory, written again every " + BATCH + ": a crash meanwhile loses"
            + " what they record");
      }
      return false;
    }
    if (writeFailing) {
      writeFailing = false;
      LOG.log(Level.INFO, "the journal " + file + " takes writes again; it caught up");
    }
    return true;
  }

  /** Writes the maps afresh into a new file that replaces the journal; under the maps' lock. */
  private void compact() throws IOException {
    synchronized (fileLock) {
      List<byte[]> frames = new ArrayList<>();
      if (firstGeneration > 0) {
        frames.add(new JournalRecord(Kind.RUN, Long.toString(firstGeneration), null).frame());
      }
      Taken[] dropped = new Taken[1];
      routing.withSnapshot(maps -> {
        maps.users().forEach((user, location) -> frames.add((location instanceof Location.Frozen
            frozen ? JournalRecord.frozen(user, frozen.generation())
            : JournalRecord.awake(user, location instanceof Location.OnWorker on
                ? on.generation() : 0)).frame()));
        maps.connectionUser().forEach((connection, user) -> frames.add(
            new JournalRecord(Kind.LINK, connection, user).frame()));
        maps.pageConnection().forEach((page, connection) -> frames.add(
            new JournalRecord(Kind.PAGE, page, connection).frame()));
        synchronized (bufferLock) { // what changed before this copy is in it: drop it
          dropped[0] = takeBuffer();
        }
        routing.tell(this);
      });
      if (!passBarrier(dropped[0])) { // put back: the journal on disk stays as it was
        throw new IOException("the journal was not compacted: the parcels of the users it would"
            + " record as frozen are not on disk yet");
      }
      ByteArrayOutputStream all = new ByteArrayOutputStream();
      for (byte[] frame : frames) {
        all.write(frame, 0, frame.length);
      }
      FileChannel out;
      try {
        out = home.create(NEW_FILE_NAME);
      } catch (IOException | RuntimeException e) {
        putBack(dropped[0]); // the journal stays as it was: what the copy held is written later
        throw e;
      }
      try {
        write(out, all.toByteArray());
        out.force(true);
        home.rename(NEW_FILE_NAME, FILE_NAME);
      } catch (IOException | RuntimeException e) {
        out.close();
        putBack(dropped[0]); // the journal stays as it was: what the copy held is written later
        throw e;
      }
      if (channel != null) {
        channel.close();
      }
      channel = out; // the journal now, by its descriptor; it writes on at its end
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
   * Runs on the journal's thread as {@link #flush} does (an interrupt of the caller touches no
   * file), then shuts that thread down without interrupting it. Idempotent.
   */
  void close(boolean remove) {
    routing.tell(MapChanges.NONE);
    try {
      onWriter(() -> {
        closeFiles(remove);
        return null;
      });
    } catch (IOException | RuntimeException e) {
      LOG.log(Level.WARNING, "the journal " + file + " could not be closed: " + e);
    }
    writer.shutdown(); // never shutdownNow: an interrupt would close a channel mid-write
  }

  private void closeFiles(boolean remove) {
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
          home.remove(FILE_NAME);
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
